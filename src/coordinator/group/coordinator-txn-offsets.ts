/**
 * Transactional offset commits (TxnOffsetCommit, KIP-98; member fencing
 * KIP-447) and their completion by a transaction marker, as Kafka's
 * GroupMetadataManager does them:
 *
 * - the commits are written as one transactional batch of the producer to
 *   the group's __consumer_offsets partition and kept per producer id as
 *   pending: OffsetFetch does not show them, and a RequireStable fetch of
 *   those partitions answers UNSTABLE_OFFSET_COMMIT;
 * - when the transaction's marker is written to that partition
 *   (WriteTxnMarkers), COMMIT makes them the group's committed offsets and
 *   ABORT drops them.
 *
 * Validation: a member id or generation, when given, must match the group
 * (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID), so a zombie
 * member of an older generation cannot commit (KIP-447); without them
 * (generation -1, member ''), the commit is accepted whatever the group
 * state, as in Kafka. A group that does not exist is created.
 *
 * Difference from Kafka: a committed transactional offset replaces the
 * partition's offset at marker time; Kafka keeps whichever record is later
 * in the log (a plain commit written after the transactional one and before
 * its marker wins there).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { persistenceErrorCode } from './request-rules.js';
import { tpKey } from './group.js';
import type { OffsetsCore } from './coordinator-offsets.js';
import type { CommittedOffset } from './types.js';

export interface TxnOffsetCommitInput {
  readonly transactionalId: string;
  readonly groupId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly offsets: readonly { topic: string; partition: number; offset: bigint; leaderEpoch: number; metadata: string | null }[];
}

export interface TxnOffsetCommitResult {
  readonly partitions: readonly { topic: string; partition: number; errorCode: number }[];
}

export async function commitTxnOffsets(core: OffsetsCore, input: TxnOffsetCommitInput): Promise<TxnOffsetCommitResult> {
  const all = (errorCode: number): TxnOffsetCommitResult => ({ partitions: input.offsets.map((o) => ({ topic: o.topic, partition: o.partition, errorCode })) });
  const group = core.group(input.groupId) ?? core.createGroup(input.groupId);
  if (group.is('Dead')) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  if (input.memberId !== '' || input.groupInstanceId !== null) {
    const memberError = core.validateCurrentMember(group, input.memberId, input.groupInstanceId);
    if (memberError !== null) return all(memberError);
  }
  if (input.generationId >= 0 && input.generationId !== group.generationId) return all(ErrorCode.ILLEGAL_GENERATION);
  const store = core.deps.persistence.storeTxnOffsets?.bind(core.deps.persistence);
  if (store === undefined) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const nowMs = core.deps.clock.nowMs();
  const codes: number[] = [];
  const commits: CommittedOffset[] = [];
  for (const o of input.offsets) {
    const metadata = o.metadata ?? '';
    const tooLarge = metadata.length > core.deps.config.offsetMetadataMaxBytes;
    codes.push(tooLarge ? ErrorCode.OFFSET_METADATA_TOO_LARGE : ErrorCode.NONE);
    if (!tooLarge) commits.push({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata, commitTimestampMs: nowMs, expireTimestampMs: null });
  }
  const result = (storeCode: number): TxnOffsetCommitResult => ({
    partitions: input.offsets.map((o, i) => ({ topic: o.topic, partition: o.partition, errorCode: codes[i] === ErrorCode.NONE ? storeCode : (codes[i] as number) })),
  });
  if (commits.length === 0) return result(ErrorCode.NONE);
  const keys = commits.map((c) => tpKey(c.topic, c.partition));
  for (const k of keys) group.addPendingCommit(k);
  try {
    await store(group.groupId, input.producerId, input.producerEpoch, commits);
    if (core.isLive(group) && !group.is('Dead')) {
      const byTp = group.pendingTxnOffsets.get(input.producerId) ?? new Map<string, CommittedOffset>();
      for (const c of commits) byTp.set(tpKey(c.topic, c.partition), c);
      group.pendingTxnOffsets.set(input.producerId, byTp);
    }
    return result(ErrorCode.NONE);
  } catch (err) {
    return result(persistenceErrorCode(err));
  } finally {
    for (const k of keys) group.removePendingCommit(k);
  }
}

/**
 * The marker of `producerId`'s transaction reached the __consumer_offsets
 * partition holding the groups `inPartition` selects: apply (commit) or
 * drop (abort) their pending transactional offsets. Returns how many
 * offsets were applied or dropped.
 */
export function completeTxnOffsets(core: OffsetsCore, producerId: bigint, committed: boolean, inPartition: (groupId: string) => boolean): number {
  let n = 0;
  for (const group of core.allGroups()) {
    if (!inPartition(group.groupId)) continue;
    const byTp = group.pendingTxnOffsets.get(producerId);
    if (byTp === undefined) continue;
    group.pendingTxnOffsets.delete(producerId);
    n += byTp.size;
    if (!committed) continue;
    const seq = core.nextWriteSeq();
    for (const c of byTp.values()) group.applyCommit(c, seq);
  }
  return n;
}

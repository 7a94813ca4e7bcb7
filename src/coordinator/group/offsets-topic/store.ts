/**
 * GroupPersistence over __consumer_offsets: every storeGroup / storeOffsets
 * call becomes ONE record batch (all or nothing, as Kafka writes one batch
 * per commit request) appended to the group's partition on this broker, the
 * leader, through the coordinator runtime (and so through the ReplicaManager,
 * like any client write). The call resolves once the high watermark covers
 * the batch.
 *
 * Ordering: the append happens synchronously inside the call, so batches
 * reach the log in the order the coordinator made the calls; only the wait
 * for the high watermark is asynchronous.
 *
 * Limits (each failure is an OffsetsStoreError 'too_large'):
 * - at most OFFSETS_BATCH_RECORDS_MAX records per call (checked before encoding);
 * - the built batch (after compression) at most `batchBytesMax`, default
 *   Kafka's max.message.bytes default (1 MiB + 12), and at most the log's
 *   segment.bytes (Kafka's RECORD_LIST_TOO_LARGE).
 */
import { Compression } from '../../../protocol/record-batch/header.js';
import { buildRecordBatchSync, type RecordInput } from '../../../protocol/record-batch/builder.js';
import type { Partition } from '../../../replication/partition.js';
import { ErrorCode } from '../../../protocol/errors.js';
import { invariant } from '../../../util/assert.js';
import type { CoordinatorAppendOutcome, CoordinatorWriter } from '../../runtime/coordinator-runtime.js';
import type { Clock } from '../../../util/clock.js';
import type { CommittedOffset, GroupPersistence, GroupSnapshot, OffsetTombstone } from '../types.js';
import { OffsetsStoreError, wireErrorFor } from './errors.js';

/**
 * Attaches the wire code Kafka answers for a failed store (see wireErrorFor)
 * as `errorCode`, which the coordinator passes on to the client.
 */
function withWireCode(stored: 'offsets' | 'group', work: Promise<void>): Promise<void> {
  return work.catch((err: unknown) => {
    if (err instanceof OffsetsStoreError) err.errorCode = wireErrorFor(err.kind, stored);
    throw err;
  });
}
import { partitionForGroup } from './partitioner.js';
import { encodeGroupMetadataKey, encodeGroupMetadataValue, encodeOffsetCommitKey, encodeOffsetCommitValue } from './records.js';

/** The producer of a transactional batch (TxnOffsetCommit). */
interface TxnProducer {
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** Most records one store call may write (a commit of this many partitions is already unusual). */
export const OFFSETS_BATCH_RECORDS_MAX = 65_536;
/** Kafka's max.message.bytes default: the largest batch a topic accepts. */
export const OFFSETS_BATCH_BYTES_MAX_DEFAULT = 1_048_588;

export interface OffsetsTopicStoreOptions {
  /** offsets.topic.num.partitions of the existing topic. */
  readonly numPartitions: number;
  /** Where batches go: the coordinator runtime of __consumer_offsets (hosted partitions, appends). */
  readonly writer: CoordinatorWriter;
  readonly clock: Clock;
  /** Codec id (offsets.topic.compression.codec); zstd is refused (the append path is synchronous). */
  readonly compression?: number;
  /** Default OFFSETS_BATCH_BYTES_MAX_DEFAULT; pass the topic's max.message.bytes. */
  readonly batchBytesMax?: number;
}

export class OffsetsTopicStore implements GroupPersistence {
  private readonly numPartitions: number;
  private readonly compression: number;
  private readonly batchBytesMax: number;

  constructor(private readonly opts: OffsetsTopicStoreOptions) {
    invariant(Number.isInteger(opts.numPartitions) && opts.numPartitions >= 1, 'numPartitions >= 1');
    this.numPartitions = opts.numPartitions;
    this.compression = opts.compression ?? Compression.None;
    invariant(this.compression !== Compression.Zstd, 'zstd is not supported for __consumer_offsets writes');
    this.batchBytesMax = opts.batchBytesMax ?? OFFSETS_BATCH_BYTES_MAX_DEFAULT;
  }

  /** The __consumer_offsets partition that holds this group. */
  partitionOf(groupId: string): number {
    return partitionForGroup(groupId, this.numPartitions);
  }

  storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    return withWireCode('group', this.run(groupId, () => {
      invariant(snapshot === null || snapshot.groupId === groupId, 'the snapshot belongs to the group');
      const value = snapshot === null ? null : encodeGroupMetadataValue(snapshot);
      return [{ key: encodeGroupMetadataKey(groupId), value }];
    }));
  }

  storeOffsets(groupId: string, commits: readonly (CommittedOffset | OffsetTombstone)[]): Promise<void> {
    return withWireCode('offsets', this.storeOffsetsRaw(groupId, commits));
  }

  /** One transactional batch of the producer (baseSequence -1, as Kafka's GroupMetadataManager writes it). */
  storeTxnOffsets(groupId: string, producerId: bigint, producerEpoch: number, commits: readonly CommittedOffset[]): Promise<void> {
    if (commits.length === 0) return Promise.resolve();
    if (commits.length > OFFSETS_BATCH_RECORDS_MAX) {
      return Promise.reject(new OffsetsStoreError('too_large', `${commits.length} offsets in one commit exceed ${OFFSETS_BATCH_RECORDS_MAX}`));
    }
    const records = (): RecordInput[] => commits.map((c) => ({ key: encodeOffsetCommitKey(groupId, c.topic, c.partition), value: encodeOffsetCommitValue(c) }));
    return withWireCode('offsets', this.run(groupId, records, { producerId, producerEpoch }));
  }

  private storeOffsetsRaw(groupId: string, commits: readonly (CommittedOffset | OffsetTombstone)[]): Promise<void> {
    if (commits.length === 0) return Promise.resolve();
    if (commits.length > OFFSETS_BATCH_RECORDS_MAX) {
      return Promise.reject(
        new OffsetsStoreError('too_large', `${commits.length} offsets in one commit exceed ${OFFSETS_BATCH_RECORDS_MAX}`),
      );
    }
    return this.run(groupId, () =>
      commits.map((c) => ({
        key: encodeOffsetCommitKey(groupId, c.topic, c.partition),
        value: c.offset === null ? null : encodeOffsetCommitValue(c),
      })),
    );
  }

  /** Encodes, appends synchronously, then waits for the high watermark. */
  private run(groupId: string, records: () => RecordInput[], txn?: TxnProducer): Promise<void> {
    let committed: Promise<void>;
    try {
      committed = this.append(groupId, records, txn);
    } catch (e) {
      return Promise.reject(e);
    }
    return committed;
  }

  private append(groupId: string, makeRecords: () => RecordInput[], txn?: TxnProducer): Promise<void> {
    const index = this.partitionOf(groupId);
    const p = this.opts.writer.partition(index);
    if (p === undefined) {
      throw new OffsetsStoreError('not_available', `__consumer_offsets-${index} (group '${groupId}') is not hosted on this broker`);
    }
    if (!p.isLeader) {
      throw new OffsetsStoreError('not_coordinator', `this broker is not the leader of __consumer_offsets-${index} (leader ${p.leaderId})`);
    }
    const batch = this.build(makeRecords, p, txn);
    const limit = Math.min(this.batchBytesMax, p.log.config.segmentBytes);
    if (batch.length > limit) {
      throw new OffsetsStoreError('too_large', `a batch of ${batch.length} bytes for group '${groupId}' exceeds ${limit} bytes`);
    }
    return this.opts.writer.append(index, batch).then((outcome) => {
      if (outcome.errorCode !== ErrorCode.NONE) throw storeErrorFor(outcome, index);
    });
  }

  private build(makeRecords: () => RecordInput[], p: Partition, txn?: TxnProducer): Buffer {
    try {
      return buildRecordBatchSync({
        records: makeRecords(),
        compression: this.compression,
        timestampMs: this.opts.clock.nowMs(),
        partitionLeaderEpoch: p.leaderEpoch,
        ...(txn === undefined ? {} : { producerId: txn.producerId, producerEpoch: txn.producerEpoch, baseSequence: -1, transactional: true }),
      });
    } catch (e) {
      // A string longer than an int16 length (group id, topic, metadata) or a batch over 2 GiB.
      if (e instanceof RangeError && /too long|exceeds/.test(e.message)) {
        throw new OffsetsStoreError('too_large', e.message, { cause: e });
      }
      throw e;
    }
  }
}

/** The store's failure kind for a failed append (Kafka's GroupMetadataManager mapping; errors.ts has the wire codes). */
function storeErrorFor(outcome: CoordinatorAppendOutcome, index: number): OffsetsStoreError {
  const message = `append to __consumer_offsets-${index} failed: ${outcome.errorMessage ?? `error ${outcome.errorCode}`}`;
  switch (outcome.errorCode) {
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
      return new OffsetsStoreError('not_coordinator', message);
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return new OffsetsStoreError('not_available', message);
    case ErrorCode.REQUEST_TIMED_OUT:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
      return new OffsetsStoreError('timeout', message);
    default:
      return new OffsetsStoreError('storage', message);
  }
}

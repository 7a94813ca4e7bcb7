/**
 * The Consumer's offsets: starting positions (the group's committed offsets,
 * else the reset policy through ListOffsets), resets after
 * OFFSET_OUT_OF_RANGE, and commits (with the member's generation in
 * subscribe mode, standalone with assign()). It works on the consumer's
 * partition states (consumer-state.ts) through a small host interface.
 */
import type { Cluster } from './cluster.js';
import { groupByTopic } from './consumer-protocol.js';
import type { PartitionState, ResetSpec } from './consumer-state.js';
import { partitionKey } from './consumer-state.js';
import { ClientErrorCode, TributaryClientError, invalidArgument, type KafkaProtocolError } from '../net/errors.js';
import { ErrorCode } from '../protocol/errors.js';
import { withCoordinator } from './group-apis.js';
import { STANDALONE_COMMIT, commitOffsets, fetchCommittedOffsets, type CommittedOffset, type OffsetToCommit } from './group-offsets.js';
import type { GroupMember } from './group.js';
import type { TopicPartitions } from './consumer-protocol.js';
import { listOffsetsMany } from './records.js';

/** The wait before asking again for a committed offset held by an open transaction (Java's retry.backoff.ms). */
const UNSTABLE_RETRY_MS = 100;

/** What the offset logic needs from the Consumer. */
export interface OffsetsHost<K, V> {
  readonly groupId: string | null;
  readonly autoOffsetReset: 'earliest' | 'latest' | 'none';
  readonly isolationLevel: 0 | 1;
  readonly states: ReadonlyMap<string, PartitionState<K, V>>;
  cluster(): Promise<Cluster>;
  /** The cluster client is connected (positions can be looked up). */
  connected(): boolean;
  member(): GroupMember | null;
  closed(): boolean;
  /** An error for the application's next pull. */
  fail(err: unknown): void;
  /** Positions changed: fetch and wake the pull. */
  changed(): void;
}

export class ConsumerOffsets<K, V> {
  private resetting = false;
  private resetAgain = false;
  private initializing = false;

  constructor(private readonly host: OffsetsHost<K, V>) {}

  /** The group's committed offsets of `partitions`. */
  async committed(partitions: readonly TopicPartitions[]): Promise<CommittedOffset[]> {
    const groupId = this.host.groupId;
    if (groupId === null) throw invalidArgument('committed() needs a groupId');
    if (partitions.length === 0) return [];
    const member = this.host.member();
    if (member !== null) return member.fetchCommitted(partitions);
    const cluster = await this.host.cluster();
    return withCoordinator(cluster, groupId, (conn) => fetchCommittedOffsets(conn, groupId, partitions));
  }

  /** Partitions whose starting position could not be found (an error was reported): try again, one attempt at a time. */
  retryPositions(): void {
    if (this.initializing || !this.host.connected()) return;
    const waiting = [...this.host.states.values()].filter((s) => s.position === null && s.resetTo === null);
    if (waiting.length === 0) return;
    this.initializing = true;
    void this.initPositions(waiting)
      .catch((err: unknown) => this.host.fail(err))
      .finally(() => {
        this.initializing = false;
        this.host.changed();
      });
  }

  /** Starting positions: the group's committed offsets, else the reset policy. */
  async initPositions(states: readonly PartitionState<K, V>[]): Promise<void> {
    const need = states.filter((s) => s.position === null && s.resetTo === null);
    if (need.length === 0) return;
    /** Partitions whose committed offset is not stable yet (an open transaction holds one): neither reset nor started. */
    const unstable = new Set<string>();
    if (this.host.groupId !== null) {
      const tps = groupByTopic(need);
      const groupId = this.host.groupId;
      const cluster = await this.host.cluster();
      const member = this.host.member();
      // read_committed asks for stable offsets only (KIP-447): a partition with a pending transactional commit waits.
      const options = { requireStable: this.host.isolationLevel === 1 };
      const committed =
        member !== null ? await member.fetchCommitted(tps, options) : await withCoordinator(cluster, groupId, (conn) => fetchCommittedOffsets(conn, groupId, tps, options));
      for (const c of committed) {
        const s = this.host.states.get(partitionKey(c.topic, c.partition));
        if (c.error?.kafkaErrorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT) unstable.add(partitionKey(c.topic, c.partition));
        if (s === undefined || c.error !== null || c.offset < 0n || s.position !== null) continue;
        s.seekTo(c.offset);
        s.committed = c.offset;
        // Committed with its leader epoch (OffsetFetch v5+): check it against the leader before fetching (KIP-320),
        // as the log may have been truncated since.
        if (c.leaderEpoch >= 0) {
          s.lastEpoch = c.leaderEpoch;
          s.awaitingValidation = true;
        }
      }
    }
    const policy = this.host.autoOffsetReset;
    for (const s of need) {
      if (s.position !== null || !s.assigned || unstable.has(partitionKey(s.topic, s.partition))) continue;
      if (policy === 'none') {
        this.host.fail(new TributaryClientError(ClientErrorCode.OFFSET_OUT_OF_RANGE, `${s.topic}-${s.partition}: no committed offset and autoOffsetReset is 'none' (seek() to start)`));
        continue;
      }
      s.requestReset(policy);
    }
    await this.resetOffsets();
    // Java's consumer retries UNSTABLE_OFFSET_COMMIT after its retry backoff; the pull asks again once this resolves.
    if (unstable.size > 0) await new Promise((resolve) => setTimeout(resolve, UNSTABLE_RETRY_MS));
  }

  /** ListOffsets for every partition waiting for a reset; one run at a time (a request during a run runs again after it). */
  async resetOffsets(): Promise<void> {
    if (this.resetting) {
      this.resetAgain = true;
      return;
    }
    this.resetting = true;
    try {
      do {
        this.resetAgain = false;
        const waiting = [...this.host.states.values()].filter((s) => s.resetTo !== null);
        if (waiting.length === 0) break;
        const cluster = await this.host.cluster();
        const epochs = waiting.map((s) => s.epoch);
        const isolation = this.host.isolationLevel;
        const listed = await listOffsetsMany(cluster, waiting.map((s) => ({ topic: s.topic, partition: s.partition, spec: s.resetTo as ResetSpec })), isolation);
        waiting.forEach((s, i) => {
          const r = listed[i];
          if (r === undefined || s.epoch !== epochs[i] || s.resetTo === null) return;
          s.seekTo(r.offset);
          // The epoch of the offset found (ListOffsets v4+), validated on the next leader change (KIP-320).
          s.lastEpoch = r.leaderEpoch;
        });
      } while (this.resetAgain);
    } catch (err) {
      if (!this.host.closed()) this.host.fail(err);
    } finally {
      this.resetting = false;
    }
    this.host.changed();
  }

  onOutOfRange(s: PartitionState<K, V>, cause: KafkaProtocolError): void {
    const policy = this.host.autoOffsetReset;
    if (policy === 'none') {
      s.fetchOffset = null; // stop fetching it until the application seeks
      this.host.fail(new TributaryClientError(ClientErrorCode.OFFSET_OUT_OF_RANGE, `${s.topic}-${s.partition}: offset ${String(s.position)} is out of range and autoOffsetReset is 'none'`, { cause }));
      return;
    }
    s.requestReset(policy);
    void this.resetOffsets();
  }

  /** Positions to commit; `changedOnly` skips partitions whose position was already committed. */
  positions(states: readonly PartitionState<K, V>[], changedOnly: boolean): OffsetToCommit[] {
    const out: OffsetToCommit[] = [];
    for (const s of states) {
      if (s.position === null) continue;
      if (changedOnly && s.committed === s.position) continue;
      // The position's leader epoch goes with it (OffsetCommit v6+), for validation by whoever resumes from it (KIP-320).
      out.push({ topic: s.topic, partition: s.partition, offset: s.position, ...(s.lastEpoch >= 0 ? { leaderEpoch: s.lastEpoch } : {}) });
    }
    return out;
  }

  async commit(list: readonly OffsetToCommit[]): Promise<void> {
    if (list.length === 0) return;
    const groupId = this.host.groupId;
    if (groupId === null) throw invalidArgument('commit needs a groupId');
    const member = this.host.member();
    if (member !== null) {
      await member.commit(list);
    } else {
      const cluster = await this.host.cluster();
      const results = await withCoordinator(cluster, groupId, (conn) => commitOffsets(conn, { groupId, ...STANDALONE_COMMIT }, list));
      const failed = results.find((r) => r.error !== null)?.error;
      if (failed !== undefined && failed !== null) throw failed;
    }
    for (const o of list) {
      const s = this.host.states.get(partitionKey(o.topic, o.partition));
      if (s !== undefined) s.committed = o.offset;
    }
  }
}

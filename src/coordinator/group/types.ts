/**
 * The contract between the group coordinator (a pure state machine:
 * coordinator.ts) and its persistence (the __consumer_offsets topic:
 * offsets-topic/). The coordinator never does I/O itself: it asks a
 * GroupPersistence to store group metadata and offsets and awaits the result,
 * and it is handed what was stored when a partition of __consumer_offsets is
 * loaded. Time comes from a Clock and timers from a Timers, so the simulation
 * test drives both virtually.
 */

/** A member as stored in group metadata (Kafka's GroupMetadataValue member). */
export interface MemberSnapshot {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  /** The metadata of the protocol the group chose (the member's subscription). */
  readonly subscription: Buffer;
  /** What the leader assigned this member in the current generation. */
  readonly assignment: Buffer;
}

/**
 * A group's metadata after a completed rebalance (stored when SyncGroup
 * completes a generation, and an empty form when the group becomes empty).
 * Kafka's GroupMetadataValue.
 */
export interface GroupSnapshot {
  readonly groupId: string;
  readonly protocolType: string;
  readonly generationId: number;
  /** Null when the group is empty. */
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  /** Wall-clock ms of the last state change (for offset expiry of empty groups). */
  readonly currentStateTimestampMs: number;
  readonly members: readonly MemberSnapshot[];
}

/** One committed offset (Kafka's OffsetCommitValue). */
export interface CommittedOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** -1 when unknown. */
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly commitTimestampMs: number;
  /** Only from OffsetCommit v2-v4 with an explicit retention; otherwise null. */
  readonly expireTimestampMs: number | null;
}

export interface TopicPartitionRef {
  readonly topic: string;
  readonly partition: number;
}

/**
 * Where the coordinator's state goes. Each call resolves once the records are
 * durable in the group's __consumer_offsets partition (appended and, with
 * replication, committed), or rejects; the coordinator answers the client
 * only after that.
 */
export interface GroupPersistence {
  /** Stores group metadata; null writes a tombstone (group deleted). */
  storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void>;
  /** Stores commits; every entry with `offset: null` is a tombstone for that partition. */
  storeOffsets(groupId: string, commits: readonly (CommittedOffset | OffsetTombstone)[]): Promise<void>;
  /**
   * Stores a TxnOffsetCommit as one transactional batch of the producer
   * (KIP-98): it counts only once the transaction's COMMIT marker follows it
   * in the partition. Absent = transactions are not available (the
   * coordinator answers COORDINATOR_NOT_AVAILABLE).
   */
  storeTxnOffsets?(groupId: string, producerId: bigint, producerEpoch: number, commits: readonly CommittedOffset[]): Promise<void>;
}

export interface OffsetTombstone {
  readonly topic: string;
  readonly partition: number;
  readonly offset: null;
}

/** What one __consumer_offsets partition held, replayed at load (latest record per key). */
export interface LoadedPartitionState {
  readonly groups: readonly GroupSnapshot[];
  /** Committed offsets by group id. */
  readonly offsets: ReadonlyMap<string, readonly CommittedOffset[]>;
  /** Transactional offsets with no marker yet, by group id then producer id (they wait for it). */
  readonly pendingTxnOffsets?: ReadonlyMap<string, ReadonlyMap<bigint, readonly CommittedOffset[]>>;
}

/** Timers are injected (src/util/timer.ts) so the simulation can run on virtual time. */
export type { TimerHandle, Timers } from '../../util/timer.js';

/** Broker configs the coordinator honours (Kafka names in comments). */
export interface GroupCoordinatorConfig {
  /** group.initial.rebalance.delay.ms */
  readonly initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms */
  readonly minSessionTimeoutMs: number;
  /** group.max.session.timeout.ms */
  readonly maxSessionTimeoutMs: number;
  /** group.max.size */
  readonly maxSize: number;
  /** offsets.retention.minutes, in ms */
  readonly offsetsRetentionMs: number;
  /** offset.metadata.max.bytes */
  readonly offsetMetadataMaxBytes: number;
}

/**
 * Per-partition consumer state: the position (next offset handed to the
 * application), the fetch offset (next offset to ask the broker for: the
 * position plus whatever is buffered), the buffered fetches, pause, and an
 * epoch that seek/reset bump so a fetch answered for an older position is
 * dropped.
 *
 * Leader changes (KIP-320): `lastEpoch` is the leader epoch of the last
 * batch handed out; `leaderId`/`leaderEpoch` the leader the partition is
 * fetched under. When the metadata names a newer leader epoch, what was
 * fetched past the position is dropped and the partition waits
 * (`awaitingValidation`) until OffsetForLeaderEpoch confirms that the new
 * leader's log still holds the position (consumer-validate.ts).
 *
 * Invariants: position <= fetchOffset when both are known; `buffered`
 * holds consecutive fetches (each starts where the previous one's
 * nextOffset ended, the first at `position`); a paused partition keeps its
 * buffer and is not fetched.
 */
import type { AbortedTransaction, PartitionDecoder } from './consumer-decode.js';
import type { TopicPartition } from './consumer-types.js';

/** One partition's answer to a Fetch, kept raw until the application asks for it. */
export interface CompletedFetch<K, V> {
  /** The offset fetched from (the position when it is handed out). */
  fetchOffset: bigint;
  /** Past the last whole batch of `data`. */
  nextOffset: bigint;
  data: Buffer;
  aborted: readonly AbortedTransaction[] | null;
  highWatermark: bigint;
  /** Created on the application's first pull; decodes maxPollRecords at a time. */
  decoder: PartitionDecoder<K, V> | null;
}

export type ResetSpec = 'earliest' | 'latest';

export class PartitionState<K, V> implements TopicPartition {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  /** Next offset handed to the application; null until known (committed offset or reset). */
  position: bigint | null = null;
  /** Next offset to fetch; null while the position is unknown. */
  fetchOffset: bigint | null = null;
  buffered: CompletedFetch<K, V>[] = [];
  paused = false;
  /** Bumped by seek and reset; a fetch sent under an older epoch is dropped. */
  epoch = 0;
  /** A fetch for this partition is outstanding. */
  inFlight = false;
  /** An offset reset (ListOffsets) is pending. */
  resetTo: ResetSpec | null = null;
  /** The last offset committed by this consumer, to skip unchanged auto-commits. */
  committed: bigint | null = null;
  /** False once revoked or unassigned: anything still arriving for it is dropped. */
  assigned = true;
  /** Being revoked: nothing more is handed out or fetched while the revoke waits for the application. */
  revoking = false;
  highWatermark = -1n;
  /** Leader epoch of the last batch handed out (the position's epoch); -1 when unknown (after a seek). */
  lastEpoch = -1;
  /** The leader (node id and epoch, from the metadata) fetches go to; -1 until the first fetch. */
  leaderId = -1;
  leaderEpoch = -1;
  /** The leader changed: no fetch until the position is validated against the new leader's log. */
  awaitingValidation = false;
  /** A follower the leader told us to fetch from (KIP-392), until this time (epoch ms); -1: the leader. */
  preferredReplica = -1;
  preferredReplicaUntilMs = 0;

  constructor(topic: string, partition: number) {
    this.topic = topic;
    this.partition = partition;
    this.key = partitionKey(topic, partition);
  }

  /** Sets a known position and drops what is buffered or in flight. */
  seekTo(offset: bigint): void {
    this.position = offset;
    this.fetchOffset = offset;
    this.resetTo = null;
    this.buffered = [];
    this.epoch++;
  }

  /** A seek by the application: the position's epoch is unknown, so a later leader change is not validated against it. */
  seekUnvalidated(offset: bigint): void {
    this.seekTo(offset);
    this.lastEpoch = -1;
    this.awaitingValidation = false;
  }

  /**
   * Drops what was fetched past the position (it may come from a log a new
   * leader truncates). The epoch stays: a batch the application holds was
   * handed out and keeps moving the position.
   */
  dropFetched(): void {
    this.buffered = [];
    this.fetchOffset = this.position;
  }

  /** Forgets the position until a ListOffsets reset finds one. */
  requestReset(spec: ResetSpec): void {
    this.lastEpoch = -1;
    this.awaitingValidation = false;
    this.position = null;
    this.fetchOffset = null;
    this.resetTo = spec;
    this.buffered = [];
    this.epoch++;
  }

  /** Whether a fetch for this partition may be sent now. */
  fetchable(prefetchMax: number): boolean {
    return (
      this.assigned &&
      !this.revoking &&
      !this.paused &&
      !this.inFlight &&
      !this.awaitingValidation &&
      this.fetchOffset !== null &&
      this.resetTo === null &&
      this.buffered.length < prefetchMax
    );
  }

  /** Whether the application can be handed records (or a position move) now. */
  ready(): boolean {
    return this.assigned && !this.revoking && !this.paused && this.buffered.length > 0;
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

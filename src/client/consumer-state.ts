/**
 * Per-partition consumer state: the position (next offset handed to the
 * application), the fetch offset (next offset to ask the broker for: the
 * position plus whatever is buffered), the buffered fetches, pause, and an
 * epoch that seek/reset bump so a fetch answered for an older position is
 * dropped.
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

  /** Forgets the position until a ListOffsets reset finds one. */
  requestReset(spec: ResetSpec): void {
    this.position = null;
    this.fetchOffset = null;
    this.resetTo = spec;
    this.buffered = [];
    this.epoch++;
  }

  /** Whether a fetch for this partition may be sent now. */
  fetchable(prefetchMax: number): boolean {
    return this.assigned && !this.revoking && !this.paused && !this.inFlight && this.fetchOffset !== null && this.resetTo === null && this.buffered.length < prefetchMax;
  }

  /** Whether the application can be handed records (or a position move) now. */
  ready(): boolean {
    return this.assigned && !this.revoking && !this.paused && this.buffered.length > 0;
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * Per-partition idempotent producer state (Kafka's ProducerStateManager and
 * ProducerAppendInfo): for each producer id, its current epoch and the
 * sequence ranges and offsets of its last five batches, so a retried batch
 * is recognised and answered with the offset it got the first time.
 *
 * Pure and deterministic: no clock (times are passed in), no I/O. The
 * partition log feeds it every appended batch that carries a producer id and
 * asks it to check client batches before they are appended; snapshots
 * (snapshot.ts) persist it.
 *
 * Check rules (modern Kafka, after KIP-360), for a batch of producer P with
 * epoch E and sequences [first, last]:
 *   - P unknown here (never seen, or expired, or its data deleted): accepted
 *     whatever the sequence (KIP-360: no UNKNOWN_PRODUCER_ID for produce).
 *   - E below P's epoch: INVALID_PRODUCER_EPOCH (Kafka 2.7+ for produce).
 *   - E equal and [first, last] equal to one of the 5 cached batches:
 *     duplicate, answered with that batch's offsets, nothing appended.
 *   - E equal otherwise: first must follow the last cached sequence
 *     (last + 1, or 0 after Int32 max); with no cached batch it must be 0.
 *     Else OUT_OF_ORDER_SEQUENCE_NUMBER.
 *   - E above P's epoch: a new epoch must start at sequence 0, else
 *     OUT_OF_ORDER_SEQUENCE_NUMBER.
 * Applying a batch (after the append, and when rebuilding from the log)
 * never checks: a new epoch replaces the old one and clears the cache.
 */
import { invariant } from '../../util/assert.js';

/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN (and the client's max in-flight). */
export const BATCHES_RETAINED = 5;
/** Sequences wrap to 0 after this. */
export const SEQUENCE_MAX = 0x7fffffff;
export const EPOCH_MAX = 0x7fff;

export interface BatchMetadata {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  /** The batch's maxTimestamp as stored (the append time on LogAppendTime topics). */
  readonly timestampMs: bigint;
}

export interface ProducerEntry {
  readonly producerId: bigint;
  epoch: number;
  /** Oldest first; at most BATCHES_RETAINED. */
  batches: BatchMetadata[];
  /** maxTimestamp of the last batch (Kafka's lastTimestamp). */
  lastTimestampMs: bigint;
  /** Broker time of the last append (expiry); for state rebuilt from the log, the batch timestamp. */
  lastAppendMs: number;
}

/** What the state needs from one batch header. */
export interface ProducerBatchHeader {
  producerId: bigint;
  epoch: number;
  baseSequence: number;
  lastOffsetDelta: number;
}

/** A batch to apply: its header fields plus where it landed. */
export interface AppliedBatch extends ProducerBatchHeader {
  firstOffset: bigint;
  maxTimestampMs: bigint;
  /** Control batches (transaction markers) move the epoch but carry no sequences. */
  control: boolean;
}

export type ProducerCheckError = 'invalid_producer_epoch' | 'out_of_order_sequence' | 'invalid_record';

export type ProducerCheck =
  | { readonly kind: 'append' }
  | { readonly kind: 'duplicate'; readonly batch: BatchMetadata }
  | { readonly kind: 'error'; readonly error: ProducerCheckError; readonly message: string };

const APPEND: ProducerCheck = { kind: 'append' };

/** The last sequence of a batch, wrapping past Int32 max as the clients do. */
export function lastSequence(baseSequence: number, lastOffsetDelta: number): number {
  return baseSequence > SEQUENCE_MAX - lastOffsetDelta ? lastOffsetDelta - (SEQUENCE_MAX - baseSequence) - 1 : baseSequence + lastOffsetDelta;
}

/** Whether `next` directly follows `last`. */
export function inSequence(last: number, next: number): boolean {
  return next === last + 1 || (next === 0 && last === SEQUENCE_MAX);
}

export class ProducerStateManager {
  private readonly producers = new Map<bigint, ProducerEntry>();

  get size(): number {
    return this.producers.size;
  }

  get(producerId: bigint): ProducerEntry | undefined {
    return this.producers.get(producerId);
  }

  entries(): IterableIterator<ProducerEntry> {
    return this.producers.values();
  }

  clear(): void {
    this.producers.clear();
  }

  /** Replaces the state with loaded entries (a snapshot). */
  load(entries: Iterable<ProducerEntry>): void {
    this.producers.clear();
    for (const e of entries) this.producers.set(e.producerId, e);
  }

  /**
   * Checks one client batch against the state (see the module comment).
   * Call for batches in the order they will be appended; O(1).
   */
  check(b: ProducerBatchHeader): ProducerCheck {
    if (b.epoch < 0 || b.baseSequence < 0 || b.lastOffsetDelta < 0) {
      return { kind: 'error', error: 'invalid_record', message: `producer ${b.producerId} sent epoch ${b.epoch}, base sequence ${b.baseSequence}` };
    }
    const e = this.producers.get(b.producerId);
    if (e === undefined) return APPEND;
    if (b.epoch < e.epoch) {
      return { kind: 'error', error: 'invalid_producer_epoch', message: `producer ${b.producerId} epoch ${b.epoch} is older than the current epoch ${e.epoch}` };
    }
    if (b.epoch > e.epoch) {
      if (b.baseSequence === 0) return APPEND;
      return { kind: 'error', error: 'out_of_order_sequence', message: `producer ${b.producerId} started epoch ${b.epoch} at sequence ${b.baseSequence}, not 0` };
    }
    const lastSeq = lastSequence(b.baseSequence, b.lastOffsetDelta);
    for (const cached of e.batches) {
      if (cached.firstSeq === b.baseSequence && cached.lastSeq === lastSeq) return { kind: 'duplicate', batch: cached };
    }
    const last = e.batches[e.batches.length - 1];
    if (last === undefined ? b.baseSequence === 0 : inSequence(last.lastSeq, b.baseSequence)) return APPEND;
    const expected = last === undefined ? 0 : last.lastSeq === SEQUENCE_MAX ? 0 : last.lastSeq + 1;
    return { kind: 'error', error: 'out_of_order_sequence', message: `producer ${b.producerId} epoch ${b.epoch}: expected sequence ${expected}, got ${b.baseSequence}` };
  }

  /** Records an appended batch (no checks: replicas and recovery apply what the log holds). */
  apply(b: AppliedBatch, appendMs: number): void {
    invariant(b.producerId >= 0n, 'only batches with a producer id carry producer state');
    let e = this.producers.get(b.producerId);
    if (e === undefined) {
      e = { producerId: b.producerId, epoch: b.epoch, batches: [], lastTimestampMs: -1n, lastAppendMs: appendMs };
      this.producers.set(b.producerId, e);
    }
    if (b.epoch !== e.epoch) {
      e.epoch = b.epoch;
      e.batches = [];
    }
    if (!b.control && b.baseSequence >= 0) {
      e.batches.push({
        firstSeq: b.baseSequence,
        lastSeq: lastSequence(b.baseSequence, b.lastOffsetDelta),
        firstOffset: b.firstOffset,
        lastOffset: b.firstOffset + BigInt(b.lastOffsetDelta),
        timestampMs: b.maxTimestampMs,
      });
      if (e.batches.length > BATCHES_RETAINED) e.batches.shift();
    }
    e.lastTimestampMs = b.maxTimestampMs;
    e.lastAppendMs = appendMs;
  }

  /** Forgets producers with no append for `expirationMs` (producer.id.expiration.ms); returns how many. */
  removeExpired(nowMs: number, expirationMs: number): number {
    let removed = 0;
    for (const [id, e] of this.producers) {
      if (nowMs - e.lastAppendMs >= expirationMs) {
        this.producers.delete(id);
        removed++;
      }
    }
    return removed;
  }
}

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
 *
 * Transactions (KIP-98, Kafka's ProducerAppendInfo.appendDataBatch and
 * appendEndTxnMarker): a transactional data batch of a producer with no open
 * transaction opens one at its first offset; its commit or abort marker
 * closes it (apply returns the CompletedTxn, so the log can index aborts).
 * The open transactions, ordered by first offset, give the first unstable
 * offset, which bounds the last stable offset (LSO). A marker is checked
 * first (`checkMarker`): an older producer epoch or an older coordinator
 * epoch than the last marker's is refused. Producers with an open
 * transaction never expire (Kafka's isProducerExpired).
 */
import { ControlRecordType } from '../../protocol/record-batch/builder.js';
import type { TxnMarker } from '../../protocol/record-batch/control.js';
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
  /** First offset of the producer's open transaction, -1 when none. */
  currentTxnFirstOffset: bigint;
  /** Coordinator epoch of the last marker written for this producer, -1 before any. */
  coordinatorEpoch: number;
}

/** A transaction closed by a marker (Kafka's CompletedTxn). */
export interface CompletedTxn {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
  /** The marker's offset. */
  readonly lastOffset: bigint;
  readonly aborted: boolean;
}

/** A closed transaction whose marker is not below the high watermark yet (kept in snapshots). */
export interface UnreplicatedTxn {
  readonly firstOffset: bigint;
  readonly markerOffset: bigint;
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
  /** The transactional attribute bit. */
  transactional: boolean;
  /** For a control batch: its commit/abort marker (null for other control types or unreadable ones). */
  marker: TxnMarker | null;
}

export type ProducerCheckError = 'invalid_producer_epoch' | 'out_of_order_sequence' | 'invalid_record' | 'coordinator_fenced';

/** What `checkMarker` answers: null when the marker may be written. */
export type MarkerCheck = { readonly error: ProducerCheckError; readonly message: string } | null;

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
  /**
   * Open transactions: first offset -> producer id. A transaction opens at
   * the log end, above every open one, so insertion order is offset order.
   */
  private readonly ongoing = new Map<bigint, bigint>();
  /**
   * Closed transactions whose marker is not below the high watermark yet
   * (Kafka's unreplicatedTxns): first offset -> marker offset. Their data
   * stays unstable until readers can also see the marker.
   */
  private readonly unreplicated = new Map<bigint, bigint>();

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
    this.ongoing.clear();
    this.unreplicated.clear();
  }

  /** Closed transactions whose marker may not be replicated yet, oldest first (what a snapshot keeps of them). */
  unreplicatedTransactions(): UnreplicatedTxn[] {
    return [...this.unreplicated].map(([firstOffset, markerOffset]) => ({ firstOffset, markerOffset })).sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  }

  /**
   * Replaces the state with a snapshot's. Its unreplicated transactions stay
   * unstable until the partition's high watermark passes their markers:
   * otherwise, after a restart, the cleaner could compact with a transaction
   * that replication's truncation then turns into an abort.
   */
  load(entries: Iterable<ProducerEntry>, unreplicated: Iterable<UnreplicatedTxn> = []): void {
    this.clear();
    for (const t of unreplicated) this.unreplicated.set(t.firstOffset, t.markerOffset);
    const open: ProducerEntry[] = [];
    for (const e of entries) {
      this.producers.set(e.producerId, e);
      if (e.currentTxnFirstOffset >= 0n) open.push(e);
    }
    open.sort((a, b) => (a.currentTxnFirstOffset < b.currentTxnFirstOffset ? -1 : 1));
    for (const e of open) this.ongoing.set(e.currentTxnFirstOffset, e.producerId);
  }

  /**
   * The first offset of the oldest open transaction, or of a closed one
   * whose marker is not replicated yet, or null: the LSO is at most this
   * (Kafka's firstUnstableOffset).
   */
  firstUnstableOffset(): bigint | null {
    let min: bigint | null = null;
    for (const first of this.ongoing.keys()) {
      min = first;
      break;
    }
    for (const first of this.unreplicated.keys()) if (min === null || first < min) min = first;
    return min;
  }

  /**
   * The partition's last stable offset (KIP-98): the high watermark, or the
   * first unstable offset when lower, but never below the log start
   * (retention may have deleted an open transaction's start; Kafka's rule).
   */
  lastStableOffset(highWatermark: bigint, logStartOffset: bigint): bigint {
    const unstable = this.firstUnstableOffset();
    if (unstable === null || unstable >= highWatermark) return highWatermark;
    return unstable < logStartOffset ? logStartOffset : unstable;
  }

  /** The high watermark moved: closed transactions whose marker is below it are stable (Kafka's onHighWatermarkUpdated). */
  onHighWatermarkUpdated(highWatermark: bigint): void {
    if (this.unreplicated.size === 0) return;
    for (const [first, markerOffset] of this.unreplicated) if (markerOffset < highWatermark) this.unreplicated.delete(first);
  }

  /** Open transactions, oldest first (producer id, first offset). */
  openTransactions(): { producerId: bigint; firstOffset: bigint }[] {
    return [...this.ongoing].map(([firstOffset, producerId]) => ({ producerId, firstOffset }));
  }

  /**
   * The LSO once `completed` is closed (Kafka's lastStableOffset(completedTxn)):
   * the oldest other open transaction's first offset, else just past the marker.
   */
  lastStableOffsetAfter(completed: CompletedTxn): bigint {
    for (const [first, producerId] of this.ongoing) if (producerId !== completed.producerId) return first;
    return completed.lastOffset + 1n;
  }

  /**
   * Checks a transaction marker before it is written (Kafka's
   * appendEndTxnMarker checks): an epoch below the producer's is stale, and
   * so is a coordinator epoch below the one of the producer's last marker
   * (a fenced coordinator: TRANSACTION_COORDINATOR_FENCED).
   */
  checkMarker(producerId: bigint, epoch: number, coordinatorEpoch: number): MarkerCheck {
    const e = this.producers.get(producerId);
    if (e === undefined) return null;
    if (epoch < e.epoch) return { error: 'invalid_producer_epoch', message: `marker for producer ${producerId} has epoch ${epoch}, older than ${e.epoch}` };
    if (coordinatorEpoch < e.coordinatorEpoch) {
      return { error: 'coordinator_fenced', message: `marker for producer ${producerId} has coordinator epoch ${coordinatorEpoch}, older than ${e.coordinatorEpoch}` };
    }
    return null;
  }

  /**
   * Forgets what the state holds of the producer from below `offset`: its
   * retained batches there, and the whole entry when nothing of it is left
   * (an open transaction started below is kept: it holds the LSO). A
   * promoted mirror topic does this before a client batch is checked: below
   * the promotion offset the producer was another cluster's, whose id this
   * cluster may hand out again (src/replication/partition.ts). In memory
   * only, as is the state itself between snapshots.
   */
  forgetBelow(producerId: bigint, offset: bigint): void {
    const e = this.producers.get(producerId);
    if (e === undefined || (e.currentTxnFirstOffset >= 0n && e.currentTxnFirstOffset < offset)) return;
    const kept = e.batches.filter((b) => b.firstOffset >= offset);
    if (kept.length === e.batches.length && kept.length > 0) return;
    if (kept.length === 0 && e.currentTxnFirstOffset < 0n) this.producers.delete(producerId);
    else e.batches = kept;
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

  /**
   * Records an appended batch (no checks: replicas and recovery apply what
   * the log holds). Returns the transaction a marker closed, else null.
   */
  apply(b: AppliedBatch, appendMs: number): CompletedTxn | null {
    invariant(b.producerId >= 0n, 'only batches with a producer id carry producer state');
    let e = this.producers.get(b.producerId);
    if (e === undefined) {
      e = { producerId: b.producerId, epoch: b.epoch, batches: [], lastTimestampMs: -1n, lastAppendMs: appendMs, currentTxnFirstOffset: -1n, coordinatorEpoch: -1 };
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
        // A one-record batch (linger 0) ends where it starts: no BigInt made for it.
        lastOffset: b.lastOffsetDelta === 0 ? b.firstOffset : b.firstOffset + BigInt(b.lastOffsetDelta),
        timestampMs: b.maxTimestampMs,
      });
      if (e.batches.length > BATCHES_RETAINED) e.batches.shift();
    }
    e.lastTimestampMs = b.maxTimestampMs;
    e.lastAppendMs = appendMs;
    if (!b.control) {
      if (b.transactional && e.currentTxnFirstOffset < 0n) {
        e.currentTxnFirstOffset = b.firstOffset;
        this.ongoing.set(b.firstOffset, b.producerId);
      }
      return null;
    }
    return b.marker === null ? null : this.closeTransaction(e, b.marker, b.firstOffset);
  }

  /**
   * A marker at `offset` closes the producer's open transaction. A marker
   * with no open transaction (a retried marker, or a partition the
   * transaction wrote nothing to) closes nothing; Kafka indexes an empty
   * aborted range then, which changes nothing for readers, so it is left out.
   */
  private closeTransaction(e: ProducerEntry, marker: TxnMarker, offset: bigint): CompletedTxn | null {
    e.coordinatorEpoch = marker.coordinatorEpoch;
    const first = e.currentTxnFirstOffset;
    if (first < 0n) return null;
    e.currentTxnFirstOffset = -1n;
    this.ongoing.delete(first);
    this.unreplicated.set(first, offset);
    return { producerId: e.producerId, firstOffset: first, lastOffset: offset, aborted: marker.type === ControlRecordType.Abort };
  }

  /** Forgets producers with no append for `expirationMs` (producer.id.expiration.ms); returns how many. */
  removeExpired(nowMs: number, expirationMs: number): number {
    let removed = 0;
    for (const [id, e] of this.producers) {
      // An open transaction keeps its producer (the LSO waits on its marker).
      if (nowMs - e.lastAppendMs >= expirationMs && e.currentTxnFirstOffset < 0n) {
        this.producers.delete(id);
        removed++;
      }
    }
    return removed;
  }
}

/**
 * The transaction state the cleaner keeps while it rewrites a log's segments
 * in offset order, from the log start (Kafka's CleanedTransactionMetadata,
 * KIP-98; marker removal after the delete horizon as in KIP-534). It decides
 *
 *   - which data batches belong to aborted transactions: they go whole
 *     (their records were never visible to read_committed readers);
 *   - which commit/abort markers no longer have any batch of their
 *     transaction before them in the log: such a marker gets a delete
 *     horizon and goes once the horizon has passed (batch-filter.ts);
 *   - which `.txnindex` entries go: an aborted transaction none of whose
 *     batches is left needs no entry, because no reader can meet its data.
 *
 * A marker is kept while any batch of its transaction is met in the pass,
 * even an empty one (the last batch of a segment stays as an empty batch),
 * so the data of a transaction is never left without its marker. The
 * aborted transactions come from the `.txnindex` entries of the cleaned
 * range (a producer has at most one open transaction per partition, so they
 * are tracked per producer id).
 *
 * One difference from Kafka, for crash safety: an abort marker whose index
 * entry is dropped in this pass is not removed in the same pass even when
 * its horizon has passed (`indexEntryDropped`). The `.txnindex` is replaced
 * after the `.log` in a swap (segment-swap.ts), so a crash between the two
 * leaves an entry whose data is gone; with its marker still in the log a
 * read_committed consumer stops treating the producer as aborted at the
 * marker, and the next pass drops the entry again. In the normal course
 * (Kafka's too) the entry goes in the pass that sets the horizon, well
 * before the marker goes.
 */
import { ControlRecordType } from '../../protocol/record-batch/builder.js';
import { readTxnMarker } from '../../protocol/record-batch/control.js';
import { Offsets, isTransactionalBatch } from '../../protocol/record-batch/header.js';
import type { AbortedTxn } from '../txn-index.js';

/** What the cleaner may do with a control batch. */
export interface MarkerVerdict {
  /** No batch of the marker's transaction is left before it: it may go after its delete horizon. */
  readonly noDataLeft: boolean;
  /** An abort marker whose `.txnindex` entry goes in this pass: the marker itself stays until the next one. */
  readonly indexEntryDropped: boolean;
}

const KEEP: MarkerVerdict = { noDataLeft: false, indexEntryDropped: false };
const NO_DATA: MarkerVerdict = { noDataLeft: true, indexEntryDropped: false };

interface OngoingAbort {
  readonly txn: AbortedTxn;
  dataSeen: boolean;
}

export class CleanedTransactions {
  /** Aborted transactions not reached yet, by first offset. */
  private readonly pending: AbortedTxn[];
  private nextPending = 0;
  private readonly ongoingAborted = new Map<bigint, OngoingAbort>();
  private readonly ongoingCommitted = new Set<bigint>();
  /** Marker offsets (AbortedTxn.lastOffset) of aborted transactions whose `.txnindex` entries go. */
  private readonly droppedEntries = new Set<bigint>();

  constructor(aborted: readonly AbortedTxn[]) {
    this.pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  }

  /**
   * A data batch (at `pos` in `buf`) met in offset order; true when it
   * belongs to an aborted transaction (the cleaner discards it).
   */
  onDataBatch(buf: Buffer, pos = 0): boolean {
    this.reachOffset(lastOffsetAt(buf, pos));
    if (!isTransactionalBatch(buf.readInt16BE(pos + Offsets.attributes))) return false;
    const producerId = buf.readBigInt64BE(pos + Offsets.producerId);
    const aborted = this.ongoingAborted.get(producerId);
    if (aborted !== undefined) {
      aborted.dataSeen = true;
      return true;
    }
    this.ongoingCommitted.add(producerId);
    return false;
  }

  /** A control batch (at `pos` in `buf`, whole) met in offset order. */
  onControlBatch(buf: Buffer, pos = 0): MarkerVerdict {
    this.reachOffset(lastOffsetAt(buf, pos));
    // An empty control batch is what an earlier cleaning left of a marker: nothing depends on it.
    if (buf.readInt32BE(pos + Offsets.recordsCount) === 0) return NO_DATA;
    const marker = readTxnMarker(buf, pos);
    // Unreadable markers and other control types are kept as they are.
    if (marker === null || typeof marker === 'string') return KEEP;
    const producerId = buf.readBigInt64BE(pos + Offsets.producerId);
    if (marker.type === ControlRecordType.Commit) return this.ongoingCommitted.delete(producerId) ? KEEP : NO_DATA;
    const aborted = this.ongoingAborted.get(producerId);
    this.ongoingAborted.delete(producerId);
    // No indexed abort: if batches of the producer were met they are this marker's (kept, conservatively).
    if (aborted === undefined) return this.ongoingCommitted.delete(producerId) ? KEEP : NO_DATA;
    if (aborted.dataSeen) return KEEP;
    this.droppedEntries.add(aborted.txn.lastOffset);
    return { noDataLeft: true, indexEntryDropped: true };
  }

  /** The `.txnindex` entries a cleaned segment keeps out of `entries` (its original ones). */
  retainedEntries(entries: readonly AbortedTxn[]): AbortedTxn[] {
    return this.droppedEntries.size === 0 ? [...entries] : entries.filter((e) => !this.droppedEntries.has(e.lastOffset));
  }

  /** Aborted transactions that have begun by `offset` become ongoing. */
  private reachOffset(offset: bigint): void {
    while (this.nextPending < this.pending.length) {
      const txn = this.pending[this.nextPending] as AbortedTxn;
      if (txn.firstOffset > offset) return;
      this.nextPending++;
      if (!this.ongoingAborted.has(txn.producerId)) this.ongoingAborted.set(txn.producerId, { txn, dataSeen: false });
    }
  }
}

function lastOffsetAt(buf: Buffer, pos: number): bigint {
  return buf.readBigInt64BE(pos + Offsets.baseOffset) + BigInt(buf.readInt32BE(pos + Offsets.lastOffsetDelta));
}

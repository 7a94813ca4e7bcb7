/**
 * Which batches of a compacted log belong to aborted transactions (Kafka's
 * CleanedTransactionMetadata, fed from the `.txnindex` files instead of a
 * second scan): the cleaner neither lets their records shadow older ones in
 * the offset map nor keeps them in the cleaned segment. A transactional data
 * batch is aborted when an aborted transaction of its producer spans its base
 * offset (a producer has one transaction at a time on a partition). Markers
 * are kept (see README.md).
 */
import { Offsets, isControlBatch, isTransactionalBatch } from '../../protocol/record-batch/header.js';
import type { AbortedTxn } from '../txn-index.js';

export class AbortedRanges {
  private readonly byProducer = new Map<bigint, AbortedTxn[]>();

  constructor(txns: readonly AbortedTxn[]) {
    for (const t of txns) {
      const list = this.byProducer.get(t.producerId);
      if (list === undefined) this.byProducer.set(t.producerId, [t]);
      else list.push(t);
    }
  }

  get size(): number {
    return this.byProducer.size;
  }

  /** Whether the batch at `pos` is transactional data of an aborted transaction. */
  covers(batch: Buffer, pos: number): boolean {
    if (this.byProducer.size === 0) return false;
    const attributes = batch.readInt16BE(pos + Offsets.attributes);
    if (!isTransactionalBatch(attributes) || isControlBatch(attributes)) return false;
    const list = this.byProducer.get(batch.readBigInt64BE(pos + Offsets.producerId));
    if (list === undefined) return false;
    const base = batch.readBigInt64BE(pos + Offsets.baseOffset);
    return list.some((t) => t.firstOffset <= base && base <= t.lastOffset);
  }
}

export const NO_ABORTED_RANGES = new AbortedRanges([]);

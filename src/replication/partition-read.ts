/**
 * Reading one partition for a Fetch (ReplicaManager.fetchRecords): from the
 * fetch offset up to what the reader may see. Separate from
 * replica-manager.ts because it only reads a Partition.
 *
 * The visible end is the high watermark (read_uncommitted), the last stable
 * offset (read_committed, KIP-98) or, for a follower, the log end. A
 * read_committed read that returns records also lists the aborted
 * transactions overlapping the offsets it returns, [fetchOffset, the read's
 * endOffsetBound): the first indexed batch after the bytes returned, from the
 * offset index, without touching the data (Kafka's
 * LocalLog.addAbortedTransactions and fetchUpperBoundOffset), from the
 * segments' `.txnindex`: the consumer drops their records;
 * the batches stay opaque here. Bounding it by the LSO instead would hand a
 * consumer far behind every aborted transaction up to the LSO in every
 * fetch (and search every later segment's index for them).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { ReadAllocator } from '../storage/fs.js';
import type { ReadResult } from './data-path-types.js';
import type { Partition } from './partition.js';

/** Where a read stops: consumers at the high watermark or the LSO, followers at the log end. */
export type ReadUpTo = 'highWatermark' | 'lastStable' | 'logEnd';

export function partitionBounds(p: Partition): { highWatermark: bigint; lastStableOffset: bigint; logStartOffset: bigint } {
  return { highWatermark: p.highWatermark, lastStableOffset: p.lastStableOffset, logStartOffset: p.logStartOffset };
}

/**
 * Reads from `fetchOffset` up to the visible end. Out-of-range offsets
 * answer OFFSET_OUT_OF_RANGE with the current bounds, as clients reset from
 * them.
 */
export function readPartition(p: Partition, fetchOffset: bigint, maxBytes: number, upTo: ReadUpTo, minOneBatch: boolean, allocate?: ReadAllocator): ReadResult {
  const visibleEnd = upTo === 'logEnd' ? p.logEndOffset : upTo === 'lastStable' ? p.lastStableOffset : p.highWatermark;
  if (fetchOffset < p.logStartOffset || fetchOffset > p.logEndOffset) return answer(p, ErrorCode.OFFSET_OUT_OF_RANGE, [], 0);
  if (fetchOffset >= visibleEnd || maxBytes <= 0) return answer(p, ErrorCode.NONE, [], 0);
  const r = p.log.read(fetchOffset, maxBytes, { maxOffsetExclusive: visibleEnd, minOneBatch, allocate });
  if (r.kind === 'offset_out_of_range') return answer(p, ErrorCode.OFFSET_OUT_OF_RANGE, [], 0);
  if (upTo !== 'lastStable' || r.sizeBytes === 0) return answer(p, ErrorCode.NONE, r.chunks, r.sizeBytes);
  const abortedUpTo = r.endOffsetBound < visibleEnd ? r.endOffsetBound : visibleEnd;
  const abortedTransactions = p.log.collectAbortedTransactions(fetchOffset, abortedUpTo);
  return { ...answer(p, ErrorCode.NONE, r.chunks, r.sizeBytes), abortedTransactions };
}

/** A read's result with the partition's current bounds (one object of fixed fields: this runs for every Fetch). */
function answer(p: Partition, errorCode: number, chunks: Buffer[], bytes: number): ReadResult {
  return { errorCode, highWatermark: p.highWatermark, lastStableOffset: p.lastStableOffset, logStartOffset: p.logStartOffset, chunks, bytes };
}

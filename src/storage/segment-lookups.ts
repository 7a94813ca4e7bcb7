/**
 * Read-only queries over a partition's segment list (sorted by base offset,
 * contiguous, the last one active): which segment holds an offset, the
 * batch-granular timestamp lookups, the batch-header scans that rebuild
 * the producer state and the leader epochs, and which segments retention
 * deletes. Separate from partition-log.ts because none of them changes the
 * log: they only need the segments and the log start offset (and the
 * config, for retention), which PartitionLog passes in.
 */
import { compactionConfigOf, type LogConfig } from './config.js';
import type { EpochEntry } from './leader-epoch-checkpoint.js';
import type { LogSegment } from './segment.js';
import type { AbortedTxn } from './txn-index.js';

export interface TimestampOffset {
  offset: bigint;
  timestampMs: bigint;
}

export interface SegmentInfo {
  baseOffset: bigint;
  nextOffset: bigint;
  sizeBytes: number;
  maxTimestampMs: bigint;
  /** When the segment was last appended to (or created / opened, before its first append). */
  lastModifiedMs: number;
}

/** Index of the last segment whose base offset is <= offset (0 when none). */
export function floorSegment(segments: readonly LogSegment[], offset: bigint): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((segments[mid] as LogSegment).baseOffset <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** PartitionLog.scanBatchHeaders: the header of every batch whose last offset is >= fromOffset, in order. */
export function scanBatchHeaders(segments: readonly LogSegment[], fromOffset: bigint, visit: (header: Buffer, at: number) => void): void {
  for (let i = floorSegment(segments, fromOffset); i < segments.length; i++) {
    (segments[i] as LogSegment).forEachBatchHeader((info, _epoch, header, at) => {
      if (info.lastOffset >= fromOffset) visit(header, at);
    });
  }
}

/** PartitionLog.offsetForTimestamp: the first batch from the log start on whose maxTimestamp >= timestampMs. */
export function offsetForTimestamp(segments: readonly LogSegment[], startOffset: bigint, timestampMs: bigint): TimestampOffset | null {
  for (let i = floorSegment(segments, startOffset); i < segments.length; i++) {
    const seg = segments[i] as LogSegment;
    if (seg.maxTimestampMs < timestampMs) continue;
    const found = seg.findByTimestamp(timestampMs, startOffset);
    if (found === null) continue;
    const offset = found.baseOffset > startOffset ? found.baseOffset : startOffset;
    return { offset, timestampMs: found.maxTimestampMs };
  }
  return null;
}

/** PartitionLog.maxTimestamp: the largest segment maxTimestamp and the offset holding it. */
export function maxTimestamp(segments: readonly LogSegment[], startOffset: bigint): TimestampOffset | null {
  let best: TimestampOffset | null = null;
  for (let i = floorSegment(segments, startOffset); i < segments.length; i++) {
    const seg = segments[i] as LogSegment;
    if (seg.maxTimestampMs >= 0n && (best === null || seg.maxTimestampMs > best.timestampMs)) {
      best = { offset: seg.offsetOfMaxTimestamp, timestampMs: seg.maxTimestampMs };
    }
  }
  return best;
}

/**
 * PartitionLog.applyRetention: how many segments, from the oldest, retention
 * deletes (never the active one; at most maxSegments). It goes on while any
 * of these holds: the segment is wholly below the log start offset; its
 * largest timestamp is older than retentionMs; the log stays >=
 * retentionBytes without it. The last two only apply when `delete` is in
 * the cleanup policy.
 */
export function segmentsPastRetention(segments: readonly LogSegment[], startOffset: bigint, cfg: Readonly<LogConfig>, nowMs: number, maxSegments: number): number {
  let total = 0;
  for (const seg of segments) total += seg.sizeBytes;
  const { retentionMs, retentionBytes } = cfg;
  const deletePolicy = compactionConfigOf(cfg).cleanupPolicy.delete;
  let count = 0;
  while (segments.length - count > 1 && count < maxSegments) {
    const seg = segments[count] as LogSegment;
    const next = segments[count + 1] as LogSegment;
    const largestMs = seg.maxTimestampMs >= 0n ? Number(seg.maxTimestampMs) : seg.lastModifiedMs;
    const belowStart = next.baseOffset <= startOffset;
    const expired = deletePolicy && retentionMs >= 0 && nowMs - largestMs > retentionMs;
    const tooBig = deletePolicy && retentionBytes >= 0 && total - seg.sizeBytes >= retentionBytes;
    if (!belowStart && !expired && !tooBig) break;
    total -= seg.sizeBytes;
    count++;
  }
  return count;
}

/** PartitionLog.scanLeaderEpochs: (epoch, first offset) each time partitionLeaderEpoch changes. */
export function scanLeaderEpochs(segments: readonly LogSegment[], startOffset: bigint): EpochEntry[] {
  const found: EpochEntry[] = [];
  let latest = -1;
  for (let i = floorSegment(segments, startOffset); i < segments.length; i++) {
    (segments[i] as LogSegment).forEachBatchHeader((info, epoch) => {
      if (epoch < 0 || epoch === latest || info.lastOffset < startOffset) return;
      latest = epoch;
      found.push({ epoch, startOffset: info.baseOffset > startOffset ? info.baseOffset : startOffset });
    });
  }
  return found;
}

/**
 * PartitionLog.collectAbortedTransactions (Kafka's
 * UnifiedLog.collectAbortedTransactions): the aborted transactions
 * overlapping [fetchOffset, upperBoundOffset), from the `.txnindex` of the
 * segment holding fetchOffset on (an abort is indexed where its marker is,
 * so no earlier segment holds one ending at or after fetchOffset). A marker
 * may lie past the bound (another transaction held the LSO back), so later
 * segments are searched until an entry's LSO reaches the bound.
 */
export function collectAbortedTxns(segments: readonly LogSegment[], fetchOffset: bigint, upperBoundOffset: bigint): AbortedTxn[] {
  const out: AbortedTxn[] = [];
  for (let i = floorSegment(segments, fetchOffset); i < segments.length; i++) {
    if ((segments[i] as LogSegment).txnIndex.collect(fetchOffset, upperBoundOffset, out)) break;
  }
  return out;
}

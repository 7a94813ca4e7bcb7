/**
 * Whether a compacted log is due for cleaning, and which part of it a job
 * would map: the dirty section [firstDirty, limit) and its rank among the
 * logs due (Kafka's LogCleanerManager.grabFilthiestCompactedLog, per log).
 * Separate from log-cleaner.ts because it only measures a log's segments;
 * the cleaner compares the ranks and starts the job.
 */
import type { CompactionConfig } from '../config.js';
import type { PartitionLog } from '../partition-log.js';
import type { LogSegment } from '../segment.js';
import type { LogState } from './cleaning-job.js';

export interface DueSection {
  firstDirty: bigint;
  limit: bigint;
  /** The dirty ratio, plus 1 when overdue (max.compaction.lag.ms passed). */
  rank: number;
}

/** Largest timestamp of a segment, or its last modification time when it has none. */
function segmentTimeMs(seg: LogSegment): number {
  return seg.maxTimestampMs >= 0n ? Number(seg.maxTimestampMs) : seg.lastModifiedMs;
}

/**
 * The dirty section of `log` when it is due for cleaning, else null. First
 * brings `state.firstDirty` up to date with truncations and the log start.
 */
export function dueDirtySection(
  log: PartitionLog,
  state: LogState,
  cc: CompactionConfig,
  nowMs: number,
  cleanableBound: ((log: PartitionLog) => bigint) | undefined,
): DueSection | null {
  if (state.truncationsSeen !== log.truncationCount || state.firstDirty > log.logEndOffset) {
    // Records below the checkpoint may have been replaced: consider it all dirty.
    state.firstDirty = log.logStartOffset;
    state.truncationsSeen = log.truncationCount;
  }
  if (state.firstDirty < log.logStartOffset) state.firstDirty = log.logStartOffset;
  const segs = log.segmentList();
  const active = segs[segs.length - 1] as LogSegment;
  const firstDirty = state.firstDirty;
  // Only durable data is cleaned (a crash could otherwise lose the newer
  // record that made an older, durable one go), and nothing above the
  // caller's bound (the high watermark: a follower may still truncate it).
  let limit = active.baseOffset < log.recoveryPoint ? active.baseOffset : log.recoveryPoint;
  const bound = cleanableBound?.(log);
  if (bound !== undefined && bound < limit) limit = bound;
  let cleanBytes = 0;
  let dirtyBytes = 0;
  let firstDirtySeg: LogSegment | null = null;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i] as LogSegment;
    if (seg.nextOffset <= log.logStartOffset) continue;
    if (seg.nextOffset <= firstDirty) {
      cleanBytes += seg.sizeBytes;
      continue;
    }
    if (seg.baseOffset >= limit) break;
    if (segmentTimeMs(seg) > nowMs - cc.minCompactionLagMs) {
      limit = seg.baseOffset;
      break;
    }
    firstDirtySeg ??= seg;
    dirtyBytes += seg.sizeBytes;
  }
  if (limit < firstDirty) limit = firstDirty;
  const ratio = dirtyBytes === 0 ? 0 : dirtyBytes / (cleanBytes + dirtyBytes);
  const firstMs = firstDirtySeg === null ? null
    : firstDirtySeg.firstBatchTimestampMs !== null && firstDirtySeg.firstBatchTimestampMs >= 0n
      ? Number(firstDirtySeg.firstBatchTimestampMs) : firstDirtySeg.lastModifiedMs;
  const overdue = firstMs !== null && nowMs - firstMs > cc.maxCompactionLagMs;
  const horizonDue = state.horizonMs !== null && state.horizonMs <= nowMs;
  const due = (dirtyBytes > 0 && (ratio >= cc.minCleanableDirtyRatio || overdue)) || horizonDue;
  if (!due) return null;
  // Overdue logs first (Kafka cleans them regardless of ratio), then by ratio.
  return { firstDirty, limit, rank: ratio + (overdue ? 1 : 0) };
}

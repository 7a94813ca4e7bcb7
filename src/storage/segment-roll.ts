/**
 * The time part of Kafka's segment roll rule (LogSegment.shouldRoll), checked
 * before every append: a separate module so that rule reads on its own, and
 * computed in numbers where that is exact, so the produce path makes no
 * BigInt per append for it (bench/README.md, "Per-request cost").
 */
import { MAX_SAFE_BIGINT } from '../protocol/primitives/int64.js';
import type { LogConfig } from './config.js';

/**
 * Whether the active segment is older than segment.ms allows: by the
 * batches' timestamps (the new batches' largest against the segment's first),
 * or by clock time since the segment was created (`ageMs`) when either has
 * none. Kafka's maxSegmentMs: a compacted log rolls by max.compaction.lag.ms
 * too, or records in the active segment could never be compacted in time.
 */
export function segmentAgeExceeded(firstTimestampMs: bigint | null, maxTimestampMs: bigint, ageMs: number, cfg: LogConfig): boolean {
  const maxLagMs = cfg.cleanupPolicy?.compact === true ? cfg.maxCompactionLagMs ?? cfg.segmentMs : cfg.segmentMs;
  const limitMs = Math.min(cfg.segmentMs, maxLagMs);
  if (firstTimestampMs === null || firstTimestampMs < 0n || maxTimestampMs < 0n) return ageMs > limitMs;
  if (firstTimestampMs <= MAX_SAFE_BIGINT && maxTimestampMs <= MAX_SAFE_BIGINT) {
    // Both in [0, 2^53]: the difference is an exact double, and so is its comparison with the limit.
    return Number(maxTimestampMs) - Number(firstTimestampMs) > limitMs;
  }
  return maxTimestampMs - firstTimestampMs > BigInt(limitMs);
}

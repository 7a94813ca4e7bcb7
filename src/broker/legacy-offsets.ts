/**
 * ListOffsets v0 (the pre-KIP-79 form sarama-era tools still send): up to
 * `maxNumOffsets` offsets "before" a timestamp, in descending order, chosen
 * at segment granularity, as Kafka's UnifiedLog.legacyFetchOffsetsBefore
 * does. The candidates are each segment's base offset (raised to the log
 * start offset) stamped with the segment's last-modified time, plus the log
 * end offset stamped "now" when the active segment is not empty.
 * -1 (latest) starts from the last candidate, -2 (earliest) from the first,
 * any other timestamp from the last candidate modified at or before it; the
 * answer walks back from there. For a consumer (replicaId -1), offsets above
 * the high watermark are replaced by the high watermark
 * (Partition.legacyFetchOffsetsForTimestamp).
 */
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../protocol/messages/02-list-offsets.js';
import type { SegmentInfo } from '../storage/segment-lookups.js';

export interface LegacyOffsetsInput {
  readonly segments: readonly Pick<SegmentInfo, 'baseOffset' | 'sizeBytes' | 'lastModifiedMs'>[];
  readonly logStartOffset: bigint;
  readonly logEndOffset: bigint;
  readonly highWatermark: bigint;
  readonly nowMs: number;
}

export function legacyOffsetsBefore(log: LegacyOffsetsInput, timestamp: bigint, maxNumOffsets: number, fromConsumer: boolean): bigint[] {
  const candidates: { offset: bigint; timeMs: bigint }[] = log.segments.map((s) => ({
    offset: s.baseOffset > log.logStartOffset ? s.baseOffset : log.logStartOffset,
    timeMs: BigInt(s.lastModifiedMs),
  }));
  const last = log.segments.at(-1);
  if (last !== undefined && last.sizeBytes > 0) candidates.push({ offset: log.logEndOffset, timeMs: BigInt(log.nowMs) });
  let start: number;
  if (timestamp === LATEST_TIMESTAMP) start = candidates.length - 1;
  else if (timestamp === EARLIEST_TIMESTAMP) start = 0;
  else {
    start = candidates.length - 1;
    while (start >= 0 && (candidates[start] as { timeMs: bigint }).timeMs > timestamp) start--;
  }
  const count = Math.max(0, Math.min(maxNumOffsets, start + 1));
  const offsets: bigint[] = [];
  for (let j = 0; j < count; j++) offsets.push((candidates[start - j] as { offset: bigint }).offset);
  offsets.sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  if (!fromConsumer || !offsets.some((o) => o > log.highWatermark)) return offsets;
  return [log.highWatermark, ...offsets.filter((o) => o <= log.highWatermark)];
}

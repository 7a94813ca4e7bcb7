/**
 * The leader-epoch checks of reads (KIP-320): the epoch a request believes
 * current, and where a fetcher's log diverged from this one.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { DivergingEpoch, FetchPartition } from './data-path-types.js';
import type { Partition } from './partition.js';

/**
 * KIP-320 (Kafka's Partition.fetchRecords with a lastFetchedEpoch): when the
 * fetcher's last epoch ends here before its fetch offset, or this log has no
 * such epoch (the largest one it knows below is older), its log diverged:
 * answer where that epoch ends here, and no records, so it truncates first.
 */
export function divergingEpoch(p: Partition, fp: FetchPartition): DivergingEpoch | null {
  const last = fp.lastFetchedEpoch ?? -1;
  if (last < 0) return null;
  const end = p.endOffsetForEpoch(last);
  // No epoch at or below the fetcher's (this log is empty of epochs): it keeps at most what this log has.
  if (end.epoch < 0) return p.logEndOffset < fp.fetchOffset ? { epoch: -1, endOffset: p.logEndOffset } : null;
  if (end.epoch < last || end.endOffset < fp.fetchOffset) return { epoch: end.epoch, endOffset: end.endOffset };
  return null;
}

/**
 * KIP-320: a request names the leader epoch it believes current (Fetch,
 * ListOffsets, OffsetForLeaderEpoch); -1 skips the check, an older one is
 * FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH.
 */
export function leaderEpochError(p: Partition, requested: number): number {
  if (requested < 0 || requested === p.leaderEpoch) return ErrorCode.NONE;
  return requested < p.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}

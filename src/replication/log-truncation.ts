/**
 * A replica's log cut or restarted at another offset, instead of appended
 * to: a follower truncating where its log diverged from the leader's
 * (KIP-101/279), restarting at the leader's log start or following it up,
 * and a leader restarting its empty log for an exact-mode mirror. Each opens
 * the epoch cache before the log moves and then lets the partition settle
 * its high watermark, epoch cache and visible bytes (`Partition.onLogTruncated`).
 * Called by the replica fetcher (replica-fetcher.ts) and mirror appends (mirror-append.ts).
 */
import { invariant } from '../util/assert.js';
import type { Partition } from './partition.js';

/**
 * As follower: removes everything from `offset` on (the leader's log
 * diverged from ours, KIP-101/KIP-279). The epoch cache forgets the
 * entries past the new end. Truncating below the high watermark only
 * happens after an unclean election; the high watermark then follows.
 * Returns how many offsets went.
 */
export function truncateFollowerTo(p: Partition, offset: bigint): bigint {
  invariant(!p.isLeader, 'only a follower truncates its log to the leader\'s');
  const before = p.log.logEndOffset;
  const epochs = p.leaderEpochs; // opened before the log moves
  p.log.truncateTo(offset);
  p.onLogTruncated(epochs);
  return before - p.log.logEndOffset;
}

/** As follower: the leader's log starts past our end (retention moved it): start over, empty, at `offset`. */
export function restartFollowerAt(p: Partition, offset: bigint): void {
  invariant(!p.isLeader, 'only a follower restarts its log at the leader\'s start');
  const epochs = p.leaderEpochs; // opened before the log moves
  p.log.truncateFullyAndStartAt(offset);
  p.onLogTruncated(epochs);
  p.onLogStartOffsetChanged();
}

/**
 * As follower: the leader's log start offset moved (retention, DeleteRecords
 * on the leader); ours follows, within what we have.
 */
export function followLeaderLogStart(p: Partition, leaderLogStartOffset: bigint): void {
  if (p.isLeader || leaderLogStartOffset <= p.log.logStartOffset || leaderLogStartOffset > p.highWatermark) return;
  const r = p.log.deleteRecordsBefore(leaderLogStartOffset);
  if (r.kind === 'ok') p.onLogStartOffsetChanged();
}

/**
 * As leader of a partition that holds no records (log start = log end):
 * the log restarts empty at `offset`, as a follower's does at its leader's
 * start. Only an exact-mode mirror append does this (mirror-append.ts), so
 * a copy of a source whose log no longer starts at 0 keeps its offsets;
 * followers then find their log below this one's start and restart there.
 */
export function restartEmptyLeaderAt(p: Partition, offset: bigint): void {
  invariant(p.isLeader, 'only the leader restarts its empty log for a mirror');
  invariant(p.log.logStartOffset === p.log.logEndOffset && offset > p.log.logEndOffset, 'an empty log restarts further on');
  const epochs = p.leaderEpochs; // opened before the log moves
  p.log.truncateFullyAndStartAt(offset);
  p.onLogTruncated(epochs);
  p.onLogStartOffsetChanged();
}

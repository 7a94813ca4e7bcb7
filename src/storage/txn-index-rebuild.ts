/**
 * Rebuilding `.txnindex` files from the log at open (Kafka rebuilds them
 * while recovering segments): for every segment whose index was unreadable
 * or whose batches were recovered (LogSegment.txnIndexNeedsRebuild), the
 * aborted transactions are found again by replaying the transaction state
 * (batch headers, and the markers of control batches) from the newest
 * producer snapshot at or below the first such segment (it holds the open
 * transactions there), or from the log start when there is none.
 *
 * Only the flagged segments' indexes are rewritten; the others are trusted.
 * Reads headers only: the cost is one header scan of the replayed range.
 */
import type { FileSystem } from './fs.js';
import type { LogSegment } from './segment.js';
import { floorSegment } from './segment-lookups.js';
import { producerBatchAt } from './producer-state/log-producer-state.js';
import { ProducerStateManager } from './producer-state/producer-state.js';
import { listSnapshots, readSnapshot } from './producer-state/snapshot.js';

export interface TxnIndexRebuild {
  /** Base offsets of the segments whose `.txnindex` was rebuilt. */
  rebuilt: bigint[];
  /** Why each was rebuilt (`<base>: reason`). */
  reasons: string[];
  /** Where the replay started. */
  replayedFrom: bigint | null;
}

export function rebuildTxnIndexes(fs: FileSystem, dir: string, segments: readonly LogSegment[], logStartOffset: bigint): TxnIndexRebuild {
  const needing = segments.filter((s) => s.txnIndexNeedsRebuild !== null);
  const report: TxnIndexRebuild = { rebuilt: [], reasons: [], replayedFrom: null };
  const first = needing[0];
  if (first === undefined) return report;
  const state = new ProducerStateManager();
  const from = loadStartState(fs, dir, first.baseOffset, state) ?? logStartOffset;
  report.replayedFrom = from;
  for (const seg of needing) {
    seg.txnIndex.reset();
    report.rebuilt.push(seg.baseOffset);
    report.reasons.push(`${seg.baseOffset}: ${seg.txnIndexNeedsRebuild}`);
  }
  for (let i = floorSegment(segments, from); i < segments.length; i++) {
    const seg = segments[i] as LogSegment;
    const rebuilding = seg.txnIndexNeedsRebuild !== null;
    seg.forEachBatchHeader((info, _epoch, header, at) => {
      if (info.baseOffset < from) return;
      const b = producerBatchAt(header, at);
      if (b === null) return;
      const completed = state.apply(b, 0);
      if (!rebuilding || completed === null || !completed.aborted) return;
      const { producerId, firstOffset, lastOffset } = completed;
      seg.txnIndex.append({ producerId, firstOffset, lastOffset, lastStableOffset: state.lastStableOffsetAfter(completed) });
    });
  }
  for (const seg of needing) {
    seg.txnIndex.sync();
    seg.txnIndexNeedsRebuild = null;
  }
  return report;
}

/** Loads the newest readable snapshot at or below `offset` into `state`; returns its offset, or null. */
function loadStartState(fs: FileSystem, dir: string, offset: bigint, state: ProducerStateManager): bigint | null {
  const offsets = listSnapshots(fs, dir).filter((s) => s <= offset);
  for (let i = offsets.length - 1; i >= 0; i--) {
    const at = offsets[i] as bigint;
    const snapshot = readSnapshot(fs, dir, at);
    if (typeof snapshot === 'string') continue;
    state.load(snapshot.entries, snapshot.unreplicated);
    return at;
  }
  return null;
}

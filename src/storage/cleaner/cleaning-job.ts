/**
 * The state of one cleaning job and what the cleaner keeps per log: the
 * records, creating a job for a chosen dirty section, and checking that the
 * log is still what the job planned on. Separate from log-cleaner.ts, which
 * drives the job's phases step by step; these are the data they share.
 */
import { AbortedRanges } from './aborted-ranges.js';
import { CleanedTransactions } from './cleaned-transactions.js';
import type { PartitionLog } from '../partition-log.js';
import type { LogSegment } from '../segment.js';
import { OffsetMap } from './offset-map.js';

export interface LogState {
  firstDirty: bigint;
  truncationsSeen: number;
  /** Latest delete horizon of tombstones kept by the last job (KIP-534), or null. */
  horizonMs: number | null;
  uncleanable: string | null;
}

export interface Job {
  log: PartitionLog;
  state: LogState;
  truncations: number;
  firstDirty: bigint;
  limit: bigint;
  endOffset: bigint;
  phase: 'map' | 'clean';
  map: OffsetMap;
  /** Map phase: segment and position being read. */
  mapSegment: LogSegment | null;
  mapPosition: number;
  /** Clean phase: segments to rewrite, the current one and the copy being written. */
  toClean: LogSegment[];
  cleanIndex: number;
  srcPosition: number;
  out: LogSegment | null;
  changed: boolean;
  horizonMs: number | null;
  aborted: boolean;
  /** Map phase: transactional data of aborted transactions below the limit is not mapped. */
  abortedTxns: AbortedRanges;
  /** Clean phase: the transaction state over the segments rewritten, in offset order (markers, aborted data, `.txnindex`). */
  txns: CleanedTransactions;
}

/** `<topic>-<partition>`: how the cleaner names a log in results and its checkpoint. */
export function nameOf(log: PartitionLog): string {
  return `${log.topic}-${log.partition}`;
}

/** A job in the map phase over [firstDirty, limit), reading from the first dirty segment. */
export function newJob(log: PartitionLog, state: LogState, firstDirty: bigint, limit: bigint, offsetMapEntriesMax: number): Job {
  const segs = log.segmentList();
  let mapSegment: LogSegment | null = null;
  for (let i = 0; i < segs.length - 1 && firstDirty < limit; i++) {
    const seg = segs[i] as LogSegment;
    if (seg.nextOffset > firstDirty && seg.sizeBytes > 0) {
      mapSegment = seg.baseOffset < limit ? seg : null;
      break;
    }
  }
  const aborted = log.collectAbortedTransactions(log.logStartOffset, limit);
  const mapPosition = mapSegment !== null && firstDirty > mapSegment.baseOffset ? mapSegment.translateOffset(firstDirty).position : 0;
  return {
    log,
    state,
    truncations: log.truncationCount,
    firstDirty,
    limit,
    endOffset: firstDirty,
    phase: 'map',
    map: new OffsetMap(offsetMapEntriesMax),
    mapSegment,
    mapPosition,
    toClean: [],
    cleanIndex: 0,
    srcPosition: 0,
    out: null,
    changed: false,
    horizonMs: null,
    aborted: false,
    abortedTxns: new AbortedRanges(aborted),
    txns: new CleanedTransactions(aborted),
  };
}

/** Non-null when the log changed so that the job's work is no longer valid. */
export function staleReason(job: Job): string | null {
  if (job.aborted) return 'aborted';
  if (job.log.isClosed) return 'log closed';
  if (job.log.truncationCount !== job.truncations) return 'log truncated';
  const segs = job.log.segmentList();
  const current = job.phase === 'map' ? job.mapSegment : job.toClean[job.cleanIndex];
  if (current !== null && current !== undefined) {
    const i = segs.indexOf(current);
    if (i < 0 || i === segs.length - 1) return 'segment removed';
  }
  return null;
}

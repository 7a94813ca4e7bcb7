/**
 * Putting a cleaned segment in place of the original, crash-safely, with the
 * recovery we already have (log-loader.ts deletes `*.cleaned` and `*.swap`
 * and rebuilds indexes that are missing or wrong).
 *
 * The cleaned copy has the same base offset and the same end offset (the
 * last batch of a segment is always kept, empty if need be), so the segments
 * stay contiguous whichever copy survives. Order:
 *
 *   1. `<base>.{log,index,timeindex}.cleaned` written and fsynced (and
 *      `<base>.txnindex.cleaned` when the cleaned copy keeps aborted
 *      transactions)
 *   2. unlink the old `<base>.index` and `<base>.timeindex`
 *   3. rename `<base>.log.cleaned` -> `<base>.log`        (the atomic switch)
 *   4. rename `<base>.txnindex.cleaned` -> `<base>.txnindex`, or unlink
 *      `<base>.txnindex` when the cleaned copy has no entries
 *   5. rename `<base>.index.cleaned` -> `<base>.index`
 *   6. rename `<base>.timeindex.cleaned` -> `<base>.timeindex`
 *
 * A crash before 3 leaves the old log (its indexes missing from 2 on: they are
 * rebuilt); after 3, the new log, with whichever indexes made it (missing
 * ones are rebuilt; the `.cleaned` leftovers are deleted). An old offset or
 * time index is never paired with the new log, because 2 comes before 3. The
 * `.txnindex` is replaced after the log, never before: the old log with the
 * new, shorter index would show aborted records to read_committed readers,
 * while the new log with the old index only lists an aborted transaction
 * whose data is gone and whose marker is still there (the cleaner never
 * removes a marker in the pass that drops its entry), which readers ignore.
 */
import { join } from 'node:path';
import type { FileSystem } from '../fs.js';
import { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, segmentFileName } from '../segment.js';
import { TXN_INDEX_SUFFIX } from '../txn-index.js';

export const CLEANED_SUFFIX = '.cleaned';

/** The points of the protocol, for fault-injection tests. */
export type SwapPoint = 'cleaned-written' | 'old-indexes-removed' | 'log-renamed' | 'txnindex-replaced' | 'index-renamed' | 'timeindex-renamed';

export const SWAP_POINTS: readonly SwapPoint[] = ['cleaned-written', 'old-indexes-removed', 'log-renamed', 'txnindex-replaced', 'index-renamed', 'timeindex-renamed'];

/** Steps 2-6 (the caller did 1: the cleaned segment is flushed and closed). */
export function swapInCleanedFiles(
  fs: FileSystem,
  dir: string,
  baseOffset: bigint,
  onPoint: (point: SwapPoint) => void,
): void {
  const path = (suffix: string): string => join(dir, segmentFileName(baseOffset, suffix));
  onPoint('cleaned-written');
  for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX]) if (fs.exists(path(suffix))) fs.unlink(path(suffix));
  onPoint('old-indexes-removed');
  fs.rename(path(LOG_SUFFIX) + CLEANED_SUFFIX, path(LOG_SUFFIX));
  onPoint('log-renamed');
  const cleanedTxnIndex = path(TXN_INDEX_SUFFIX) + CLEANED_SUFFIX;
  if (fs.exists(cleanedTxnIndex)) fs.rename(cleanedTxnIndex, path(TXN_INDEX_SUFFIX));
  else if (fs.exists(path(TXN_INDEX_SUFFIX))) fs.unlink(path(TXN_INDEX_SUFFIX));
  onPoint('txnindex-replaced');
  fs.rename(path(INDEX_SUFFIX) + CLEANED_SUFFIX, path(INDEX_SUFFIX));
  onPoint('index-renamed');
  fs.rename(path(TIME_INDEX_SUFFIX) + CLEANED_SUFFIX, path(TIME_INDEX_SUFFIX));
  onPoint('timeindex-renamed');
}

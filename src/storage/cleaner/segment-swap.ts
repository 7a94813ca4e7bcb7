/**
 * Putting a cleaned segment in place of the original, crash-safely, with the
 * recovery we already have (log-loader.ts deletes `*.cleaned` and `*.swap`
 * and rebuilds indexes that are missing or wrong).
 *
 * The cleaned copy has the same base offset and the same end offset (the
 * last batch of a segment is always kept, empty if need be), so the segments
 * stay contiguous whichever copy survives. Order:
 *
 *   1. `<base>.{log,index,timeindex}.cleaned` written and fsynced
 *   2. unlink the old `<base>.index` and `<base>.timeindex`
 *   3. rename `<base>.log.cleaned` -> `<base>.log`        (the atomic switch)
 *   4. rename `<base>.index.cleaned` -> `<base>.index`
 *   5. rename `<base>.timeindex.cleaned` -> `<base>.timeindex`
 *
 * A crash before 3 leaves the old log (its indexes missing from 2 on: they are
 * rebuilt); after 3, the new log, with whichever indexes made it (missing
 * ones are rebuilt; the `.cleaned` leftovers are deleted). An old index is
 * never paired with the new log, because 2 comes before 3.
 */
import { join } from 'node:path';
import type { FileSystem } from '../fs.js';
import { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, segmentFileName } from '../segment.js';

export const CLEANED_SUFFIX = '.cleaned';

/** The points of the protocol, for fault-injection tests. */
export type SwapPoint = 'cleaned-written' | 'old-indexes-removed' | 'log-renamed' | 'index-renamed' | 'timeindex-renamed';

/** Steps 2-5 (the caller did 1: the cleaned segment is flushed and closed). */
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
  fs.rename(path(INDEX_SUFFIX) + CLEANED_SUFFIX, path(INDEX_SUFFIX));
  onPoint('index-renamed');
  fs.rename(path(TIME_INDEX_SUFFIX) + CLEANED_SUFFIX, path(TIME_INDEX_SUFFIX));
  onPoint('timeindex-renamed');
}

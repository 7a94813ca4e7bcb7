/** Log compaction: the cleaner, its batch filter, and the produce-path key check. */
export {
  CLEANER_BACKOFF_MS_DEFAULT,
  CLEANER_OFFSET_CHECKPOINT,
  CLEANER_STEP_BYTES_DEFAULT,
  LogCleaner,
  type CleanerStepKind,
  type CleanerStepResult,
  type LogCleanerDeps,
  type LogCleanerOptions,
} from './log-cleaner.js';
export { filterBatch, emptyBatchLike, hasDeleteHorizon, type FilterContext, type FilterOutcome } from './batch-filter.js';
export { OffsetMap, OFFSET_MAP_ENTRIES_MAX_DEFAULT } from './offset-map.js';
export { CLEANED_SUFFIX, SWAP_POINTS, swapInCleanedFiles, type SwapPoint } from './segment-swap.js';
export { CleanedTransactions, type MarkerVerdict } from './cleaned-transactions.js';
export { batchHasNullKey } from './keys.js';

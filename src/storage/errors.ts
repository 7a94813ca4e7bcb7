/**
 * Typed storage errors. Bytes read from disk that do not parse are corrupt
 * data, not bugs: they raise StorageError('ERR_TRIB_STORAGE_CORRUPT'), which the
 * broker maps to KAFKA_STORAGE_ERROR (56) for that partition only. Programmer
 * mistakes (appending to a closed log, offsets going back) are invariants.
 * ERR_TRIB_STORAGE_FILE_LIMIT is a transient shortage of file descriptors
 * (file-handle-pool.ts): the request fails with a retriable code, the log
 * stays online.
 */
export type StorageErrorCode =
  | 'ERR_TRIB_STORAGE_CORRUPT'
  | 'ERR_TRIB_STORAGE_INVALID_CONFIG'
  | 'ERR_TRIB_STORAGE_CLOSED'
  | 'ERR_TRIB_STORAGE_INVALID_BATCH'
  /** Out of file descriptors (EMFILE/ENFILE) even after closing idle ones: retriable, nothing was changed. */
  | 'ERR_TRIB_STORAGE_FILE_LIMIT';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageError';
  }
}

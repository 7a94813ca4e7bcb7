/**
 * Typed failures of the __consumer_offsets store and loader, and the wire
 * codes the group coordinator answers for them. The mapping follows Kafka's
 * GroupMetadataManager (storeGroup / storeOffsets), which turns append errors
 * into coordinator errors so that clients rediscover the coordinator instead
 * of seeing storage-level codes.
 */
import { ErrorCode } from '../../../protocol/errors.js';

export type OffsetsStoreErrorKind =
  /** The group's partition is not hosted here (topic missing, replica not opened yet, or removed). */
  | 'not_available'
  /** This broker hosts the partition but is not its leader (or lost leadership before the write committed). */
  | 'not_coordinator'
  /** The records do not fit one batch (OFFSETS_BATCH_RECORDS_MAX, batchBytesMax, segment.bytes, an int16 string). */
  | 'too_large'
  /** The log refused the append (StorageError). */
  | 'storage'
  /** The high watermark did not reach the batch in time (replication). */
  | 'timeout'
  /** A load was aborted (the partition is being unloaded). */
  | 'load_aborted';

const CODES = {
  not_available: 'ERR_TRIB_OFFSETS_NOT_AVAILABLE',
  not_coordinator: 'ERR_TRIB_OFFSETS_NOT_COORDINATOR',
  too_large: 'ERR_TRIB_OFFSETS_TOO_LARGE',
  storage: 'ERR_TRIB_OFFSETS_STORAGE',
  timeout: 'ERR_TRIB_OFFSETS_TIMEOUT',
  load_aborted: 'ERR_TRIB_OFFSETS_LOAD_ABORTED',
} as const satisfies Record<OffsetsStoreErrorKind, string>;

export type OffsetsStoreErrorCode = (typeof CODES)[OffsetsStoreErrorKind];

export class OffsetsStoreError extends Error {
  readonly code: OffsetsStoreErrorCode;
  /** The Kafka error code to answer, set by the store for what it was storing. */
  errorCode: number | undefined;

  constructor(
    readonly kind: OffsetsStoreErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OffsetsStoreError';
    this.code = CODES[kind];
  }
}

/**
 * The wire code for a failed store, by what was being stored (Kafka's
 * choices, including the odd ones):
 *
 * | kind            | storeOffsets (OffsetCommit)  | storeGroup (SyncGroup, LeaveGroup...) |
 * |-----------------|------------------------------|---------------------------------------|
 * | not_available   | COORDINATOR_NOT_AVAILABLE    | COORDINATOR_NOT_AVAILABLE             |
 * | not_coordinator | NOT_COORDINATOR              | NOT_COORDINATOR                       |
 * | storage         | NOT_COORDINATOR              | NOT_COORDINATOR                       |
 * | too_large       | INVALID_COMMIT_OFFSET_SIZE   | UNKNOWN_SERVER_ERROR                  |
 * | timeout         | REQUEST_TIMED_OUT            | REBALANCE_IN_PROGRESS                 |
 *
 * Kafka maps KAFKA_STORAGE_ERROR to NOT_COORDINATOR so the client looks the
 * coordinator up again (leadership moves off a failed disk). An oversized
 * group (RECORD_LIST_TOO_LARGE / MESSAGE_TOO_LARGE from the append) has no
 * dedicated code in SyncGroup, hence UNKNOWN_SERVER_ERROR; a timed-out group
 * write makes members rejoin, hence REBALANCE_IN_PROGRESS.
 */
export function wireErrorFor(kind: OffsetsStoreErrorKind, stored: 'offsets' | 'group'): number {
  switch (kind) {
    case 'not_available':
    case 'load_aborted':
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case 'not_coordinator':
    case 'storage':
      return ErrorCode.NOT_COORDINATOR;
    case 'too_large':
      return stored === 'offsets' ? ErrorCode.INVALID_COMMIT_OFFSET_SIZE : ErrorCode.UNKNOWN_SERVER_ERROR;
    case 'timeout':
      return stored === 'offsets' ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.REBALANCE_IN_PROGRESS;
  }
}

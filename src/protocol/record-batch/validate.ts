/**
 * The broker's produce-path check of client batches. It reads only the
 * 61-byte headers and runs one CRC-32C per batch: no decompression, no work
 * or allocation per record (the throughput target in bench/README.md leaves the broker
 * ~7 µs of CPU per message: room for per-batch work only). Records inside are
 * trusted to the CRC the client computed; consumers validate them when they
 * decode.
 *
 * Each failure is a typed result that the Produce handler maps to a wire code
 * (see README.md): nothing here throws for any input bytes.
 */
import {
  BATCH_HEADER_BYTES,
  BATCH_LOG_OVERHEAD,
  Compression,
  Offsets,
  batchCrcIsValid,
  compressionOf,
  isControlBatch,
  readBatchHeader,
  type BatchHeader,
} from './header.js';
import { RECORD_BYTES_MIN } from './record.js';

export type BatchValidationError =
  /** Framing, sizes, CRC, unknown codec: the bytes are damaged. */
  | 'corrupt_message'
  /** Well-formed bytes that break a rule: counts, timestamps, control batches. */
  | 'invalid_record'
  /** magic 0 or 1 (a legacy message set). */
  | 'unsupported_magic'
  /** zstd when the request version is too old for it (Produce < 7). */
  | 'unsupported_compression_type';

export type BatchValidation =
  | {
      ok: true;
      batches: BatchHeader[];
      /** Sum of recordsCount over the batches. */
      recordCount: number;
    }
  | {
      ok: false;
      error: BatchValidationError;
      message: string;
      /** Byte position of the offending batch in the buffer. */
      position: number;
    };

export interface ValidateProducedOptions {
  /** Produce v7+ may carry zstd; older versions answer UNSUPPORTED_COMPRESSION_TYPE. Default true. */
  zstdAllowed?: boolean;
  /** Kafka requires exactly one batch per partition from Produce v3 on. Default false. */
  singleBatch?: boolean;
}

function fail(error: BatchValidationError, message: string, position: number): BatchValidationFailure {
  return { ok: false, error, message, position };
}

/** A failed validation (the `ok: false` side of BatchValidation). */
export type BatchValidationFailure = Extract<BatchValidation, { ok: false }>;

/**
 * Validates the batches a client produced to one partition. `buf` must hold
 * one or more complete batches and nothing else.
 */
export function validateProducedBatch(buf: Buffer, options: ValidateProducedOptions = {}): BatchValidation {
  const batches: BatchHeader[] = [];
  let recordCount = 0;
  let position = 0;
  while (position < buf.length) {
    const header = checkedBatchAt(buf, position, options.zstdAllowed !== false);
    if (!isBatchHeader(header)) return header;
    batches.push(header);
    recordCount += header.recordsCount;
    position += BATCH_LOG_OVERHEAD + header.batchLength;
    if (options.singleBatch === true && position < buf.length) return onlyOneBatch(position);
  }
  if (batches.length === 0) return fail('corrupt_message', 'no record batch', 0);
  return { ok: true, batches, recordCount };
}

/**
 * validateProducedBatch for Produce v3+ (exactly one batch per partition),
 * returning the batch's header itself: no array and no result object per
 * request on the produce hot path (bench/README.md, "Per-request cost").
 * Same checks, same order, same failures as
 * `validateProducedBatch(buf, { zstdAllowed, singleBatch: true })`.
 */
export function validateSingleProducedBatch(buf: Buffer, zstdAllowed: boolean): BatchHeader | BatchValidationFailure {
  if (buf.length === 0) return fail('corrupt_message', 'no record batch', 0);
  const header = checkedBatchAt(buf, 0, zstdAllowed);
  if (!isBatchHeader(header)) return header;
  const end = BATCH_LOG_OVERHEAD + header.batchLength;
  return end < buf.length ? onlyOneBatch(end) : header;
}

/** Tells a header from a failure (a header has no `ok`). */
export function isBatchHeader(r: BatchHeader | BatchValidationFailure): r is BatchHeader {
  return !('ok' in r);
}

function onlyOneBatch(position: number): BatchValidationFailure {
  return fail('invalid_record', 'produce requests may carry only one record batch per partition', position);
}

/**
 * Checks the batch at `position` and returns its header, or a failure.
 * Framing and CRC first (read from the bytes), then the header is read once
 * and its fields checked: nothing is read twice.
 */
function checkedBatchAt(buf: Buffer, position: number, zstdAllowed: boolean): BatchHeader | BatchValidationFailure {
  const framing = checkFraming(buf, position);
  if (framing !== null) return framing;
  const header = readBatchHeader(buf, position);
  return checkFields(header, position, zstdAllowed) ?? header;
}

/** Size, magic and CRC of the batch at `position`; null when they hold. */
function checkFraming(buf: Buffer, position: number): BatchValidationFailure | null {
  const left = buf.length - position;
  // Magic sits at byte 16; read it before the v2 size rules so that a legacy
  // message set reports unsupported_magic rather than a size error.
  if (left < Offsets.magic + 1) return fail('corrupt_message', `${left} trailing bytes are not a record batch`, position);
  const size = BATCH_LOG_OVERHEAD + buf.readInt32BE(position + Offsets.batchLength);
  if (size > left) return fail('corrupt_message', `batch declares ${size} bytes but only ${left} remain`, position);
  const magic = buf.readInt8(position + Offsets.magic);
  if (magic !== 2) return fail('unsupported_magic', `record batch magic ${magic} is not 2`, position);
  if (size < BATCH_HEADER_BYTES) {
    return fail('corrupt_message', `batch size ${size} is below the ${BATCH_HEADER_BYTES}-byte header`, position);
  }
  if (!batchCrcIsValid(buf, position, size)) return fail('corrupt_message', 'record batch CRC-32C mismatch', position);
  return null;
}

/** The rules on the header's fields (codec, control, counts, timestamps); null when they hold. */
function checkFields(header: BatchHeader, position: number, zstdAllowed: boolean): BatchValidationFailure | null {
  const size = BATCH_LOG_OVERHEAD + header.batchLength;
  const codec = compressionOf(header.attributes);
  if (codec > Compression.Zstd) return fail('corrupt_message', `unknown compression codec ${codec}`, position);
  if (codec === Compression.Zstd && !zstdAllowed) {
    return fail('unsupported_compression_type', 'zstd needs Produce v7 or later', position);
  }
  if (isControlBatch(header.attributes)) return fail('invalid_record', 'clients may not produce control batches', position);

  const count = header.recordsCount;
  if (count <= 0) return fail('invalid_record', `records count ${count} is not positive`, position);
  const lastOffsetDelta = header.lastOffsetDelta;
  if (lastOffsetDelta !== count - 1) {
    return fail('invalid_record', `lastOffsetDelta ${lastOffsetDelta} does not match ${count} records`, position);
  }
  if (codec === Compression.None && count > (size - BATCH_HEADER_BYTES) / RECORD_BYTES_MIN) {
    return fail('corrupt_message', `${count} records cannot fit in ${size - BATCH_HEADER_BYTES} bytes`, position);
  }
  const { baseTimestamp, maxTimestamp } = header;
  if (maxTimestamp !== -1n && baseTimestamp > maxTimestamp) {
    return fail('invalid_record', `baseTimestamp ${baseTimestamp} is after maxTimestamp ${maxTimestamp}`, position);
  }
  return null;
}

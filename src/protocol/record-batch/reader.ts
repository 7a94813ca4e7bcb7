/**
 * Reading v2 record batches: full decoding (consumer side, compaction,
 * tools), framing of concatenated batches (fetch responses, log segments),
 * and re-exports of the cheap produce-path validation (validate.ts).
 *
 * Every malformed input yields a DecodeError; nothing here asserts on bytes.
 */
import { DecodeError } from '../primitives/decode-error.js';
import {
  BATCH_HEADER_BYTES,
  BATCH_LOG_OVERHEAD,
  ATTR_TIMESTAMP_LOG_APPEND,
  Compression,
  Offsets,
  batchCrcIsValid,
  compressionOf,
  readBatchHeader,
  type BatchHeader,
} from './header.js';
import { DECOMPRESSED_BYTES_MAX, decompress, decompressSync, isKnownCodec } from './compression.js';
import { readRecords, type KafkaRecord } from './record.js';

export { validateProducedBatch, type BatchValidation, type BatchValidationError } from './validate.js';

export interface DecodedBatch {
  header: BatchHeader;
  records: KafkaRecord[];
}

export interface DecodeOptions {
  /** Cap on the decompressed records section (default DECOMPRESSED_BYTES_MAX). */
  decompressedBytesMax?: number;
}

/** Checks framing, magic, CRC and codec of a buffer holding exactly one batch. */
export function checkBatch(buf: Buffer): BatchHeader {
  if (buf.length < BATCH_HEADER_BYTES) {
    throw new DecodeError(`record batch of ${buf.length} bytes is shorter than its ${BATCH_HEADER_BYTES}-byte header`);
  }
  const size = BATCH_LOG_OVERHEAD + buf.readInt32BE(Offsets.batchLength);
  if (size !== buf.length) {
    throw new DecodeError(`record batch declares ${size} bytes but the buffer holds ${buf.length}`);
  }
  const magic = buf.readInt8(Offsets.magic);
  if (magic !== 2) throw new DecodeError(`unsupported record batch magic ${magic}`);
  if (!batchCrcIsValid(buf, 0, size)) throw new DecodeError('record batch CRC-32C mismatch');
  const header = readBatchHeader(buf);
  const codec = compressionOf(header.attributes);
  if (!isKnownCodec(codec)) throw new DecodeError(`unknown compression codec ${codec}`);
  if (header.recordsCount < 0) throw new DecodeError(`negative records count ${header.recordsCount}`);
  return header;
}

function recordsOf(header: BatchHeader, section: Buffer): KafkaRecord[] {
  return readRecords(section, 0, section.length, header.recordsCount);
}

/** Decodes one whole batch (exactly `buf`), decompressing its records. */
export async function decodeRecordBatch(buf: Buffer, options: DecodeOptions = {}): Promise<DecodedBatch> {
  const header = checkBatch(buf);
  const codec = compressionOf(header.attributes);
  const section = buf.subarray(BATCH_HEADER_BYTES);
  if (codec === Compression.None) return { header, records: recordsOf(header, section) };
  const max = options.decompressedBytesMax ?? DECOMPRESSED_BYTES_MAX;
  return { header, records: recordsOf(header, await decompress(codec, section, max)) };
}

/** As decodeRecordBatch, synchronously; zstd throws SyncCodecUnsupportedError. */
export function decodeRecordBatchSync(buf: Buffer, options: DecodeOptions = {}): DecodedBatch {
  const header = checkBatch(buf);
  const codec = compressionOf(header.attributes);
  const section = buf.subarray(BATCH_HEADER_BYTES);
  if (codec === Compression.None) return { header, records: recordsOf(header, section) };
  const max = options.decompressedBytesMax ?? DECOMPRESSED_BYTES_MAX;
  return { header, records: recordsOf(header, decompressSync(codec, section, max)) };
}

/** A record's absolute offset. */
export function recordOffset(header: Pick<BatchHeader, 'baseOffset'>, record: Pick<KafkaRecord, 'offsetDelta'>): bigint {
  return header.baseOffset + BigInt(record.offsetDelta);
}

/** A record's timestamp: the batch's maxTimestamp under LogAppendTime, else base + delta. */
export function recordTimestamp(
  header: Pick<BatchHeader, 'attributes' | 'baseTimestamp' | 'maxTimestamp'>,
  record: Pick<KafkaRecord, 'timestampDelta'>,
): bigint {
  if ((header.attributes & ATTR_TIMESTAMP_LOG_APPEND) !== 0) return header.maxTimestamp;
  return header.baseTimestamp + record.timestampDelta;
}

// ------------------------------------------------------------------ framing

/** Smallest batchLength of any message format: a v0 message is 26 bytes after the 12-byte log overhead. */
const LEGACY_MESSAGE_BYTES_MIN = 14;

/**
 * End position of the batch starting at `position`, or -1 when the buffer
 * ends inside it (a fetch response may cut the last batch). Frames by
 * baseOffset + batchLength only, so it also steps over legacy message sets.
 * A batchLength too small for any format is a DecodeError.
 */
export function batchEndAt(buf: Buffer, position: number): number {
  if (buf.length - position < BATCH_LOG_OVERHEAD) return -1;
  const batchLength = buf.readInt32BE(position + Offsets.batchLength);
  if (batchLength < LEGACY_MESSAGE_BYTES_MIN) {
    throw new DecodeError(`batch length ${batchLength} at position ${position} is below the minimum`);
  }
  const end = position + BATCH_LOG_OVERHEAD + batchLength;
  return end > buf.length ? -1 : end;
}

/** Yields each whole batch (a zero-copy view) and stops silently at a truncated tail. */
export function* iterateBatches(buf: Buffer): Generator<Buffer, void, undefined> {
  let position = 0;
  for (;;) {
    const end = batchEndAt(buf, position);
    if (end < 0) return;
    yield buf.subarray(position, end);
    position = end;
  }
}

/** The whole batches in `buf`, in order; a truncated trailing batch is dropped. */
export function splitBatches(buf: Buffer): Buffer[] {
  const batches: Buffer[] = [];
  let position = 0;
  for (;;) {
    const end = batchEndAt(buf, position);
    if (end < 0) return batches;
    batches.push(buf.subarray(position, end));
    position = end;
  }
}

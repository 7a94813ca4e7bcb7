/**
 * Broker-side recompression for topics whose `compression.type` names a
 * codec (Kafka's LogValidator: a produced batch in another codec is rebuilt
 * in the topic's). This is the one place besides compaction where the
 * broker opens a batch (DESIGN.md principle 2), and only for such topics.
 *
 * The records section is decompressed, checked (exactly recordsCount
 * well-formed records), and compressed again; the header is kept as sent
 * (offset deltas, timestamps, producer fields, timestamp type), with the
 * codec bits, batchLength and CRC-32C rewritten. The records themselves are
 * byte-for-byte the ones the producer wrote, so keys, values, headers and
 * timestamps read back exactly.
 */
import { compress, decompress, DECOMPRESSED_BYTES_MAX } from '../protocol/record-batch/compression.js';
import {
  ATTR_COMPRESSION_MASK, BATCH_HEADER_BYTES, BATCH_LOG_OVERHEAD, Compression, compressionOf, computeBatchCrc, Offsets, readBatchHeader,
  type BatchHeader,
} from '../protocol/record-batch/header.js';
import { readRecords, type KafkaRecord } from '../protocol/record-batch/record.js';
import type { CompressionType } from '../util/config/topic.js';

const CODECS: Readonly<Record<Exclude<CompressionType, 'producer'>, Compression>> = {
  uncompressed: Compression.None,
  gzip: Compression.Gzip,
  snappy: Compression.Snappy,
  lz4: Compression.Lz4,
  zstd: Compression.Zstd,
};

/** The codec a topic stores, or null for `producer` (keep what was sent). */
export function topicCodec(compressionType: CompressionType | undefined): Compression | null {
  return compressionType === undefined || compressionType === 'producer' ? null : CODECS[compressionType];
}

/** Whether a batch with these attributes must be rebuilt for a topic storing `codec`. */
export function needsRecompression(attributes: number, codec: Compression | null): codec is Compression {
  return codec !== null && compressionOf(attributes) !== codec;
}

export interface Recompressed {
  readonly batch: Buffer;
  readonly header: BatchHeader;
  /** The decoded records (views into the decompressed section), for further checks (compacted topics' keys). */
  readonly records: KafkaRecord[];
}

/**
 * Rebuilds one whole, CRC-checked v2 batch with `codec`. Throws DecodeError
 * when the records section does not decompress or hold its records.
 */
export async function recompressBatch(batch: Buffer, codec: Compression, decompressedBytesMax = DECOMPRESSED_BYTES_MAX): Promise<Recompressed> {
  const header = readBatchHeader(batch);
  const from = compressionOf(header.attributes);
  const section = batch.subarray(BATCH_HEADER_BYTES);
  const plain = from === Compression.None ? section : await decompress(from, section, decompressedBytesMax);
  const records = readRecords(plain, 0, plain.length, header.recordsCount);
  const packed = codec === Compression.None ? plain : await compress(codec, plain);
  const out = Buffer.allocUnsafe(BATCH_HEADER_BYTES + packed.length);
  batch.copy(out, 0, 0, BATCH_HEADER_BYTES);
  packed.copy(out, BATCH_HEADER_BYTES);
  out.writeInt32BE(out.length - BATCH_LOG_OVERHEAD, Offsets.batchLength);
  out.writeInt16BE((header.attributes & ~ATTR_COMPRESSION_MASK) | codec, Offsets.attributes);
  out.writeUInt32BE(computeBatchCrc(out), Offsets.crc);
  return { batch: out, header: readBatchHeader(out), records };
}

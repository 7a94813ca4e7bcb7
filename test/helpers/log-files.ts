/**
 * Reads a partition's segment files the way docs/architecture.md lays them out
 * (`<log.dir>/<topic>-<partition>/<20-digit base offset>.log`, record batches
 * verbatim) and walks the batch headers, checking each CRC-32C. Used to check
 * that a client's compressed batch is stored as sent (docs/architecture.md) and that a
 * log is readable end to end after a crash.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from './raw-kafka.js';

export const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

export interface StoredBatch {
  segment: string;
  position: number;
  baseOffset: bigint;
  lastOffsetDelta: number;
  recordCount: number;
  codec: string;
  crcOk: boolean;
}

export interface SegmentWalk {
  batches: StoredBatch[];
  /** Bytes after the last complete batch of each segment (a torn tail, or preallocation). */
  trailingBytes: { segment: string; bytes: number; allZero: boolean }[];
}

export function partitionDir(logDir: string, topic: string, partition: number): string {
  return join(logDir, `${topic}-${partition}`);
}

/**
 * The stored batches of a partition the test wrote to: fails when there are
 * none, so a loop over them cannot pass vacuously.
 */
export function storedBatches(logDir: string, topic: string, partition: number): StoredBatch[] {
  const { batches } = walkPartitionLog(logDir, topic, partition);
  assert.ok(batches.length > 0, `${topic}-${partition}: no batches stored`);
  return batches;
}

export function walkPartitionLog(logDir: string, topic: string, partition: number): SegmentWalk {
  const dir = partitionDir(logDir, topic, partition);
  if (!existsSync(dir)) throw new Error(`no partition directory ${dir}; found: ${existsSync(logDir) ? readdirSync(logDir).join(', ') : '(no log dir)'}`);
  const segments = readdirSync(dir)
    .filter((f) => /^\d{20}\.log$/.test(f))
    .sort();
  const walk: SegmentWalk = { batches: [], trailingBytes: [] };
  for (const segment of segments) {
    const bytes = readFileSync(join(dir, segment));
    let position = 0;
    while (position + 61 <= bytes.length) {
      const batchLength = bytes.readInt32BE(position + 8);
      const end = position + 12 + batchLength;
      if (batchLength < 49 || end > bytes.length) break;
      const magic = bytes.readInt8(position + 16);
      if (magic !== 2) break;
      const attributes = bytes.readInt16BE(position + 21);
      walk.batches.push({
        segment,
        position,
        baseOffset: bytes.readBigInt64BE(position),
        lastOffsetDelta: bytes.readInt32BE(position + 23),
        recordCount: bytes.readInt32BE(position + 57),
        codec: CODECS[attributes & 0x7] ?? `codec-${attributes & 0x7}`,
        crcOk: bytes.readUInt32BE(position + 17) === crc32c(bytes.subarray(position + 21, end)),
      });
      position = end;
    }
    if (position < bytes.length) {
      const rest = bytes.subarray(position);
      walk.trailingBytes.push({ segment, bytes: rest.length, allZero: rest.every((b) => b === 0) });
    }
  }
  return walk;
}

/**
 * Checks, from the segment files, that librdkafka stored each topic's batches
 * with the codec it was configured with (and valid CRCs).
 * librdkafka 2.0.2 compresses with gzip/snappy/lz4 only when the broker
 * advertises Produce v0 (compr_req[] in rdkafka_msgset_writer.c), and lz4 also
 * needs FindCoordinator v0 in range: a broker that gets either wrong silently
 * receives uncompressed batches, which is what this catches. A batch that does
 * not shrink when compressed is sent uncompressed, so 'none' may appear beside
 * the codec, but the codec itself must be there.
 */
export function assertLibrdkafkaCodecsStored(logDir: string, topicByCodec: ReadonlyMap<string, string>, partitions: number): void {
  for (const [compression, topic] of topicByCodec) {
    const codecs = new Set<string>();
    for (let p = 0; p < partitions; p++) {
      for (const batch of walkPartitionLog(logDir, topic, p).batches) {
        assert.ok(batch.crcOk, `${topic}-${p} batch at offset ${batch.baseOffset}: CRC-32C mismatch on disk`);
        codecs.add(batch.codec);
      }
    }
    const stored = [...codecs];
    assert.ok(stored.includes(compression), `${compression}: stored codecs ${stored.join(',')} lack ${compression}`);
    assert.ok(stored.every((c) => c === compression || c === 'none'), `${compression}: unexpected stored codecs ${stored.join(',')}`);
  }
}

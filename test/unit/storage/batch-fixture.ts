/**
 * Test-only: builds minimal valid uncompressed magic-2 record batches
 * (correct batchLength, lastOffsetDelta, timestamps and CRC-32C). Storage
 * treats records as opaque; they only need correct framing here.
 */
import { crc32c } from '@node-rs/crc32';
import { BATCH_HEADER_BYTES, CRC_START, Offsets } from '../../../src/protocol/record-batch/header.js';
import { varintSize, varlongSize, writeVarint, writeVarlong } from '../../../src/protocol/primitives/varint.js';

export interface FixtureRecord {
  key?: Buffer | null;
  value: Buffer | null;
  /** Absolute timestamp; defaults to the batch's base timestamp. */
  timestampMs?: bigint;
}

export interface FixtureBatch {
  records: FixtureRecord[];
  baseOffset?: bigint;
  baseTimestampMs?: bigint;
  producerId?: bigint;
}

function encodeRecord(r: FixtureRecord, offsetDelta: number, baseTs: bigint): Buffer {
  const tsDelta = (r.timestampMs ?? baseTs) - baseTs;
  const key = r.key ?? null;
  const value = r.value;
  const bodySize = 1 + varlongSize(tsDelta) + varintSize(offsetDelta)
    + varintSize(key === null ? -1 : key.length) + (key?.length ?? 0)
    + varintSize(value === null ? -1 : value.length) + (value?.length ?? 0)
    + varintSize(0);
  const buf = Buffer.alloc(varintSize(bodySize) + bodySize);
  let p = writeVarint(buf, 0, bodySize);
  buf.writeInt8(0, p++);
  p = writeVarlong(buf, p, tsDelta);
  p = writeVarint(buf, p, offsetDelta);
  p = writeVarint(buf, p, key === null ? -1 : key.length);
  if (key !== null) p += key.copy(buf, p);
  p = writeVarint(buf, p, value === null ? -1 : value.length);
  if (value !== null) p += value.copy(buf, p);
  p = writeVarint(buf, p, 0);
  if (p !== buf.length) throw new Error('fixture record size mismatch');
  return buf;
}

export function buildBatch(spec: FixtureBatch): Buffer {
  if (spec.records.length === 0) throw new Error('a fixture batch needs records');
  const baseTs = spec.baseTimestampMs ?? spec.records[0]?.timestampMs ?? 1_700_000_000_000n;
  let maxTs = -1n;
  for (const r of spec.records) {
    const ts = r.timestampMs ?? baseTs;
    if (ts > maxTs) maxTs = ts;
  }
  const body = Buffer.concat(spec.records.map((r, i) => encodeRecord(r, i, baseTs)));
  const batch = Buffer.alloc(BATCH_HEADER_BYTES + body.length);
  batch.writeBigInt64BE(spec.baseOffset ?? 0n, Offsets.baseOffset);
  batch.writeInt32BE(batch.length - 12, Offsets.batchLength);
  batch.writeInt32BE(0, Offsets.partitionLeaderEpoch);
  batch.writeInt8(2, Offsets.magic);
  batch.writeInt16BE(0, Offsets.attributes);
  batch.writeInt32BE(spec.records.length - 1, Offsets.lastOffsetDelta);
  batch.writeBigInt64BE(baseTs, Offsets.baseTimestamp);
  batch.writeBigInt64BE(maxTs, Offsets.maxTimestamp);
  batch.writeBigInt64BE(spec.producerId ?? -1n, Offsets.producerId);
  batch.writeInt16BE(-1, Offsets.producerEpoch);
  batch.writeInt32BE(-1, Offsets.baseSequence);
  batch.writeInt32BE(spec.records.length, Offsets.recordsCount);
  body.copy(batch, BATCH_HEADER_BYTES);
  batch.writeUInt32BE(crc32c(batch.subarray(CRC_START)) >>> 0, Offsets.crc);
  return batch;
}

/** `count` records of `valueBytes` each, all at timestampMs. */
export function simpleBatch(count: number, valueBytes = 10, timestampMs = 1_700_000_000_000n): Buffer {
  const records: FixtureRecord[] = [];
  for (let i = 0; i < count; i++) records.push({ value: Buffer.alloc(valueBytes, 97 + (i % 26)), timestampMs });
  return buildBatch({ records, baseTimestampMs: timestampMs });
}

/**
 * The fixed 61-byte header of a record batch (magic 2), read and patched in
 * place. This is all the broker's hot path needs: batches stay opaque Buffers
 * (docs/architecture.md: batches stay opaque on the hot path); only offsets, epochs and timestamps are rewritten.
 *
 * Layout (big-endian):
 *   0  baseOffset            int64
 *   8  batchLength           int32   bytes after this field
 *  12  partitionLeaderEpoch  int32
 *  16  magic                 int8    (2)
 *  17  crc                   uint32  CRC-32C of bytes [21, end)
 *  21  attributes            int16
 *  23  lastOffsetDelta       int32
 *  27  baseTimestamp         int64
 *  35  maxTimestamp          int64
 *  43  producerId            int64
 *  51  producerEpoch         int16
 *  53  baseSequence          int32
 *  57  recordsCount          int32
 *  61  records...
 */
import { crc32c } from '@node-rs/crc32';
import { readInt64BE, writeInt64BE } from '../primitives/int64.js';

export const BATCH_HEADER_BYTES = 61;
/** Bytes before batchLength's count starts: baseOffset + batchLength. */
export const BATCH_LOG_OVERHEAD = 12;
export const CRC_START = 21;

export const Offsets = {
  baseOffset: 0,
  batchLength: 8,
  partitionLeaderEpoch: 12,
  magic: 16,
  crc: 17,
  attributes: 21,
  lastOffsetDelta: 23,
  baseTimestamp: 27,
  maxTimestamp: 35,
  producerId: 43,
  producerEpoch: 51,
  baseSequence: 53,
  recordsCount: 57,
} as const;

export const enum Compression {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

export const ATTR_COMPRESSION_MASK = 0x07;
export const ATTR_TIMESTAMP_LOG_APPEND = 0x08;
export const ATTR_TRANSACTIONAL = 0x10;
export const ATTR_CONTROL = 0x20;
export const ATTR_DELETE_HORIZON = 0x40;

/** The decoded fixed header of one batch. */
export interface BatchHeader {
  baseOffset: bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordsCount: number;
}

export function readBatchHeader(buf: Buffer, pos = 0): BatchHeader {
  return {
    baseOffset: readInt64BE(buf, pos + Offsets.baseOffset),
    batchLength: buf.readInt32BE(pos + Offsets.batchLength),
    partitionLeaderEpoch: buf.readInt32BE(pos + Offsets.partitionLeaderEpoch),
    magic: buf.readInt8(pos + Offsets.magic),
    crc: buf.readUInt32BE(pos + Offsets.crc),
    attributes: buf.readInt16BE(pos + Offsets.attributes),
    lastOffsetDelta: buf.readInt32BE(pos + Offsets.lastOffsetDelta),
    baseTimestamp: readInt64BE(buf, pos + Offsets.baseTimestamp),
    maxTimestamp: readInt64BE(buf, pos + Offsets.maxTimestamp),
    producerId: readInt64BE(buf, pos + Offsets.producerId),
    producerEpoch: buf.readInt16BE(pos + Offsets.producerEpoch),
    baseSequence: buf.readInt32BE(pos + Offsets.baseSequence),
    recordsCount: buf.readInt32BE(pos + Offsets.recordsCount),
  };
}

/** Total bytes of the batch starting at `pos` (header fields included). */
export function batchSizeAt(buf: Buffer, pos = 0): number {
  return BATCH_LOG_OVERHEAD + buf.readInt32BE(pos + Offsets.batchLength);
}

export function computeBatchCrc(batch: Buffer, pos = 0, size = batchSizeAt(batch, pos)): number {
  return crc32c(batch.subarray(pos + CRC_START, pos + size)) >>> 0;
}

export function batchCrcIsValid(batch: Buffer, pos = 0, size = batchSizeAt(batch, pos)): boolean {
  return batch.readUInt32BE(pos + Offsets.crc) === computeBatchCrc(batch, pos, size);
}

/** Rewrites baseOffset; the CRC does not cover it, so nothing else changes. */
export function setBaseOffset(batch: Buffer, baseOffset: bigint, pos = 0): void {
  writeInt64BE(batch, baseOffset, pos + Offsets.baseOffset);
}

/** Rewrites the leader epoch; not covered by the CRC either. */
export function setPartitionLeaderEpoch(batch: Buffer, epoch: number, pos = 0): void {
  batch.writeInt32BE(epoch, pos + Offsets.partitionLeaderEpoch);
}

/**
 * Stamps LogAppendTime: sets the timestamp-type bit and maxTimestamp, then
 * recomputes the CRC (both fields are covered by it).
 */
export function setLogAppendTime(batch: Buffer, timestampMs: bigint, pos = 0): void {
  const attributes = batch.readInt16BE(pos + Offsets.attributes);
  batch.writeInt16BE(attributes | ATTR_TIMESTAMP_LOG_APPEND, pos + Offsets.attributes);
  writeInt64BE(batch, timestampMs, pos + Offsets.maxTimestamp);
  batch.writeUInt32BE(computeBatchCrc(batch, pos), pos + Offsets.crc);
}

export function compressionOf(attributes: number): number {
  return attributes & ATTR_COMPRESSION_MASK;
}

export function isControlBatch(attributes: number): boolean {
  return (attributes & ATTR_CONTROL) !== 0;
}

export function isTransactionalBatch(attributes: number): boolean {
  return (attributes & ATTR_TRANSACTIONAL) !== 0;
}

export function lastOffsetOf(header: Pick<BatchHeader, 'baseOffset' | 'lastOffsetDelta'>): bigint {
  return header.baseOffset + BigInt(header.lastOffsetDelta);
}

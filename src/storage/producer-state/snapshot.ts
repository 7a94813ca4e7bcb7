/**
 * Producer state snapshots: `<partitionDir>/<20-digit offset>.snapshot`, the
 * state of every producer after applying the log below that offset (Kafka's
 * naming; our own format). Written atomically (tmp, fsync, rename).
 *
 * Format, big-endian:
 *
 *   int16  version (3; 1 and 2 are still read)
 *   uint32 CRC-32C of every byte after this field
 *   int64  offset (equal to the file name's)
 *   int32  producer count
 *   per producer:
 *     int64 producerId, int16 epoch, int64 lastTimestampMs, int64 lastAppendMs,
 *     v2 only: int64 currentTxnFirstOffset (-1: no open transaction), int32 coordinatorEpoch (-1: no marker yet)
 *     int8  batch count (0..5), per batch, oldest first:
 *       int32 firstSeq, int32 lastSeq, int64 firstOffset, int32 lastOffset - firstOffset, int64 timestampMs
 *   v3 only: int32 unreplicated transaction count, per transaction, oldest first:
 *     int64 firstOffset, int64 markerOffset
 *
 * Version 1 (before transactions) has no transaction fields: read as -1
 * (no transactional batch could be written then). Version 2 has no
 * unreplicated transactions: read as none (what it meant when written).
 *
 * Decoding validates everything (bytes from disk): a bad version, CRC,
 * length or value returns a reason string, never throws.
 */
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import type { FileSystem } from '../fs.js';
import { BATCHES_RETAINED, EPOCH_MAX, SEQUENCE_MAX, type BatchMetadata, type ProducerEntry, type UnreplicatedTxn } from './producer-state.js';

export const SNAPSHOT_SUFFIX = '.snapshot';
export const SNAPSHOT_VERSION = 3;
const SNAPSHOT_VERSION_NO_UNREPLICATED = 2;
const SNAPSHOT_VERSION_NO_TXN = 1;
const HEADER_BYTES = 2 + 4 + 8 + 4;
const ENTRY_BYTES_V1 = 8 + 2 + 8 + 8 + 1;
const TXN_FIELDS_BYTES = 8 + 4;
const ENTRY_BYTES = ENTRY_BYTES_V1 + TXN_FIELDS_BYTES;
const BATCH_BYTES = 4 + 4 + 8 + 4 + 8;
const UNREPLICATED_BYTES = 8 + 8;
const CRC_FROM = 6;

export function snapshotFileName(offset: bigint): string {
  return offset.toString().padStart(20, '0') + SNAPSHOT_SUFFIX;
}

/** The offset in a snapshot file name, or null for any other name. */
export function parseSnapshotFileName(name: string): bigint | null {
  const m = /^(\d{20})\.snapshot$/.exec(name);
  return m === null ? null : BigInt(m[1] as string);
}

/** Offsets of the snapshot files in `dir`, ascending. */
export function listSnapshots(fs: FileSystem, dir: string, names: readonly string[] = fs.readdir(dir)): bigint[] {
  const out: bigint[] = [];
  for (const name of names) {
    const offset = parseSnapshotFileName(name);
    if (offset !== null) out.push(offset);
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** What a snapshot file holds. */
export interface ProducerSnapshot {
  entries: ProducerEntry[];
  unreplicated: UnreplicatedTxn[];
}

export function encodeSnapshot(offset: bigint, entries: Iterable<ProducerEntry>, unreplicated: readonly UnreplicatedTxn[] = []): Buffer {
  const list = [...entries];
  let size = HEADER_BYTES + 4 + unreplicated.length * UNREPLICATED_BYTES;
  for (const e of list) size += ENTRY_BYTES + e.batches.length * BATCH_BYTES;
  const buf = Buffer.alloc(size);
  let p = 0;
  p = buf.writeInt16BE(SNAPSHOT_VERSION, p);
  p += 4; // CRC, below
  p = buf.writeBigInt64BE(offset, p);
  p = buf.writeInt32BE(list.length, p);
  for (const e of list) {
    p = buf.writeBigInt64BE(e.producerId, p);
    p = buf.writeInt16BE(e.epoch, p);
    p = buf.writeBigInt64BE(e.lastTimestampMs, p);
    p = buf.writeBigInt64BE(BigInt(e.lastAppendMs), p);
    p = buf.writeBigInt64BE(e.currentTxnFirstOffset, p);
    p = buf.writeInt32BE(e.coordinatorEpoch, p);
    p = buf.writeInt8(e.batches.length, p);
    for (const b of e.batches) {
      p = buf.writeInt32BE(b.firstSeq, p);
      p = buf.writeInt32BE(b.lastSeq, p);
      p = buf.writeBigInt64BE(b.firstOffset, p);
      p = buf.writeInt32BE(Number(b.lastOffset - b.firstOffset), p);
      p = buf.writeBigInt64BE(b.timestampMs, p);
    }
  }
  p = buf.writeInt32BE(unreplicated.length, p);
  for (const t of unreplicated) {
    p = buf.writeBigInt64BE(t.firstOffset, p);
    p = buf.writeBigInt64BE(t.markerOffset, p);
  }
  buf.writeUInt32BE(crc32c(buf.subarray(CRC_FROM)) >>> 0, 2);
  return buf;
}

/** Decodes and validates a snapshot; a string says why it is unusable. */
export function decodeSnapshot(buf: Buffer, expectedOffset: bigint): ProducerSnapshot | string {
  if (buf.length < HEADER_BYTES) return `${buf.length} bytes, shorter than the header`;
  const version = buf.readInt16BE(0);
  if (version !== SNAPSHOT_VERSION && version !== SNAPSHOT_VERSION_NO_UNREPLICATED && version !== SNAPSHOT_VERSION_NO_TXN) return `unknown version ${version}`;
  const entryBytes = version === SNAPSHOT_VERSION_NO_TXN ? ENTRY_BYTES_V1 : ENTRY_BYTES;
  if ((crc32c(buf.subarray(CRC_FROM)) >>> 0) !== buf.readUInt32BE(2)) return 'CRC mismatch';
  const offset = buf.readBigInt64BE(6);
  if (offset !== expectedOffset) return `holds offset ${offset}, its name says ${expectedOffset}`;
  const count = buf.readInt32BE(14);
  if (count < 0) return `negative producer count ${count}`;
  const out: ProducerEntry[] = [];
  const seen = new Set<bigint>();
  let p = HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (p + entryBytes > buf.length) return `truncated at producer ${i}`;
    const producerId = buf.readBigInt64BE(p);
    const epoch = buf.readInt16BE(p + 8);
    const lastTimestampMs = buf.readBigInt64BE(p + 10);
    const lastAppendMs = Number(buf.readBigInt64BE(p + 18));
    const txn = entryBytes === ENTRY_BYTES;
    const currentTxnFirstOffset = txn ? buf.readBigInt64BE(p + 26) : -1n;
    const coordinatorEpoch = txn ? buf.readInt32BE(p + 34) : -1;
    const batchCount = buf.readInt8(p + entryBytes - 1);
    p += entryBytes;
    if (producerId < 0n || seen.has(producerId)) return `bad or repeated producer id ${producerId}`;
    if (currentTxnFirstOffset < -1n || currentTxnFirstOffset >= offset) return `bad open transaction offset ${currentTxnFirstOffset} for producer ${producerId}`;
    if (coordinatorEpoch < -1) return `bad coordinator epoch ${coordinatorEpoch} for producer ${producerId}`;
    if (epoch < 0 || epoch > EPOCH_MAX) return `bad epoch ${epoch} for producer ${producerId}`;
    if (batchCount < 0 || batchCount > BATCHES_RETAINED) return `bad batch count ${batchCount} for producer ${producerId}`;
    if (!Number.isSafeInteger(lastAppendMs)) return `bad append time for producer ${producerId}`;
    if (p + batchCount * BATCH_BYTES > buf.length) return `truncated in producer ${producerId}'s batches`;
    const batches: BatchMetadata[] = [];
    for (let j = 0; j < batchCount; j++) {
      const firstSeq = buf.readInt32BE(p);
      const lastSeq = buf.readInt32BE(p + 4);
      const firstOffset = buf.readBigInt64BE(p + 8);
      const delta = buf.readInt32BE(p + 16);
      const timestampMs = buf.readBigInt64BE(p + 20);
      p += BATCH_BYTES;
      if (firstSeq < 0 || lastSeq < 0 || firstSeq > SEQUENCE_MAX || delta < 0 || firstOffset < 0n || firstOffset + BigInt(delta) >= offset) {
        return `bad batch ${j} of producer ${producerId}`;
      }
      batches.push({ firstSeq, lastSeq, firstOffset, lastOffset: firstOffset + BigInt(delta), timestampMs });
    }
    seen.add(producerId);
    out.push({ producerId, epoch, batches, lastTimestampMs, lastAppendMs, currentTxnFirstOffset, coordinatorEpoch });
  }
  const unreplicated: UnreplicatedTxn[] = [];
  if (version === SNAPSHOT_VERSION) {
    if (p + 4 > buf.length) return 'truncated before the unreplicated transactions';
    const n = buf.readInt32BE(p);
    p += 4;
    if (n < 0 || p + n * UNREPLICATED_BYTES > buf.length) return `bad unreplicated transaction count ${n}`;
    for (let i = 0; i < n; i++) {
      const firstOffset = buf.readBigInt64BE(p);
      const markerOffset = buf.readBigInt64BE(p + 8);
      p += UNREPLICATED_BYTES;
      const prev = unreplicated[unreplicated.length - 1];
      if (firstOffset < 0n || markerOffset <= firstOffset || markerOffset >= offset || (prev !== undefined && firstOffset <= prev.firstOffset)) {
        return `bad unreplicated transaction ${firstOffset}..${markerOffset}`;
      }
      unreplicated.push({ firstOffset, markerOffset });
    }
  }
  if (p !== buf.length) return `${buf.length - p} bytes after the ${version === SNAPSHOT_VERSION ? 'unreplicated transactions' : 'last producer'}`;
  return { entries: out, unreplicated };
}

export function writeSnapshot(fs: FileSystem, dir: string, offset: bigint, snapshot: ProducerSnapshot): void {
  fs.writeFileAtomic(join(dir, snapshotFileName(offset)), encodeSnapshot(offset, snapshot.entries, snapshot.unreplicated));
}

/** writeSnapshot with the fsyncs off the event loop (FileSystem.writeFileAtomicAsync: never rejects). */
export function writeSnapshotAsync(fs: FileSystem, dir: string, offset: bigint, snapshot: ProducerSnapshot): Promise<void> {
  return fs.writeFileAtomicAsync(join(dir, snapshotFileName(offset)), encodeSnapshot(offset, snapshot.entries, snapshot.unreplicated));
}

export function readSnapshot(fs: FileSystem, dir: string, offset: bigint): ProducerSnapshot | string {
  return decodeSnapshot(fs.readFile(join(dir, snapshotFileName(offset))), offset);
}

export function deleteSnapshot(fs: FileSystem, dir: string, offset: bigint): void {
  fs.rmrf(join(dir, snapshotFileName(offset)));
}

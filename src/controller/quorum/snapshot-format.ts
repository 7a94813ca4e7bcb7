/**
 * Byte formats of the networked metadata quorum: the snapshot payload Raft
 * carries opaquely (`RaftSnapshot.data`), the snapshot checkpoint file, the
 * leader-change control batch, and offset translation helpers.
 *
 * Offsets: the Raft core counts ENTRIES (one entry = one record batch of the
 * metadata log); the metadata log on disk and `MetadataBatch` count RECORDS,
 * as Kafka does. A snapshot therefore records both: the entry offset Raft
 * uses (`endOffset` in its name inside the file header) and the record offset
 * the next batch gets (`nextRecordOffset`, in its payload, so a follower that
 * installs it over the wire knows where its log restarts).
 *
 * Snapshot payload (`RaftSnapshot.data`):
 *   int8  version (1)
 *   int64 nextRecordOffset   record offset after the last record the snapshot covers
 *   int64 lastRecordOffset   image.lastAppliedOffset at the snapshot (-1 when empty)
 *   ...   record batches      uncompressed metadata batches that rebuild the image
 *
 * Checkpoint file `<20-digit nextRecordOffset>-<10-digit epoch>.checkpoint`
 * (KRaft's naming) in `__cluster_metadata-0/`:
 *   4 bytes magic "TRSN" | int8 version (1) | int64 entry endOffset | int32 epoch
 *   | int32 payload length | uint32 crc32c(payload) | payload
 * written with writeFileAtomic (temp file, fsync, rename): whole or absent.
 */
import { crc32c } from '@node-rs/crc32';
import { buildRecordBatchSync, splitBatches } from '../../protocol/record-batch/index.js';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { decodeMetadataBatch, encodeMetadataBatch, METADATA_BATCH_RECORDS_MAX } from '../metadata/batch.js';
import type { MetadataRecord } from '../metadata/records.js';

export const SNAPSHOT_PAYLOAD_VERSION = 1;
const SNAPSHOT_PAYLOAD_HEADER_BYTES = 17;
export const SNAPSHOT_FILE_SUFFIX = '.checkpoint';
const FILE_MAGIC = Buffer.from('TRSN', 'latin1');
const FILE_VERSION = 1;
const FILE_HEADER_BYTES = 4 + 1 + 8 + 4 + 4 + 4;

/** KRaft's control record type for LeaderChangeMessage. */
export const LEADER_CHANGE_CONTROL_TYPE = 2;

export interface SnapshotPayload {
  readonly nextRecordOffset: bigint;
  readonly lastRecordOffset: bigint;
  readonly records: readonly MetadataRecord[];
}

export function encodeSnapshotPayload(p: SnapshotPayload, timestampMs: number): Buffer {
  const header = Buffer.alloc(SNAPSHOT_PAYLOAD_HEADER_BYTES);
  header.writeInt8(SNAPSHOT_PAYLOAD_VERSION, 0);
  header.writeBigInt64BE(p.nextRecordOffset, 1);
  header.writeBigInt64BE(p.lastRecordOffset, 9);
  const parts: Buffer[] = [header];
  for (let i = 0; i < p.records.length; i += METADATA_BATCH_RECORDS_MAX) {
    parts.push(encodeMetadataBatch(p.records.slice(i, i + METADATA_BATCH_RECORDS_MAX), { timestampMs }));
  }
  return Buffer.concat(parts);
}

/** Only the header (cheap): where the log restarts after this snapshot. */
export function snapshotNextRecordOffset(data: Uint8Array): bigint {
  if (data.length < SNAPSHOT_PAYLOAD_HEADER_BYTES || data[0] !== SNAPSHOT_PAYLOAD_VERSION) throw new DecodeError('snapshot payload: bad header');
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigInt64BE(1);
}

/** Decodes the payload (every batch CRC-checked); malformed bytes throw DecodeError. */
export function decodeSnapshotPayload(data: Uint8Array): SnapshotPayload {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const nextRecordOffset = snapshotNextRecordOffset(buf);
  const lastRecordOffset = buf.readBigInt64BE(9);
  const body = buf.subarray(SNAPSHOT_PAYLOAD_HEADER_BYTES);
  const batches = splitBatches(body);
  const whole = batches.reduce((n, b) => n + b.length, 0);
  if (whole !== body.length) throw new DecodeError(`snapshot payload: ${body.length - whole} trailing bytes`);
  const records: MetadataRecord[] = [];
  for (const b of batches) records.push(...decodeMetadataBatch(b).records);
  if (lastRecordOffset >= nextRecordOffset || nextRecordOffset < 0n) throw new DecodeError('snapshot payload: offsets out of order');
  return { nextRecordOffset, lastRecordOffset, records };
}

export function snapshotFileName(nextRecordOffset: bigint, epoch: number): string {
  return `${nextRecordOffset.toString().padStart(20, '0')}-${String(epoch).padStart(10, '0')}${SNAPSHOT_FILE_SUFFIX}`;
}

export function parseSnapshotFileName(name: string): { nextRecordOffset: bigint; epoch: number } | null {
  const m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(name);
  if (m === null) return null;
  return { nextRecordOffset: BigInt(m[1] as string), epoch: Number(m[2]) };
}

export interface SnapshotFile {
  readonly endOffset: number;
  readonly epoch: number;
  readonly data: Buffer;
}

export function encodeSnapshotFile(s: { endOffset: number; epoch: number; data: Uint8Array }): Buffer {
  const header = Buffer.alloc(FILE_HEADER_BYTES);
  FILE_MAGIC.copy(header, 0);
  header.writeInt8(FILE_VERSION, 4);
  header.writeBigInt64BE(BigInt(s.endOffset), 5);
  header.writeInt32BE(s.epoch, 13);
  header.writeInt32BE(s.data.length, 17);
  header.writeUInt32BE(crc32c(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength)) >>> 0, 21);
  return Buffer.concat([header, Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength)]);
}

/** Parses a checkpoint file; a damaged one is a string saying why (the caller ignores it). */
export function decodeSnapshotFile(buf: Buffer): SnapshotFile | string {
  if (buf.length < FILE_HEADER_BYTES || !buf.subarray(0, 4).equals(FILE_MAGIC)) return 'not a snapshot file';
  if (buf.readInt8(4) !== FILE_VERSION) return `unknown snapshot file version ${buf.readInt8(4)}`;
  const endOffset = Number(buf.readBigInt64BE(5));
  const epoch = buf.readInt32BE(13);
  const length = buf.readInt32BE(17);
  if (length !== buf.length - FILE_HEADER_BYTES) return `payload is ${buf.length - FILE_HEADER_BYTES} bytes, header says ${length}`;
  const data = buf.subarray(FILE_HEADER_BYTES);
  if ((crc32c(data) >>> 0) !== buf.readUInt32BE(21)) return 'payload CRC mismatch';
  if (!Number.isSafeInteger(endOffset) || endOffset < 0 || epoch < 0) return 'bad snapshot id';
  return { endOffset, epoch, data };
}

/**
 * KRaft's LeaderChangeMessage as a control batch: key = int16 version 0,
 * int16 type 2; value = int16 version 0, then the flexible v0 message
 * (version int16, leaderId int32, voters [voterId], grantingVoters [voterId]).
 */
export function buildLeaderChangeBatch(epoch: number, leaderId: number, voters: readonly number[], timestampMs: number): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(LEADER_CHANGE_CONTROL_TYPE, 2);
  const value = Buffer.alloc(2 + 2 + 4 + 1 + voters.length * 5 + 1 + 1);
  let p = 0;
  p = value.writeInt16BE(0, p);
  p = value.writeInt16BE(0, p);
  p = value.writeInt32BE(leaderId, p);
  value[p++] = voters.length + 1; // compact array length (voter sets stay far below 127)
  for (const v of voters) {
    p = value.writeInt32BE(v, p);
    value[p++] = 0; // no tagged fields
  }
  value[p++] = 1; // grantingVoters: empty
  value[p++] = 0;
  return buildRecordBatchSync({ records: [{ key, value }], isControl: true, partitionLeaderEpoch: epoch, timestampMs });
}

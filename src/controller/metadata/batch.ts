/**
 * Metadata records <-> v2 record batches. One `MetadataLog.append` is one
 * batch, so a batch is the unit of atomicity: it is committed, replayed and
 * applied to the image whole or not at all.
 *
 * Batches are uncompressed (metadata is small and rare) and carry no producer
 * id. Every record has a null key and the framed record as its value.
 */
import { buildRecordBatchSync, decodeRecordBatchSync, isControlBatch, lastOffsetOf } from '../../protocol/record-batch/index.js';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { decodeMetadataRecord, encodeMetadataRecord, type MetadataRecord } from './records.js';

/** Most records one append may carry (Kafka's MAX_RECORDS_PER_USER_OP is 10000). */
export const METADATA_BATCH_RECORDS_MAX = 10_000;

export interface MetadataBatchOptions {
  /** Written into the header; the log assigns the real base offset on append. */
  baseOffset?: bigint;
  /** Raft epoch of the leader that wrote it (partitionLeaderEpoch field). */
  epoch?: number;
  /** Batch timestamp; the caller's Clock, never Date.now() here. */
  timestampMs: number;
}

export function encodeMetadataBatch(records: readonly MetadataRecord[], options: MetadataBatchOptions): Buffer {
  if (records.length === 0) throw new RangeError('a metadata batch needs at least one record');
  if (records.length > METADATA_BATCH_RECORDS_MAX) {
    throw new RangeError(`a metadata batch holds at most ${METADATA_BATCH_RECORDS_MAX} records, not ${records.length}`);
  }
  return buildRecordBatchSync({
    records: records.map((r) => ({ key: null, value: encodeMetadataRecord(r) })),
    baseOffset: options.baseOffset ?? 0n,
    partitionLeaderEpoch: options.epoch ?? 0,
    timestampMs: options.timestampMs,
  });
}

/** A batch of committed metadata records, as the log hands it to its listener. */
export interface MetadataBatch {
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  /** Raft epoch of the leader that wrote the batch. */
  readonly epoch: number;
  readonly timestampMs: bigint;
  readonly records: readonly MetadataRecord[];
}

/** Decodes one whole batch (CRC checked); anything malformed is a DecodeError. */
export function decodeMetadataBatch(buf: Buffer): MetadataBatch {
  const { header, records } = decodeRecordBatchSync(buf);
  const base = {
    baseOffset: header.baseOffset,
    lastOffset: lastOffsetOf(header),
    epoch: header.partitionLeaderEpoch,
    timestampMs: header.baseTimestamp,
  };
  // Raft control batches (leader change, snapshot markers) carry no metadata;
  // they still take offsets, so the image's last applied offset moves past them.
  if (isControlBatch(header.attributes)) return { ...base, records: [] };
  if (records.length !== header.lastOffsetDelta + 1) {
    throw new DecodeError(`metadata batch at ${header.baseOffset} has ${records.length} records but lastOffsetDelta ${header.lastOffsetDelta}`);
  }
  const decoded = records.map((r, i) => {
    if (r.offsetDelta !== i) throw new DecodeError(`metadata batch at ${header.baseOffset} has a gap at offset delta ${i}`);
    if (r.value === null) throw new DecodeError(`metadata record at ${header.baseOffset + BigInt(i)} has a null value`);
    return decodeMetadataRecord(r.value).record;
  });
  return { ...base, records: decoded };
}

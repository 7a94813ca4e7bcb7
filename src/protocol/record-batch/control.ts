/**
 * Reading a transaction marker (the EndTransactionMarker of KIP-98) straight
 * out of a stored control batch: the one place the broker looks inside a
 * batch on its append path, because the marker's type (commit or abort) and
 * coordinator epoch decide the partition's transaction state. Control
 * batches are uncompressed and hold one small record, so this is a few
 * varints. Bytes come from the network or the disk: problems come back as a
 * string, never a throw.
 */
import { DecodeError } from '../primitives/decode-error.js';
import { parseControlRecord, ControlRecordType } from './builder.js';
import { ATTR_COMPRESSION_MASK, ATTR_CONTROL, BATCH_HEADER_BYTES, Offsets, batchSizeAt } from './header.js';
import { readRecord } from './record.js';

/** A commit or abort marker as written by the transaction coordinator. */
export interface TxnMarker {
  /** ControlRecordType.Commit or ControlRecordType.Abort. */
  readonly type: typeof ControlRecordType.Commit | typeof ControlRecordType.Abort;
  readonly coordinatorEpoch: number;
}

/**
 * The marker of the control batch at `pos` (the whole batch must be in
 * `buf`); null for a control batch of another type (Kafka reserves other
 * control types, e.g. KRaft's, which carry no transaction state); a string
 * when the bytes do not hold a readable marker.
 */
export function readTxnMarker(buf: Buffer, pos: number): TxnMarker | null | string {
  const attributes = buf.readInt16BE(pos + Offsets.attributes);
  if ((attributes & ATTR_CONTROL) === 0) return 'not a control batch';
  if ((attributes & ATTR_COMPRESSION_MASK) !== 0) return 'a compressed control batch';
  const end = pos + batchSizeAt(buf, pos);
  if (end > buf.length) return 'control batch cut short';
  if (buf.readInt32BE(pos + Offsets.recordsCount) < 1) return 'control batch without a record';
  try {
    const record = readRecord(buf, { position: pos + BATCH_HEADER_BYTES }, end);
    const control = parseControlRecord(record.key, record.value);
    if (control.type !== ControlRecordType.Abort && control.type !== ControlRecordType.Commit) return null;
    return { type: control.type, coordinatorEpoch: control.coordinatorEpoch as number };
  } catch (err) {
    if (err instanceof DecodeError) return `unreadable control record: ${err.message}`;
    throw err;
  }
}

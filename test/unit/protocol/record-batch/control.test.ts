/**
 * readTxnMarker: the transaction marker read straight from a stored control
 * batch (the broker's only look inside a batch on its append path). Bytes
 * from the network or disk: every malformed case is a string, never a throw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildControlBatch, buildRecordBatchSync, ControlRecordType } from '../../../../src/protocol/record-batch/builder.js';
import { readTxnMarker } from '../../../../src/protocol/record-batch/control.js';
import { ATTR_CONTROL, Offsets } from '../../../../src/protocol/record-batch/header.js';

const markerBatch = (type: ControlRecordType, coordinatorEpoch: number): Buffer =>
  buildControlBatch({ type, producerId: 9n, producerEpoch: 1, coordinatorEpoch, timestampMs: 1 });

test('reads commit and abort markers, also inside a larger buffer', () => {
  assert.deepEqual(readTxnMarker(markerBatch(ControlRecordType.Commit, 12), 0), { type: ControlRecordType.Commit, coordinatorEpoch: 12 });
  const two = Buffer.concat([buildRecordBatchSync({ records: [{ value: 'x' }], timestampMs: 1 }), markerBatch(ControlRecordType.Abort, 3)]);
  const at = two.length - markerBatch(ControlRecordType.Abort, 3).length;
  assert.deepEqual(readTxnMarker(two, at), { type: ControlRecordType.Abort, coordinatorEpoch: 3 });
});

test('other control types carry no marker; malformed batches are reported, not thrown', () => {
  const other = markerBatch(ControlRecordType.Commit, 0);
  const keyAt = other.indexOf(Buffer.from([0, 0, 0, 1]), 61);
  other.writeInt16BE(5, keyAt + 2); // control type 5 (not a transaction marker)
  assert.equal(readTxnMarker(other, 0), null);
  assert.equal(typeof readTxnMarker(buildRecordBatchSync({ records: [{ value: 'x' }], timestampMs: 1 }), 0), 'string', 'not a control batch');
  const full = markerBatch(ControlRecordType.Abort, 1);
  assert.equal(typeof readTxnMarker(full.subarray(0, full.length - 3), 0), 'string', 'cut short');
  const compressed = Buffer.from(full);
  compressed.writeInt16BE(ATTR_CONTROL | 1, Offsets.attributes);
  assert.equal(typeof readTxnMarker(compressed, 0), 'string');
  for (let i = 61; i < full.length; i++) {
    const bad = Buffer.from(full);
    bad[i] = 0xff;
    const r = readTxnMarker(bad, 0);
    assert.ok(r === null || typeof r === 'string' || typeof r.coordinatorEpoch === 'number', `byte ${i}`);
  }
});

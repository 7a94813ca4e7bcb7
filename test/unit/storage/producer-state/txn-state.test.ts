/**
 * Transaction state in the producer state (Kafka's ProducerStateManager and
 * ProducerAppendInfo for transactional batches and markers): open and close,
 * the LSO after an abort, marker fencing by producer and coordinator epoch,
 * expiry, and the v3 snapshot (and v1 and v2 files still read).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControlRecordType } from '../../../../src/protocol/record-batch/builder.js';
import { ProducerStateManager, type AppliedBatch } from '../../../../src/storage/producer-state/producer-state.js';
import { decodeSnapshot, encodeSnapshot } from '../../../../src/storage/producer-state/snapshot.js';

function data(producerId: bigint, firstOffset: bigint, transactional = true, epoch = 0, baseSequence = 0): AppliedBatch {
  return { producerId, epoch, baseSequence, lastOffsetDelta: 0, firstOffset, maxTimestampMs: 1n, control: false, transactional, marker: null };
}

function end(producerId: bigint, offset: bigint, commit: boolean, coordinatorEpoch = 0, epoch = 0): AppliedBatch {
  const type = commit ? ControlRecordType.Commit : ControlRecordType.Abort;
  return { producerId, epoch, baseSequence: -1, lastOffsetDelta: 0, firstOffset: offset, maxTimestampMs: 1n, control: true, transactional: true, marker: { type, coordinatorEpoch } };
}

describe('producer state: transactions', () => {
  it('a transactional batch opens a transaction at its offset; later ones continue it; a marker closes it', () => {
    const s = new ProducerStateManager();
    assert.equal(s.apply(data(1n, 0n), 0), null);
    assert.equal(s.apply(data(2n, 1n), 0), null);
    assert.equal(s.apply(data(1n, 2n, true, 0, 1), 0), null);
    assert.deepEqual(s.openTransactions(), [{ producerId: 1n, firstOffset: 0n }, { producerId: 2n, firstOffset: 1n }]);
    const done = s.apply(end(1n, 3n, false, 5), 0);
    assert.deepEqual(done, { producerId: 1n, firstOffset: 0n, lastOffset: 3n, aborted: true });
    assert.equal(s.lastStableOffsetAfter(done as NonNullable<typeof done>), 1n, 'producer 2 is still open');
    assert.equal(s.get(1n)?.coordinatorEpoch, 5);
    assert.equal(s.apply(end(2n, 4n, true), 0)?.aborted, false);
    s.onHighWatermarkUpdated(5n);
    assert.equal(s.firstUnstableOffset(), null);
  });

  it('non-transactional batches and markers without an open transaction change no transaction', () => {
    const s = new ProducerStateManager();
    s.apply(data(1n, 0n, false), 0);
    assert.equal(s.firstUnstableOffset(), null);
    assert.equal(s.apply(end(1n, 1n, true), 0), null, 'a retried marker closes nothing');
  });

  it('the first unstable offset covers closed transactions until their marker is below the high watermark', () => {
    const s = new ProducerStateManager();
    s.apply(data(1n, 10n), 0);
    s.apply(end(1n, 11n, true), 0);
    assert.equal(s.firstUnstableOffset(), 10n);
    s.onHighWatermarkUpdated(11n);
    assert.equal(s.firstUnstableOffset(), 10n, 'the marker at 11 is not below 11');
    s.onHighWatermarkUpdated(12n);
    assert.equal(s.firstUnstableOffset(), null);
  });

  it('refuses markers with an older producer epoch or an older coordinator epoch', () => {
    const s = new ProducerStateManager();
    assert.equal(s.checkMarker(1n, 0, 0), null, 'an unknown producer takes any marker');
    s.apply(data(1n, 0n, true, 3), 0);
    s.apply(end(1n, 1n, true, 7, 3), 0);
    assert.equal(s.checkMarker(1n, 2, 7)?.error, 'invalid_producer_epoch');
    assert.equal(s.checkMarker(1n, 3, 6)?.error, 'coordinator_fenced');
    assert.equal(s.checkMarker(1n, 3, 7), null);
    assert.equal(s.checkMarker(1n, 4, 8), null);
  });

  it('a producer with an open transaction never expires', () => {
    const s = new ProducerStateManager();
    s.apply(data(1n, 0n), 0);
    s.apply(data(2n, 1n, false), 0);
    assert.equal(s.removeExpired(1_000_000, 10), 1);
    assert.equal(s.get(1n)?.currentTxnFirstOffset, 0n);
  });

  it('snapshots carry open transactions and coordinator epochs; v1 files still load', () => {
    const s = new ProducerStateManager();
    s.apply(data(1n, 0n), 0);
    s.apply(data(2n, 1n), 0);
    s.apply(end(2n, 2n, false, 9), 0);
    const buf = encodeSnapshot(3n, s.entries(), s.unreplicatedTransactions());
    const back = decodeSnapshot(buf, 3n);
    assert.ok(typeof back !== 'string', String(back));
    const loaded = new ProducerStateManager();
    loaded.load(back.entries, back.unreplicated);
    assert.deepEqual(loaded.openTransactions(), [{ producerId: 1n, firstOffset: 0n }]);
    assert.equal(loaded.get(2n)?.coordinatorEpoch, 9);
    // A version 1 file (before transactions): the same layout without the 12 transaction bytes per producer.
    const v1 = v1Snapshot(3n, 42n, 4);
    const decoded = decodeSnapshot(v1, 3n);
    assert.ok(typeof decoded !== 'string', String(decoded));
    assert.deepEqual(decoded.unreplicated, []);
    assert.deepEqual(decoded.entries.map((e) => [e.producerId, e.epoch, e.currentTxnFirstOffset, e.coordinatorEpoch]), [[42n, 4, -1n, -1]]);
  });

  it('snapshots keep closed transactions whose marker is not replicated: after a restart they stay unstable until the high watermark passes the marker', () => {
    const s = new ProducerStateManager();
    s.apply(data(1n, 10n), 0);
    s.apply(end(1n, 12n, true), 0);
    s.apply(data(2n, 13n), 0);
    s.apply(end(2n, 14n, false), 0);
    s.onHighWatermarkUpdated(13n);
    assert.deepEqual(s.unreplicatedTransactions(), [{ firstOffset: 13n, markerOffset: 14n }]);
    s.apply(data(3n, 15n), 0);
    s.apply(end(3n, 16n, true), 0);
    const back = decodeSnapshot(encodeSnapshot(17n, s.entries(), s.unreplicatedTransactions()), 17n);
    assert.ok(typeof back !== 'string', String(back));
    const loaded = new ProducerStateManager();
    loaded.load(back.entries, back.unreplicated);
    // Without them a restarted leader would let the cleaner compact with the
    // transaction at 13 while a truncation may still turn its commit into an abort.
    assert.equal(loaded.firstUnstableOffset(), 13n);
    loaded.onHighWatermarkUpdated(15n);
    assert.equal(loaded.firstUnstableOffset(), 15n);
    loaded.onHighWatermarkUpdated(17n);
    assert.equal(loaded.firstUnstableOffset(), null);
  });

  it('refuses a snapshot whose open transaction is not below its offset', () => {
    const s = new ProducerStateManager();
    s.apply(data(1n, 5n), 0);
    assert.equal(typeof decodeSnapshot(encodeSnapshot(5n, s.entries()), 5n), 'string');
  });
});

/** Hand-written version 1 snapshot with one producer and no batches. */
function v1Snapshot(offset: bigint, producerId: bigint, epoch: number): Buffer {
  const buf = Buffer.alloc(18 + 27);
  buf.writeInt16BE(1, 0);
  buf.writeBigInt64BE(offset, 6);
  buf.writeInt32BE(1, 14);
  buf.writeBigInt64BE(producerId, 18);
  buf.writeInt16BE(epoch, 26);
  buf.writeBigInt64BE(-1n, 28);
  buf.writeBigInt64BE(7n, 36);
  buf.writeInt8(0, 44);
  // CRC-32C over everything after the CRC field, as the decoder checks.
  buf.writeUInt32BE(crc(buf.subarray(6)), 2);
  return buf;
}

import { crc32c } from '@node-rs/crc32';
function crc(b: Buffer): number {
  return crc32c(b) >>> 0;
}

/**
 * The pgoutput decoder on bytes captured from PostgreSQL 15 (a slot read
 * with proto_version 1 after: an insert of two rows into t(id int pk, name
 * text, n numeric(6,2)), an update, an update of the key, a delete; then on
 * f(k text pk, v int) with REPLICA IDENTITY FULL an insert, update, delete
 * and a truncate), the stream framing ('w', 'k', 'r') and LSN text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePgOutput, decodeStreamMessage, encodeStandbyStatus, formatLsn, parseLsn, PG_EPOCH_OFFSET_US } from '../../../../src/connect/postgres/pgoutput.js';

const hex = (h: string): Buffer => Buffer.from(h, 'hex');

test('Begin and Commit: LSNs, xid, commit time since 1970', () => {
  assert.deepEqual(decodePgOutput(hex('42000000000150a5500003049b3c2eaa97000002d9')), { tag: 'begin', finalLsn: 0x150a550n, commitTimeUs: 0x3049b3c2eaa97n + PG_EPOCH_OFFSET_US, xid: 729 });
  assert.deepEqual(decodePgOutput(hex('4300000000000150a550000000000150a5800003049b3c2eaa97')), { tag: 'commit', flags: 0, commitLsn: 0x150a550n, endLsn: 0x150a580n, commitTimeUs: 0x3049b3c2eaa97n + PG_EPOCH_OFFSET_US });
  // 2026-12-02T01:21:46.265Z: the capture's wall clock, a sanity check of the epoch shift.
  assert.equal(new Date(Number((0x3049b3c2eaa97n + PG_EPOCH_OFFSET_US) / 1000n)).getUTCFullYear(), 2026);
});

test('Relation: namespace, name, replica identity, columns with key flags, types and typmods', () => {
  assert.deepEqual(decodePgOutput(hex('52000040007075626c69630074006400030169640000000017ffffffff006e616d650000000019ffffffff006e00000006a400060006')), {
    tag: 'relation',
    relationId: 16384,
    namespace: 'public',
    name: 't',
    replicaIdentity: 'd',
    columns: [
      { name: 'id', typeOid: 23, typmod: -1, isKey: true },
      { name: 'name', typeOid: 25, typmod: -1, isKey: false },
      { name: 'n', typeOid: 1700, typmod: (6 << 16) + 2 + 4, isKey: false },
    ],
  });
  const full = decodePgOutput(hex('52000040077075626c6963006600660002016b0000000019ffffffff01760000000017ffffffff'));
  assert.equal(full.tag === 'relation' && full.replicaIdentity, 'f');
});

test('Insert: text and null columns', () => {
  assert.deepEqual(decodePgOutput(hex('49000040004e00037400000001326e74000000052d332e3030')), {
    tag: 'insert',
    relationId: 16384,
    newTuple: [{ kind: 'text', text: '2' }, { kind: 'null' }, { kind: 'text', text: '-3.00' }],
  });
});

test('Update: without old row, with the old key (K), with the full old row (O)', () => {
  const plain = decodePgOutput(hex('55000040004e00037400000001317400000001627400000004312e3530'));
  assert.deepEqual(plain, { tag: 'update', relationId: 16384, keyTuple: null, oldTuple: null, newTuple: [{ kind: 'text', text: '1' }, { kind: 'text', text: 'b' }, { kind: 'text', text: '1.50' }] });
  const keyChange = decodePgOutput(hex('55000040004b00037400000001326e6e4e00037400000001336e74000000052d332e3030'));
  assert.deepEqual(keyChange, { tag: 'update', relationId: 16384, keyTuple: [{ kind: 'text', text: '2' }, { kind: 'null' }, { kind: 'null' }], oldTuple: null, newTuple: [{ kind: 'text', text: '3' }, { kind: 'null' }, { kind: 'text', text: '-3.00' }] });
  const full = decodePgOutput(hex('55000040074f00027400000001787400000001314e0002740000000178740000000132'));
  assert.deepEqual(full, { tag: 'update', relationId: 16391, keyTuple: null, oldTuple: [{ kind: 'text', text: 'x' }, { kind: 'text', text: '1' }], newTuple: [{ kind: 'text', text: 'x' }, { kind: 'text', text: '2' }] });
});

test('Delete: by key (K) and by full old row (O)', () => {
  assert.deepEqual(decodePgOutput(hex('44000040004b00037400000001316e6e')), { tag: 'delete', relationId: 16384, keyTuple: [{ kind: 'text', text: '1' }, { kind: 'null' }, { kind: 'null' }], oldTuple: null });
  assert.deepEqual(decodePgOutput(hex('44000040074f0002740000000178740000000132')), { tag: 'delete', relationId: 16391, keyTuple: null, oldTuple: [{ kind: 'text', text: 'x' }, { kind: 'text', text: '2' }] });
});

test('Truncate: relation ids and options', () => {
  assert.deepEqual(decodePgOutput(hex('54000000010000004007')), { tag: 'truncate', cascade: false, restartIdentity: false, relationIds: [16391] });
  assert.deepEqual(decodePgOutput(hex('54000000020300004007000040aa')), { tag: 'truncate', cascade: true, restartIdentity: true, relationIds: [16391, 16554] });
});

test('unchanged TOAST columns, Origin, Type and Message', () => {
  assert.deepEqual(decodePgOutput(hex('49000040004e0002740000000131' + '75')), { tag: 'insert', relationId: 16384, newTuple: [{ kind: 'text', text: '1' }, { kind: 'unchanged' }] });
  assert.deepEqual(decodePgOutput(Buffer.concat([hex('4f0000000000000010'), Buffer.from('node_a\0')])), { tag: 'origin', lsn: 16n, name: 'node_a' });
  assert.deepEqual(decodePgOutput(Buffer.concat([hex('59000061a9'), Buffer.from('public\0mood\0')])), { tag: 'type', typeOid: 25001, namespace: 'public', name: 'mood' });
  assert.deepEqual(decodePgOutput(Buffer.concat([hex('4d010000000000000020'), Buffer.from('pfx\0'), hex('00000002'), Buffer.from('hi')])), { tag: 'message', transactional: true, lsn: 32n, prefix: 'pfx', content: Buffer.from('hi') });
});

test('malformed messages are errors, not garbage', () => {
  assert.throws(() => decodePgOutput(hex('5a')), /unknown message type 'Z'/);
  assert.throws(() => decodePgOutput(hex('49000040004e0001740000000a31')), /shorter than its lengths/);
  assert.throws(() => decodePgOutput(hex('49000040004e000178')), /unknown tuple column kind 'x'/);
  assert.throws(() => decodeStreamMessage(hex('7a00')), /unknown replication stream message type 0x7a/);
});

test('stream framing: XLogData and keepalive in, standby status update out', () => {
  const w = Buffer.concat([hex('77'), hex('0000000001000010'), hex('0000000001000020'), hex('0000000000000064'), hex('42')]);
  assert.deepEqual(decodeStreamMessage(w), { kind: 'xlog', walStart: 0x1000010n, walEnd: 0x1000020n, sendTimeUs: 100n + PG_EPOCH_OFFSET_US, data: hex('42') });
  const k = Buffer.concat([hex('6b'), hex('0000000001000020'), hex('0000000000000064'), hex('01')]);
  assert.deepEqual(decodeStreamMessage(k), { kind: 'keepalive', walEnd: 0x1000020n, sendTimeUs: 100n + PG_EPOCH_OFFSET_US, replyRequested: true });
  const r = encodeStandbyStatus(0x150a580n, PG_EPOCH_OFFSET_US + 5n);
  assert.equal(r.toString('hex'), '72' + '000000000150a580'.repeat(3) + '0000000000000005' + '00');
});

test('LSN text both ways', () => {
  assert.equal(formatLsn(0x16b3748n), '0/16B3748');
  assert.equal(formatLsn((0x2an << 32n) | 0xffn), '2A/FF');
  assert.equal(parseLsn('2A/FF'), (0x2an << 32n) | 0xffn);
  assert.equal(parseLsn(formatLsn(0n)), 0n);
  assert.throws(() => parseLsn('nope'), /not an LSN/);
});

/**
 * The pure parts between records and SQL or change events: the sink's
 * record → row operation rules (pk.mode, pk.fields, tombstones) and the CDC
 * change events built from decoded pgoutput messages (Debezium envelope,
 * key, before/after under replica identity DEFAULT and FULL, unchanged
 * TOAST values, excluded tables, truncates).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Schemas, Struct } from '../../../../src/connect/data/schema.js';
import type { SinkRecord } from '../../../../src/connect/spi.js';
import { ChangeEventBuilder, UNAVAILABLE_VALUE } from '../../../../src/connect/postgres/cdc-events.js';
import { decodePgOutput, type PgOutputMessage } from '../../../../src/connect/postgres/pgoutput.js';
import { rowOp, type SinkRowRules } from '../../../../src/connect/postgres/sink-rows.js';

const valueSchema = Schemas.struct([['id', Schemas.int32()], ['name', Schemas.string({ optional: true })]]);
const keySchema = Schemas.struct([['id', Schemas.int32()]]);

function rec(key: unknown, value: unknown, ks = key instanceof Struct ? keySchema : null): SinkRecord {
  return { topic: 'people', kafkaPartition: 0, kafkaOffset: 7n, timestampType: 'CreateTime', keySchema: ks, key, valueSchema: value instanceof Struct ? valueSchema : null, value, timestamp: null, headers: [] };
}
const rules = (r: Partial<SinkRowRules>): SinkRowRules => ({ tableFormat: 'crm.${topic}', pkMode: 'none', pkFields: [], upsert: false, deleteEnabled: false, ...r });
const names = (op: ReturnType<typeof rowOp>): string[] => op.columns.map((c) => c.name);

test('sink rows: pk.mode none, record_value, record_key with struct and primitive keys', () => {
  const v = new Struct(valueSchema).put('id', 1).put('name', 'ann');
  const plain = rowOp(rec(null, v), rules({}));
  assert.deepEqual([plain.table, plain.kind, names(plain), plain.pk], ['crm.people', 'insert', ['id', 'name'], []]);
  const byValue = rowOp(rec(null, v), rules({ pkMode: 'record_value', pkFields: ['id'], upsert: true }));
  assert.deepEqual([byValue.kind, names(byValue), byValue.pk], ['upsert', ['id', 'name'], ['id']]);
  assert.deepEqual(rowOp(rec(null, v), rules({ pkMode: 'record_value' })).pk, ['id', 'name'], 'default: every value field');
  const byKey = rowOp(rec(new Struct(keySchema).put('id', 9), v), rules({ pkMode: 'record_key' }));
  assert.deepEqual([names(byKey), byKey.columns[0]?.value], [['id', 'name'], 9], 'the key column comes from the key, not the value');
  const prim = rowOp(rec('k1', { n: 2 }, Schemas.string()), rules({ pkMode: 'record_key' }));
  assert.deepEqual([names(prim), prim.pk, prim.columns[1]?.schema], [['__connect_key', 'n'], ['__connect_key'], null]);
  assert.deepEqual(rowOp(rec('k1', { n: 2 }), rules({ pkMode: 'record_key', pkFields: ['code'] })).pk, ['code']);
});

test('sink rows: tombstones delete by key only when enabled; bad shapes are clear errors', () => {
  const del = rowOp(rec(new Struct(keySchema).put('id', 3), null), rules({ pkMode: 'record_key', deleteEnabled: true }));
  assert.deepEqual([del.kind, names(del), del.columns[0]?.value], ['delete', ['id'], 3]);
  assert.throws(() => rowOp(rec('k', null), rules({ pkMode: 'record_key' })), /needs delete.enabled=true/);
  assert.throws(() => rowOp(rec(null, { a: 1 }), rules({ pkMode: 'record_key' })), /pk.mode=record_key needs a record key/);
  assert.throws(() => rowOp(rec(null, 'text'), rules({})), /must be a struct or a map/);
  assert.throws(() => rowOp(rec(null, { a: 1 }), rules({ pkMode: 'record_value', pkFields: ['b'] })), /pk.fields names b/);
});

// Captured from PostgreSQL 15 (see pgoutput.test.ts): relation t(id int pk, name text, n numeric(6,2)), f(k text pk, v int) FULL.
const REL_T = decodePgOutput(Buffer.from('52000040007075626c69630074006400030169640000000017ffffffff006e616d650000000019ffffffff006e00000006a400060006', 'hex')) as Extract<PgOutputMessage, { tag: 'relation' }>;
const REL_F = decodePgOutput(Buffer.from('52000040077075626c6963006600660002016b0000000019ffffffff01760000000017ffffffff', 'hex')) as Extract<PgOutputMessage, { tag: 'relation' }>;
const ctx = { lsn: 0x150a600n, txId: 730, commitTimeUs: 1_700_000_000_123_456n, offset: { lsn: 1 } };
type Change = Extract<PgOutputMessage, { tag: 'insert' | 'update' | 'delete' }>;
const msg = (h: string): Change => decodePgOutput(Buffer.from(h, 'hex')) as Change;

function builder(include = (_: string): boolean => true): ChangeEventBuilder {
  const b = new ChangeEventBuilder('srv', 'postgres', include);
  b.relation(REL_T);
  b.relation(REL_F);
  return b;
}

test('change events: Debezium envelope, key, source block, delete then tombstone', () => {
  const b = builder();
  const [ins] = b.change(msg('49000040004e00037400000001317400000001617400000004312e3530'), ctx, true);
  assert.equal(ins?.topic, 'srv.public.t');
  assert.deepEqual([ins?.keySchema?.name, (ins?.key as Struct).get('id')], ['srv.public.t.Key', 1]);
  const env = ins?.value as Struct;
  assert.equal(ins?.valueSchema?.name, 'srv.public.t.Envelope');
  assert.deepEqual([env.get('op'), env.get('before')], ['c', null]);
  const after = env.get('after') as Struct;
  assert.deepEqual([after.get('id'), after.get('name'), (after.get('n') as Buffer).toString('hex')], [1, 'a', '0096'], '150 needs a sign byte');
  const source = env.get('source') as Struct;
  assert.deepEqual(['connector', 'name', 'db', 'schema', 'table', 'txId', 'lsn', 'ts_ms', 'snapshot'].map((f) => source.get(f)), ['postgresql', 'srv', 'postgres', 'public', 't', 730, 0x150a600, 1_700_000_000_123, 'false']);
  assert.deepEqual(ins?.sourcePartition, { server: 'srv' });
  const del = b.change(msg('44000040004b00037400000001316e6e'), ctx, true);
  assert.equal(del.length, 2);
  assert.deepEqual([(del[0]?.value as Struct).get('op'), ((del[0]?.value as Struct).get('before') as Struct).get('id'), ((del[0]?.value as Struct).get('before') as Struct).get('name')], ['d', 1, null]);
  assert.deepEqual([del[1]?.value, del[1]?.valueSchema, (del[1]?.key as Struct).get('id')], [null, null, 1]);
  assert.equal(b.change(msg('44000040004b00037400000001316e6e'), ctx, false).length, 1, 'tombstones.on.delete=false');
});

test('change events: FULL identity before rows, unchanged TOAST, excluded tables, truncates', () => {
  const b = builder((t) => t === 'public.f');
  const [upd] = b.change(msg('55000040074f00027400000001787400000001314e0002740000000178740000000132'), ctx, true);
  const env = upd?.value as Struct;
  assert.deepEqual([env.get('op'), (env.get('before') as Struct).get('v'), (env.get('after') as Struct).get('v')], ['u', 1, 2]);
  assert.deepEqual(b.change(msg('49000040004e00037400000001317400000001617400000004312e3530'), ctx, true), [], 'public.t is not included');
  const all = builder();
  const [toast] = all.change(msg('55000040004e0003740000000131757400000004312e3530'), ctx, true);
  assert.equal(((toast?.value as Struct).get('after') as Struct).get('name'), UNAVAILABLE_VALUE);
  const trunc = all.truncate({ tag: 'truncate', cascade: false, restartIdentity: false, relationIds: [16391] }, ctx);
  assert.deepEqual(trunc.map((r) => [r.topic, (r.value as Struct).get('op'), r.key]), [['srv.public.f', 't', null]]);
  assert.throws(() => all.change({ tag: 'insert', relationId: 1, newTuple: [] }, ctx, true), /relation 1 before describing it/);
});

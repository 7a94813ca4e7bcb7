/**
 * PostgresSinkConnector end to end: JSON envelopes (JsonConverter with
 * schemas) produced to a topic are written by the standalone worker to a
 * real PostgreSQL: inserts into an auto-created table, upserts by a struct
 * key with tombstones deleting and a new field evolving the table, keys from
 * the value or a primitive key, a batch that fails leaving no row behind,
 * and validation of pk.mode/delete.enabled.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer } from '../../../../src/client/index.js';
import { waitUntil } from '../../../helpers/topic-tail.js';
import { pgConnectFixture, rest, taskStatus, type PgConnectFixture } from './fixture.js';

let f: PgConnectFixture;

before(async () => {
  f = await pgConnectFixture();
});
after(() => f.close());

type FieldSpec = [string, string, boolean?];
function envelope(fields: FieldSpec[], payload: Record<string, unknown>, name?: string): string {
  const schema = { type: 'struct', optional: false, ...(name === undefined ? {} : { name }), fields: fields.map(([field, type, optional]) => ({ field, type, optional: optional ?? false })) };
  return JSON.stringify({ schema, payload });
}

async function produce(topic: string, records: { key: string | null; value: string | null }[]): Promise<void> {
  const producer = await Producer.connect<string | null, string | null>({ clusterOptions: { bootstrap: f.cluster.bootstrap, allowAutoTopicCreation: true }, lingerMs: 0 });
  try {
    await producer.sendBatch(records.map((r) => ({ topic, key: r.key, value: r.value })));
  } finally {
    await producer.close();
  }
}

function sink(name: string, topic: string, extra: Record<string, string>): Record<string, string> {
  return { name, 'connector.class': 'io.tributary.connect.postgres.PostgresSinkConnector', topics: topic, 'connection.url': f.pg.url, ...extra };
}

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await f.pg.sql(sql)).rows as Record<string, unknown>[];
}

test('insert: auto.create builds the table from the value schema, logical types included', async () => {
  const fields: FieldSpec[] = [['id', 'int32'], ['name', 'string'], ['score', 'double', true], ['ok', 'boolean', true], ['big', 'int64', true]];
  await produce('people', [
    { key: null, value: envelope(fields, { id: 1, name: 'ann', score: 1.5, ok: true, big: 9007199254740991 }) },
    { key: null, value: envelope(fields, { id: 2, name: 'bob', score: null, ok: null, big: null }) },
  ]);
  const worker = await f.worker([sink('ins', 'people', { 'auto.create': 'true' })], 'sink-ins');
  try {
    await waitUntil('two rows in people', async () => (await rows('SELECT to_regclass($$people$$) IS NOT NULL AS e'))[0]?.e === true && (await rows('SELECT count(*)::int AS n FROM people'))[0]?.n === 2);
    assert.deepEqual(await rows('SELECT id, name, score, ok, big::text FROM people ORDER BY id'), [
      { id: 1, name: 'ann', score: 1.5, ok: true, big: '9007199254740991' },
      { id: 2, name: 'bob', score: null, ok: null, big: null },
    ]);
    const cols = await rows("SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'people' ORDER BY ordinal_position");
    assert.deepEqual(cols.map((c) => [c.column_name, c.data_type, c.is_nullable]), [['id', 'integer', 'NO'], ['name', 'text', 'NO'], ['score', 'double precision', 'YES'], ['ok', 'boolean', 'YES'], ['big', 'bigint', 'YES']]);
  } finally {
    await worker.close();
  }
});

test('upsert by struct key: updates, tombstones delete, a new field evolves the table', async () => {
  const key = (id: number): string => envelope([['id', 'int32']], { id });
  const v1: FieldSpec[] = [['id', 'int32'], ['qty', 'int32']];
  const v2: FieldSpec[] = [...v1, ['note', 'string', true]];
  const worker = await f.worker([sink('ups', 'stock', { 'insert.mode': 'upsert', 'pk.mode': 'record_key', 'delete.enabled': 'true', 'auto.create': 'true', 'auto.evolve': 'true', 'table.name.format': 'inv.${topic}_tbl' })], 'sink-ups');
  try {
    await produce('stock', [
      { key: key(1), value: envelope(v1, { id: 1, qty: 10 }) },
      { key: key(2), value: envelope(v1, { id: 2, qty: 20 }) },
      { key: key(3), value: envelope(v1, { id: 3, qty: 30 }) },
      { key: key(1), value: envelope(v1, { id: 1, qty: 11 }) },
      { key: key(2), value: null },
    ]);
    const snapshot = (): Promise<Record<string, unknown>[]> => rows('SELECT id, qty FROM inv.stock_tbl ORDER BY id');
    await waitUntil('upserts and the delete', async () => JSON.stringify(await snapshot().catch(() => [])) === JSON.stringify([{ id: 1, qty: 11 }, { id: 3, qty: 30 }]));
    await produce('stock', [
      { key: key(3), value: envelope(v2, { id: 3, qty: 31, note: 'evolved' }) },
      { key: key(2), value: envelope(v2, { id: 2, qty: 22, note: null }) },
      { key: key(1), value: null },
    ]);
    await waitUntil('the evolved rows', async () => (await rows('SELECT count(*)::int AS n FROM inv.stock_tbl'))[0]?.n === 2 && (await rows('SELECT 1 FROM inv.stock_tbl WHERE id = 3 AND qty = 31')).length === 1);
    assert.deepEqual(await rows('SELECT id, qty, note FROM inv.stock_tbl ORDER BY id'), [{ id: 2, qty: 22, note: null }, { id: 3, qty: 31, note: 'evolved' }]);
    const pk = await rows("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'inv.stock_tbl'::regclass AND i.indisprimary");
    assert.deepEqual(pk.map((r) => r.attname), ['id']);
  } finally {
    await worker.close();
  }
});

test('keys from the value (record_value) and a primitive key (record_key, __connect_key)', async () => {
  await f.pg.sql('CREATE TABLE by_value (code text PRIMARY KEY, n int)');
  const vs: FieldSpec[] = [['code', 'string'], ['n', 'int32']];
  await produce('by_value', [
    { key: null, value: envelope(vs, { code: 'a', n: 1 }) },
    { key: null, value: envelope(vs, { code: 'a', n: 2 }) },
    { key: null, value: envelope(vs, { code: 'b', n: 3 }) },
  ]);
  await produce('prim', [
    { key: JSON.stringify({ schema: { type: 'string', optional: false }, payload: 'k1' }), value: envelope([['n', 'int32']], { n: 1 }) },
    { key: JSON.stringify({ schema: { type: 'string', optional: false }, payload: 'k1' }), value: envelope([['n', 'int32']], { n: 5 }) },
  ]);
  const worker = await f.worker(
    [
      sink('byval', 'by_value', { 'insert.mode': 'upsert', 'pk.mode': 'record_value', 'pk.fields': 'code' }),
      sink('prim', 'prim', { 'insert.mode': 'upsert', 'pk.mode': 'record_key', 'auto.create': 'true' }),
    ],
    'sink-keys',
  );
  try {
    await waitUntil('by_value rows', async () => JSON.stringify(await rows('SELECT code, n FROM by_value ORDER BY code')) === JSON.stringify([{ code: 'a', n: 2 }, { code: 'b', n: 3 }]));
    await waitUntil('prim rows', async () => JSON.stringify(await rows('SELECT * FROM prim').catch(() => [])) === JSON.stringify([{ __connect_key: 'k1', n: 5 }]));
  } finally {
    await worker.close();
  }
});

test('a batch that fails is rolled back whole and the task fails with the database error', async () => {
  await f.pg.sql('CREATE TABLE checked (id int PRIMARY KEY, v int CHECK (v > 0))');
  const vs: FieldSpec[] = [['id', 'int32'], ['v', 'int32']];
  await produce('checked', [1, 2, -3, 4].map((v, i) => ({ key: null, value: envelope(vs, { id: i, v }) })));
  const worker = await f.worker([sink('chk', 'checked', {})], 'sink-chk');
  try {
    await waitUntil('the task to fail', async () => (await taskStatus(worker.url, 'chk'))?.state === 'FAILED');
    assert.match((await taskStatus(worker.url, 'chk'))?.trace ?? '', /checked_v_check/);
    assert.deepEqual(await rows('SELECT * FROM checked'), []);
  } finally {
    await worker.close();
  }
});

test('config/validate: upsert needs a key, deletes need record_key', async () => {
  const worker = await f.worker([], 'sink-validate');
  try {
    const res = await rest<{ error_count: number; configs: { value: { name: string; errors: string[] } }[] }>(worker.url, 'PUT', '/connector-plugins/PostgresSinkConnector/config/validate', {
      name: 'v',
      'connector.class': 'PostgresSinkConnector',
      topics: 't',
      'connection.url': f.pg.jdbcUrl,
      'insert.mode': 'upsert',
      'delete.enabled': 'true',
      'pk.mode': 'none',
    });
    const errors = Object.fromEntries(res.body.configs.map((c) => [c.value.name, c.value.errors]));
    assert.match(errors['pk.mode']?.[0] ?? '', /insert.mode=upsert needs a primary key/);
    assert.match(errors['delete.enabled']?.[0] ?? '', /deletes need pk.mode=record_key/);
    assert.equal(res.body.error_count, 2);
  } finally {
    await worker.close();
  }
});

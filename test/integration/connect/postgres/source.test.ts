/**
 * PostgresSourceConnector end to end: a real PostgreSQL server, a real broker
 * and the standalone worker. Each mode picks up inserted rows (and, where the
 * mode can see them, updated rows) as JsonConverter envelopes whose schema
 * comes from the column types; a restarted worker resumes from the stored
 * offset without repeating rows; tables are split across tasks; bad configs
 * get Kafka's validation errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TopicTail, waitUntil } from '../../../helpers/topic-tail.js';
import { pgConnectFixture, rest, type PgConnectFixture } from './fixture.js';

let f: PgConnectFixture;

before(async () => {
  f = await pgConnectFixture();
});
after(() => f.close());

interface Envelope {
  schema: { type: string; name?: string; fields: { field: string; type: string; optional: boolean; name?: string; parameters?: Record<string, string> }[] };
  payload: Record<string, unknown>;
}

function source(name: string, extra: Record<string, string>): Record<string, string> {
  return {
    name,
    'connector.class': 'PostgresSource',
    'connection.url': f.pg.jdbcUrl,
    'connection.user': 'postgres',
    'connection.password': 'secret',
    'topic.prefix': 'pg-',
    'poll.interval.ms': '200',
    ...extra,
  };
}

test('incrementing: new rows with schemas from the column types, resumed after a restart without repeats', async () => {
  await f.pg.sql('CREATE TABLE inc_t (id serial PRIMARY KEY, name text NOT NULL, amount numeric(10,2), born date, flag boolean, big bigint, score double precision)');
  await f.pg.sql("INSERT INTO inc_t (name, amount, born, flag, big, score) VALUES ('a', 12.34, '2024-02-29', true, 9007199254740991, 1.5), ('b', -0.5, NULL, false, -1, NULL), ('c', NULL, '1969-12-31', NULL, 0, 0)");
  const tail = await TopicTail.open(f.cluster.bootstrap, 'pg-inc_t');
  const props = source('inc', { mode: 'incrementing', 'incrementing.column.name': 'id', 'table.whitelist': 'inc_t', 'batch.max.rows': '2' });
  let worker = await f.worker([props], 'inc');
  try {
    await tail.waitFor(3);
    const [first, second, third] = tail.values() as Envelope[];
    assert.equal(first!.schema.name, 'inc_t');
    const fields = Object.fromEntries(first!.schema.fields.map((x) => [x.field, x]));
    assert.deepEqual([fields.id?.type, fields.id?.optional, fields.name?.type, fields.name?.optional], ['int32', false, 'string', false]);
    assert.deepEqual([fields.amount?.name, fields.amount?.parameters, fields.born?.name, fields.big?.type, fields.score?.type], ['org.apache.kafka.connect.data.Decimal', { scale: '2' }, 'org.apache.kafka.connect.data.Date', 'int64', 'double']);
    // Decimal 12.34 at scale 2 is the unscaled 1234 = 0x04d2, base64 BNI=; -0.50 is -50 = 0xce, zg==.
    assert.deepEqual(first!.payload, { id: 1, name: 'a', amount: 'BNI=', born: 19782, flag: true, big: 9007199254740991, score: 1.5 });
    assert.deepEqual(second!.payload, { id: 2, name: 'b', amount: 'zg==', born: null, flag: false, big: -1, score: null });
    assert.equal(third!.payload.born, -1);
    await f.pg.sql("INSERT INTO inc_t (name) VALUES ('d'), ('e')");
    await tail.waitFor(5);
  } finally {
    await worker.close();
  }
  const offsets = JSON.parse(readFileSync(join(f.dir, 'inc.json'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.values(offsets), [{ incrementing: 5 }]);
  await f.pg.sql("INSERT INTO inc_t (name) VALUES ('f')");
  worker = await f.worker([props], 'inc');
  try {
    await tail.waitFor(6);
    await new Promise((r) => setTimeout(r, 800));
    assert.deepEqual(
      (tail.values() as Envelope[]).map((v) => v.payload.name),
      ['a', 'b', 'c', 'd', 'e', 'f'],
    );
  } finally {
    await worker.close();
    await tail.close();
  }
});

test('bulk: the whole table every poll, updates included', async () => {
  await f.pg.sql("CREATE TABLE bulk_t (k text PRIMARY KEY, v int); INSERT INTO bulk_t VALUES ('x', 1), ('y', 2)");
  const tail = await TopicTail.open(f.cluster.bootstrap, 'pg-bulk_t');
  const worker = await f.worker([source('bulk', { mode: 'bulk', 'table.include.list': 'public.bulk_t' })], 'bulk');
  try {
    await tail.waitFor(4);
    const payloads = (tail.values() as Envelope[]).map((e) => e.payload);
    assert.deepEqual(payloads.slice(0, 4), [{ k: 'x', v: 1 }, { k: 'y', v: 2 }, { k: 'x', v: 1 }, { k: 'y', v: 2 }]);
    await f.pg.sql("UPDATE bulk_t SET v = 20 WHERE k = 'y'");
    await waitUntil('the updated row', () => (tail.values() as Envelope[]).some((e) => e.payload.v === 20));
  } finally {
    await worker.close();
    await tail.close();
  }
});

test('timestamp: inserts and updates, rows tying on a timestamp across a batch limit all read once', async () => {
  await f.pg.sql('CREATE TABLE ts_t (id int PRIMARY KEY, name text, updated_at timestamp(6) NOT NULL DEFAULT now())');
  // One statement: all five rows get the same now(), more than batch.max.rows.
  await f.pg.sql("INSERT INTO ts_t (id, name) SELECT g, 'row' || g FROM generate_series(1, 5) g");
  const tail = await TopicTail.open(f.cluster.bootstrap, 'pg-ts_t');
  const worker = await f.worker([source('ts', { mode: 'timestamp', 'timestamp.column.name': 'updated_at', 'table.whitelist': 'ts_t', 'batch.max.rows': '2' })], 'ts');
  try {
    await tail.waitFor(5);
    await f.pg.sql("UPDATE ts_t SET name = 'changed', updated_at = clock_timestamp() WHERE id = 3");
    await tail.waitFor(6);
    await new Promise((r) => setTimeout(r, 800));
    const payloads = (tail.values() as Envelope[]).map((e) => e.payload);
    assert.deepEqual(payloads.slice(0, 5).map((p) => p.id).sort(), [1, 2, 3, 4, 5]);
    assert.equal(payloads.length, 6, 'no row read twice');
    assert.deepEqual([payloads[5]?.id, payloads[5]?.name], [3, 'changed']);
    assert.equal((tail.values() as Envelope[])[0]!.schema.fields[2]?.name, 'org.apache.kafka.connect.data.Timestamp');
  } finally {
    await worker.close();
    await tail.close();
  }
});

test('timestamp+incrementing: tied timestamps told apart by id, updates seen, offsets hold both', async () => {
  await f.pg.sql('CREATE TABLE tsi_t (id bigserial PRIMARY KEY, name text, modified timestamptz NOT NULL DEFAULT now())');
  await f.pg.sql("INSERT INTO tsi_t (name) SELECT 'r' || g FROM generate_series(1, 5) g");
  const tail = await TopicTail.open(f.cluster.bootstrap, 'pg-tsi_t');
  const props = source('tsi', { mode: 'timestamp+incrementing', 'timestamp.column.name': 'modified', 'incrementing.column.name': 'id', 'table.whitelist': 'tsi_t', 'batch.max.rows': '2' });
  const worker = await f.worker([props], 'tsi');
  try {
    await tail.waitFor(5);
    await f.pg.sql("UPDATE tsi_t SET name = 'upd', modified = clock_timestamp() WHERE id = 2");
    await f.pg.sql("INSERT INTO tsi_t (name) VALUES ('r6')");
    await tail.waitFor(7);
    await new Promise((r) => setTimeout(r, 800));
    const payloads = (tail.values() as Envelope[]).map((e) => e.payload);
    assert.deepEqual(payloads.map((p) => p.id), [1, 2, 3, 4, 5, 2, 6]);
    assert.equal(payloads[5]?.name, 'upd');
  } finally {
    await worker.close();
    await tail.close();
  }
  const stored = Object.values(JSON.parse(readFileSync(join(f.dir, 'tsi.json'), 'utf8')) as Record<string, { incrementing: number; timestamp: number; timestamp_nanos: number }>)[0]!;
  assert.equal(stored.incrementing, 6);
  const row = await f.pg.sql("SELECT (extract(epoch FROM modified) * 1000000)::bigint::text AS micros FROM tsi_t WHERE id = 6");
  const micros = BigInt(String(row.rows[0]?.micros));
  assert.equal(stored.timestamp, Number(micros / 1000n));
  assert.equal(stored.timestamp_nanos, Number(micros % 1_000_000n) * 1000);
});

test('tables are split across tasks.max tasks, every table copied', async () => {
  for (const t of ['split_a', 'split_b', 'split_c']) await f.pg.sql(`CREATE SCHEMA IF NOT EXISTS s2; CREATE TABLE s2.${t} (id int PRIMARY KEY); INSERT INTO s2.${t} VALUES (1), (2)`);
  const tails = await Promise.all(['split_a', 'split_b', 'split_c'].map((t) => TopicTail.open(f.cluster.bootstrap, `pg-${t}`)));
  const worker = await f.worker([source('split', { mode: 'incrementing', 'incrementing.column.name': 'id', 'table.whitelist': 's2.split_a,s2.split_b,s2.split_c', 'tasks.max': '2' })], 'split');
  try {
    for (const t of tails) await t.waitFor(2);
    const tasks = await rest<{ config: Record<string, string> }[]>(worker.url, 'GET', '/connectors/split/tasks');
    assert.deepEqual(tasks.body.map((t) => t.config.tables), ['s2.split_a,s2.split_c', 's2.split_b']);
  } finally {
    await worker.close();
    for (const t of tails) await t.close();
  }
});

test('config/validate reports mode/column and URL errors on their keys', async () => {
  const worker = await f.worker([], 'validate');
  try {
    const res = await rest<{ error_count: number; configs: { value: { name: string; errors: string[] } }[] }>(worker.url, 'PUT', '/connector-plugins/PostgresSourceConnector/config/validate', {
      name: 'validated',
      'connector.class': 'PostgresSourceConnector',
      'connection.url': 'mysql://nope',
      mode: 'timestamp+incrementing',
      'topic.prefix': 'x-',
      'poll.interval.ms': '0',
    });
    assert.equal(res.status, 200);
    const errors = Object.fromEntries(res.body.configs.map((c) => [c.value.name, c.value.errors]));
    assert.match(errors['connection.url']?.[0] ?? '', /Invalid value mysql:\/\/nope for configuration connection.url/);
    assert.match(errors['incrementing.column.name']?.[0] ?? '', /Missing required configuration "incrementing.column.name"/);
    assert.match(errors['timestamp.column.name']?.[0] ?? '', /Missing required configuration "timestamp.column.name"/);
    assert.match(errors['poll.interval.ms']?.[0] ?? '', /Value must be at least 1/);
    assert.equal(res.body.error_count, 4);
    const created = await rest<{ error_code: number; message: string }>(worker.url, 'POST', '/connectors', { name: 'bad', config: { 'connector.class': 'PostgresSource', 'connection.url': f.pg.jdbcUrl, mode: 'incrementing', 'topic.prefix': 'x' } });
    assert.equal(created.status, 400);
    assert.match(created.body.message, /incrementing.column.name/);
  } finally {
    await worker.close();
  }
});

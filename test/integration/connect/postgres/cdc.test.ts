/**
 * The CDC source end to end under Debezium's class name: a real PostgreSQL
 * (wal_level=logical), the standalone worker and a real broker. Inserts,
 * updates and deletes stream in commit order as Debezium change events (key
 * = primary key, delete then tombstone); the slot is acknowledged only once
 * the offset is stored; a restarted worker resumes at the stored LSN with
 * nothing lost or repeated; a server restart within errors.retry.timeout.ms
 * is ridden out; snapshot.mode=initial reads the existing rows first, once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLsn } from '../../../../src/connect/postgres/pgoutput.js';
import { TopicTail, waitUntil } from '../../../helpers/topic-tail.js';
import { pgConnectFixture, rest, taskStatus, type PgConnectFixture } from './fixture.js';

let f: PgConnectFixture;

before(async () => {
  f = await pgConnectFixture();
  await f.pg.sql('CREATE SCHEMA shop; CREATE TABLE shop.orders (id int PRIMARY KEY, item text NOT NULL, qty int, price numeric(8,2)); CREATE TABLE shop.other (id int PRIMARY KEY)');
});
after(() => f.close());

interface Change {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  op: string;
  source: { connector: string; name: string; db: string; schema: string; table: string; txId: number; lsn: number; ts_ms: number };
  ts_ms: number;
}

function cdc(name: string, slot: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    name,
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
    'database.hostname': f.pg.host,
    'database.port': String(f.pg.port),
    'database.user': 'postgres',
    'database.password': 'secret',
    'database.dbname': 'postgres',
    'topic.prefix': 'dbserver1',
    'plugin.name': 'pgoutput',
    'slot.name': slot,
    'publication.name': `${slot}_pub`,
    'table.include.list': 'shop\\.orders',
    'poll.interval.ms': '100',
    ...extra,
  };
}

const payloads = (tail: TopicTail): (Change | null)[] => tail.values().map((v) => (v === null ? null : (v as { payload: Change }).payload));
const keys = (tail: TopicTail): unknown[] => tail.keys().map((k) => (k as { payload: unknown } | null)?.payload ?? null);

async function slotLsn(slot: string): Promise<string> {
  const r = await f.pg.sql('SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  return String(r.rows[0]?.lsn);
}

test('inserts, updates and deletes in order; the slot acknowledged after the offset is stored; resume from the LSN', async () => {
  const tail = await TopicTail.open(f.cluster.bootstrap, 'dbserver1.shop.orders');
  // No snapshot here: the test controls exactly which changes happen after the slot exists.
  const props = cdc('orders-cdc', 'orders_slot', { 'snapshot.mode': 'never' });
  // Offsets are stored only on stop in the first run: the slot must not move before that.
  let worker = await f.worker([props], 'cdc', { 'offset.flush.interval.ms': '600000' });
  try {
    await waitUntil('the task running', async () => (await taskStatus(worker.url, 'orders-cdc'))?.state === 'RUNNING');
    const slotBefore = await slotLsn('orders_slot');
    await f.pg.sql("BEGIN; INSERT INTO shop.orders VALUES (1, 'apple', 3, 1.25), (2, 'pear', 1, NULL); INSERT INTO shop.other VALUES (1); COMMIT");
    await f.pg.sql("UPDATE shop.orders SET qty = 4 WHERE id = 1");
    await f.pg.sql('DELETE FROM shop.orders WHERE id = 2');
    await tail.waitFor(5);
    const events = payloads(tail);
    assert.deepEqual(events.map((e) => e?.op ?? 'tombstone'), ['c', 'c', 'u', 'd', 'tombstone']);
    assert.deepEqual(keys(tail), [{ id: 1 }, { id: 2 }, { id: 1 }, { id: 2 }, { id: 2 }]);
    assert.deepEqual(events[0]?.after, { id: 1, item: 'apple', qty: 3, price: 'fQ==' });
    assert.equal(events[0]?.before, null);
    assert.deepEqual(events[2]?.after, { id: 1, item: 'apple', qty: 4, price: 'fQ==' });
    assert.deepEqual(events[3]?.before, { id: 2, item: null, qty: null, price: null }, 'replica identity DEFAULT: the key only');
    assert.equal(events[3]?.after, null);
    const [c1, c2, u1, d2] = events as Change[];
    assert.deepEqual([c1!.source.connector, c1!.source.name, c1!.source.db, c1!.source.schema, c1!.source.table], ['postgresql', 'dbserver1', 'postgres', 'shop', 'orders']);
    assert.equal(c1!.source.txId, c2!.source.txId, 'one transaction');
    assert.ok(c1!.source.txId < u1!.source.txId && u1!.source.txId < d2!.source.txId);
    assert.ok(c1!.source.lsn < c2!.source.lsn && c2!.source.lsn < u1!.source.lsn && u1!.source.lsn < d2!.source.lsn);
    // Events are out, offsets not yet stored: the slot stays put (keepalive replies carry the old LSN).
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await slotLsn('orders_slot'), slotBefore);
  } finally {
    await worker.close();
  }
  const stored = Object.values(JSON.parse(readFileSync(join(f.dir, 'cdc.json'), 'utf8')) as Record<string, { lsn: number; txId: number }>)[0]!;
  assert.equal(stored.txId, payloads(tail)[3]?.source.txId);
  await waitUntil('the slot at the stored LSN', async () => (await slotLsn('orders_slot')) === formatLsn(BigInt(stored.lsn)), 10_000);

  await f.pg.sql("UPDATE shop.orders SET item = 'red apple' WHERE id = 1");
  await f.pg.sql("INSERT INTO shop.orders VALUES (3, 'fig', 7, 0.10)");
  worker = await f.worker([props], 'cdc');
  try {
    await tail.waitFor(7);
    await new Promise((r) => setTimeout(r, 1000));
    const events = payloads(tail);
    assert.equal(events.length, 7, 'nothing repeated after the restart');
    assert.deepEqual([events[5]?.op, events[5]?.after?.item, events[6]?.op, events[6]?.after?.id], ['u', 'red apple', 'c', 3]);
  } finally {
    await worker.close();
    await tail.close();
  }
});

test('a PostgreSQL restart within errors.retry.timeout.ms is ridden out: no change lost', async () => {
  await f.pg.sql('CREATE TABLE shop.items (id int PRIMARY KEY, v text)');
  const tail = await TopicTail.open(f.cluster.bootstrap, 'dbserver1.shop.items');
  const worker = await f.worker([cdc('items-cdc', 'items_slot', { 'snapshot.mode': 'never', 'table.include.list': 'shop\\.items', 'errors.retry.timeout.ms': '60000', 'errors.retry.delay.max.ms': '500' })], 'cdc-items');
  try {
    await waitUntil('the task running', async () => (await taskStatus(worker.url, 'items-cdc'))?.state === 'RUNNING');
    await f.pg.sql("INSERT INTO shop.items VALUES (1, 'before')");
    await tail.waitFor(1);
    await f.pg.stop();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await taskStatus(worker.url, 'items-cdc'))?.state, 'RUNNING', 'still retrying');
    await f.pg.start();
    await f.pg.sql("INSERT INTO shop.items VALUES (2, 'after')");
    await tail.waitFor(2);
    assert.deepEqual(payloads(tail).map((e) => e?.after?.v), ['before', 'after']);
  } finally {
    await worker.close();
    await tail.close();
  }
});

test('snapshot.mode=initial: existing rows as read events, then changes; a restart does not snapshot again', async () => {
  await f.pg.sql("CREATE TABLE shop.snap (id int PRIMARY KEY, v text); INSERT INTO shop.snap SELECT g, 'v' || g FROM generate_series(1, 3) g");
  const tail = await TopicTail.open(f.cluster.bootstrap, 'dbserver1.shop.snap');
  const props = cdc('snap-cdc', 'snap_slot', { 'table.include.list': 'shop\\.snap', 'max.batch.size': '2' });
  let worker = await f.worker([props], 'cdc-snap');
  try {
    await tail.waitFor(3);
    await f.pg.sql("INSERT INTO shop.snap VALUES (4, 'v4')");
    await tail.waitFor(4);
    const events = payloads(tail) as (Change & { source: { snapshot: string } })[];
    assert.deepEqual(events.map((e) => [e.op, e.after?.id, e.source.snapshot]), [['r', 1, 'true'], ['r', 2, 'true'], ['r', 3, 'last'], ['c', 4, 'false']]);
    assert.deepEqual(keys(tail).slice(0, 3), [{ id: 1 }, { id: 2 }, { id: 3 }]);
  } finally {
    await worker.close();
  }
  await f.pg.sql("INSERT INTO shop.snap VALUES (5, 'v5')");
  worker = await f.worker([props], 'cdc-snap');
  try {
    await tail.waitFor(5);
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(payloads(tail).map((e) => `${e?.op}${String(e?.after?.id)}`), ['r1', 'r2', 'r3', 'c4', 'c5']);
  } finally {
    await worker.close();
    await tail.close();
  }
});

test('config/validate: Debezium names, pgoutput only, required connection keys', async () => {
  const worker = await f.worker([], 'cdc-validate');
  try {
    const res = await rest<{ error_count: number; configs: { value: { name: string; errors: string[] } }[] }>(worker.url, 'PUT', '/connector-plugins/io.debezium.connector.postgresql.PostgresConnector/config/validate', {
      name: 'v',
      'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
      'database.user': 'postgres',
      'database.dbname': 'postgres',
      'topic.prefix': 'x',
      'plugin.name': 'decoderbufs',
      'skipped.operations': 'x',
    });
    const errors = Object.fromEntries(res.body.configs.map((c) => [c.value.name, c.value.errors]));
    assert.match(errors['database.hostname']?.[0] ?? '', /Missing required configuration "database.hostname"/);
    assert.match(errors['plugin.name']?.[0] ?? '', /Invalid value decoderbufs for configuration plugin.name: String must be one of: pgoutput/);
    assert.match(errors['skipped.operations']?.[0] ?? '', /Invalid value x for configuration skipped.operations/);
    assert.equal(res.body.error_count, 3);
  } finally {
    await worker.close();
  }
});

/**
 * A PostgreSQL server that goes away: the JDBC-style source and sink retry
 * for errors.retry.timeout.ms and carry on when it comes back; with a short
 * budget the task fails with a status naming the server, its committed
 * offset stays, and a task restart resumes from it without loss or repeats.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Producer } from '../../../../src/client/index.js';
import { TopicTail, waitUntil } from '../../../helpers/topic-tail.js';
import { pgConnectFixture, rest, taskStatus, type PgConnectFixture } from './fixture.js';

let f: PgConnectFixture;

before(async () => {
  f = await pgConnectFixture();
});
after(() => f.close());

function source(name: string, prefix: string, retryMs: number): Record<string, string> {
  return {
    name,
    'connector.class': 'PostgresSourceConnector',
    'connection.url': f.pg.jdbcUrl,
    'connection.user': 'postgres',
    'connection.password': 'secret',
    mode: 'incrementing',
    'incrementing.column.name': 'id',
    'table.whitelist': 'gone',
    'topic.prefix': prefix,
    'poll.interval.ms': '100',
    'errors.retry.timeout.ms': String(retryMs),
    'errors.retry.delay.max.ms': '300',
  };
}

const ids = (tail: TopicTail): unknown[] => tail.values().map((v) => (v as { payload: { id: number } }).payload.id);

test('source: a long retry budget rides out the outage; a short one fails, keeps its offset and resumes on restart', async () => {
  await f.pg.sql('CREATE TABLE gone (id int PRIMARY KEY); INSERT INTO gone VALUES (1), (2), (3)');
  const patient = await TopicTail.open(f.cluster.bootstrap, 'patient-gone');
  const brittle = await TopicTail.open(f.cluster.bootstrap, 'brittle-gone');
  const worker = await f.worker([source('patient', 'patient-', 60_000), source('brittle', 'brittle-', 1_000)], 'gone');
  try {
    await patient.waitFor(3);
    await brittle.waitFor(3);
    await new Promise((r) => setTimeout(r, 600)); // an offset flush after the third row
    await f.pg.stop();
    await waitUntil('the brittle task to fail', async () => (await taskStatus(worker.url, 'brittle'))?.state === 'FAILED');
    const failed = await taskStatus(worker.url, 'brittle');
    assert.match(failed?.trace ?? '', new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${f.pg.port}/postgres unavailable while trying to poll table gone: gave up after \\d+ attempt\\(s\\) \\(errors.retry.timeout.ms=1000\\)`));
    assert.equal((await taskStatus(worker.url, 'patient'))?.state, 'RUNNING');
    const offsets = JSON.parse(readFileSync(join(f.dir, 'gone.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.entries(offsets).filter(([k]) => k.includes('brittle')).map(([, v]) => v), [{ incrementing: 3 }], 'the committed offset survives the failure');

    await f.pg.start();
    await f.pg.sql('INSERT INTO gone VALUES (4)');
    await patient.waitFor(4);
    const restarted = await rest(worker.url, 'POST', '/connectors/brittle/tasks/0/restart');
    assert.equal(restarted.status, 204);
    await brittle.waitFor(4);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(ids(patient), [1, 2, 3, 4]);
    assert.deepEqual(ids(brittle), [1, 2, 3, 4]);
  } finally {
    await worker.close();
    await patient.close();
    await brittle.close();
  }
});

test('sink: a batch put while the server is down is retried and written once it is back; past the budget the task fails', async () => {
  await f.pg.sql('CREATE TABLE sunk (id int PRIMARY KEY, v text)');
  const value = (id: number): string => JSON.stringify({ schema: { type: 'struct', optional: false, fields: [{ field: 'id', type: 'int32', optional: false }, { field: 'v', type: 'string', optional: true }] }, payload: { id, v: `v${id}` } });
  const producer = await Producer.connect<string | null, string | null>({ clusterOptions: { bootstrap: f.cluster.bootstrap, allowAutoTopicCreation: true }, lingerMs: 0 });
  const sink = (name: string, topic: string, retryMs: number): Record<string, string> => ({ name, 'connector.class': 'PostgresSink', topics: topic, 'connection.url': f.pg.url, 'table.name.format': 'sunk', 'insert.mode': 'upsert', 'pk.mode': 'record_value', 'pk.fields': 'id', 'errors.retry.timeout.ms': String(retryMs), 'errors.retry.delay.max.ms': '300' });
  const worker = await f.worker([sink('sink-patient', 'to-sink', 60_000)], 'sunk');
  try {
    await producer.sendBatch([{ topic: 'to-sink', key: null, value: value(1) }]);
    await waitUntil('row 1', async () => (await f.pg.sql('SELECT count(*)::int AS n FROM sunk')).rows[0]?.n === 1);
    await f.pg.stop();
    await producer.sendBatch([2, 3].map((id) => ({ topic: 'to-sink', key: null, value: value(id) })));
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await taskStatus(worker.url, 'sink-patient'))?.state, 'RUNNING', 'still retrying');
    await f.pg.start();
    await waitUntil('rows 2 and 3', async () => (await f.pg.sql('SELECT count(*)::int AS n FROM sunk')).rows[0]?.n === 3);

    // The topic exists before the connector subscribes, so its consumer sees it at once.
    const admin = await Admin.connect({ bootstrap: f.cluster.bootstrap });
    await admin.createTopics([{ name: 'to-sink-2', numPartitions: 1, replicationFactor: 1 }]).finally(() => admin.close());
    const brittle = await rest(worker.url, 'PUT', '/connectors/sink-brittle/config', sink('sink-brittle', 'to-sink-2', 800));
    assert.equal(brittle.status, 201);
    await waitUntil('the brittle sink running', async () => (await taskStatus(worker.url, 'sink-brittle'))?.state === 'RUNNING');
    await f.pg.stop();
    await producer.sendBatch([{ topic: 'to-sink-2', key: null, value: value(9) }]);
    await waitUntil('the brittle sink to fail', async () => (await taskStatus(worker.url, 'sink-brittle'))?.state === 'FAILED');
    assert.match((await taskStatus(worker.url, 'sink-brittle'))?.trace ?? '', new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${f.pg.port}/postgres unavailable`));
  } finally {
    await f.pg.start().catch(() => undefined);
    await producer.close();
    await worker.close();
  }
});

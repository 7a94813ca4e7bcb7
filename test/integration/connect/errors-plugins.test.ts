/**
 * Error handling and plugins in a standalone worker over a real broker:
 * - errors.tolerance=none: a record the converter cannot read fails the
 *   task, whose status shows FAILED with the trace; a restart runs it again;
 * - errors.tolerance=all with a dead letter queue: good records reach the
 *   sink, the bad one lands in the DLQ with its original bytes and the
 *   `__connect.errors.*` context headers;
 * - a sink task's errant record reporter (KIP-610): with tolerance all
 *   the reported record goes to the DLQ with its original bytes; with
 *   tolerance none the task fails;
 * - plugin.path: a connector and a transform from a plugin package.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Consumer, Producer } from '../../../src/client/index.js';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startStandalone, type ConnectWorkerHandle } from '../../../src/connect/index.js';

const PLUGINS = fileURLToPath(new URL('../../../../test/fixtures/connect/plugins', import.meta.url));
let cluster: EmbeddedCluster;
let worker: ConnectWorkerHandle;
const dir = mkdtempSync(join(tmpdir(), 'connect-errors-'));

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: cluster.bootstrap, allowAutoTopicCreation: true }, lingerMs: 0 });
  const envelope = (s: string): string => JSON.stringify({ schema: { type: 'string', optional: false }, payload: s });
  await producer.sendBatch([
    { topic: 'mixed', value: envelope('ok1') },
    { topic: 'mixed', value: 'not json', headers: { origin: 'test' } },
    { topic: 'mixed', value: envelope('ok2') },
  ]);
  await producer.sendBatch(['keep 1', 'reject me', 'keep 2'].map((v) => ({ topic: 'picky', value: v, headers: { origin: 'picky-test' } })));
  await producer.close();
  worker = await startStandalone(
    {
      'bootstrap.servers': cluster.bootstrap,
      listeners: 'http://127.0.0.1:0',
      'offset.storage.file.filename': join(dir, 'offsets'),
      'offset.flush.interval.ms': '200',
      'key.converter': 'StringConverter',
      'value.converter': 'JsonConverter',
      'plugin.path': PLUGINS,
    },
    [],
    () => undefined,
  );
});
after(async () => {
  await worker.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const res = await fetch(worker.url + path, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface TaskStatus {
  state: string;
  trace?: string;
}

test('errors.tolerance=none fails the task with its trace; restart runs it again', async () => {
  const created = await api('POST', '/connectors', { name: 'strict', config: { 'connector.class': 'FileStreamSink', topics: 'mixed', file: join(dir, 'strict.txt') } });
  assert.equal(created.status, 201);
  const failed = await until('FAILED', async () => {
    const t = (await api('GET', '/connectors/strict/tasks/0/status')).body as TaskStatus;
    return t.state === 'FAILED' ? t : null;
  });
  assert.match(failed.trace ?? '', /Tolerance exceeded in error handler \(stage VALUE_CONVERTER\)/);
  assert.match(failed.trace ?? '', /serialization error/);
  assert.equal((await api('POST', '/connectors/strict/restart?includeTasks=true&onlyFailed=true')).status, 202);
  const again = await until('FAILED after restart', async () => {
    const t = (await api('GET', '/connectors/strict/tasks/0/status')).body as TaskStatus;
    return t.state === 'FAILED' ? t : null;
  });
  assert.match(again.trace ?? '', /VALUE_CONVERTER/);
  assert.equal((await api('DELETE', '/connectors/strict')).status, 204);
});

test('errors.tolerance=all skips the bad record into the DLQ with context headers', async () => {
  const out = join(dir, 'tolerant.txt');
  const created = await api('POST', '/connectors', {
    name: 'tolerant',
    config: {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      topics: 'mixed',
      file: out,
      'errors.tolerance': 'all',
      'errors.log.enable': 'true',
      'errors.deadletterqueue.topic.name': 'mixed-dlq',
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await until('the good records in the sink file', async () => (existsSync(out) && readFileSync(out, 'utf8') === 'ok1\nok2\n' ? true : null));
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: cluster.bootstrap });
  try {
    consumer.assign([{ topic: 'mixed-dlq', partition: 0 }]);
    consumer.seek({ topic: 'mixed-dlq', partition: 0 }, 0);
    const batch = await until('the DLQ record', async () => {
      const it = consumer.batches();
      const r = await it.next();
      return r.done === true ? null : r.value;
    });
    const rec = batch.records[0];
    assert.equal(rec?.value?.toString(), 'not json');
    const headers = new Map(rec?.headers.map((h) => [h.key, h.value?.toString()]));
    assert.equal(headers.get('origin'), 'test');
    assert.equal(headers.get('__connect.errors.topic'), 'mixed');
    assert.equal(headers.get('__connect.errors.partition'), '0');
    assert.equal(headers.get('__connect.errors.offset'), '1');
    assert.equal(headers.get('__connect.errors.connector.name'), 'tolerant');
    assert.equal(headers.get('__connect.errors.task.id'), '0');
    assert.equal(headers.get('__connect.errors.stage'), 'VALUE_CONVERTER');
    assert.match(headers.get('__connect.errors.exception.message') ?? '', /serialization error/);
  } finally {
    await consumer.close();
  }
  const metrics = await (await fetch(`${worker.url}/metrics`)).text();
  assert.match(metrics, /connect_deadletterqueue_records_total\{connector="tolerant",task="0"\} 1/);
  const status = (await api('GET', '/connectors/tolerant/status')).body as { tasks: TaskStatus[] };
  assert.equal(status.tasks[0]?.state, 'RUNNING');
});

test('a connector and a transform from plugin.path', async () => {
  const plugins = (await api('GET', '/connector-plugins')).body as { class: string; type: string }[];
  assert.ok(plugins.some((p) => p.class === 'com.example.CountingSourceConnector' && p.type === 'source'));
  const invalid = await api('POST', '/connectors', { name: 'count', config: { 'connector.class': 'CountingSource' } });
  assert.equal(invalid.status, 400);
  assert.match(String((invalid.body as { message: string }).message), /Missing required configuration "topic"/);
  const created = await api('POST', '/connectors', {
    name: 'count',
    config: { 'connector.class': 'CountingSource', topic: 'counted', count: '5', 'value.converter': 'StringConverter', transforms: 'up', 'transforms.up.type': 'com.example.UpperCase$Value' },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const consumer = new Consumer<string, string>({ bootstrap: cluster.bootstrap, valueDeserializer: (b) => b?.toString() ?? '', keyDeserializer: () => '' });
  const seen: string[] = [];
  try {
    await until('the topic', async () => ((await api('GET', '/connectors/count/topics')).body as { count: { topics: string[] } }).count.topics.length > 0 ? true : null);
    consumer.assign([{ topic: 'counted', partition: 0 }]);
    consumer.seek({ topic: 'counted', partition: 0 }, 0);
    const it = consumer.batches();
    while (seen.length < 5) {
      const r = await it.next();
      if (r.done === true) break;
      seen.push(...r.value.records.map((x) => x.value));
    }
  } finally {
    await consumer.close();
  }
  assert.deepEqual(seen, ['ITEM 0', 'ITEM 1', 'ITEM 2', 'ITEM 3', 'ITEM 4']);
});

async function firstRecord(topic: string): Promise<{ value: string | undefined; headers: Map<string, string | undefined> }> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: cluster.bootstrap });
  try {
    consumer.assign([{ topic, partition: 0 }]);
    consumer.seek({ topic, partition: 0 }, 0);
    const batch = await until(`a record in ${topic}`, async () => {
      const r = await consumer.batches().next();
      return r.done === true ? null : r.value;
    });
    const rec = batch.records[0];
    return { value: rec?.value?.toString(), headers: new Map(rec?.headers.map((h) => [h.key, h.value?.toString()])) };
  } finally {
    await consumer.close();
  }
}

test('a sink task reports an errant record: the DLQ gets it (tolerance all), or the task fails (none)', async () => {
  const { picked } = (await import(join(PLUGINS, 'upper-plugin', 'index.js'))) as { picked: string[] };
  const config = {
    'connector.class': 'com.example.PickySinkConnector',
    topics: 'picky',
    'value.converter': 'StringConverter',
    'errors.tolerance': 'all',
    'errors.deadletterqueue.topic.name': 'picky-dlq',
    'errors.deadletterqueue.topic.replication.factor': '1',
    'errors.deadletterqueue.context.headers.enable': 'true',
  };
  assert.equal((await api('POST', '/connectors', { name: 'picky', config })).status, 201);
  const dlq = await firstRecord('picky-dlq');
  assert.equal(dlq.value, 'reject me');
  assert.equal(dlq.headers.get('origin'), 'picky-test');
  assert.equal(dlq.headers.get('__connect.errors.stage'), 'TASK_PUT');
  assert.equal(dlq.headers.get('__connect.errors.offset'), '1');
  assert.equal(dlq.headers.get('__connect.errors.exception.message'), 'rejected reject me');
  await until('the kept records', async () => (picked.includes('keep 2') ? true : null));
  assert.deepEqual(picked.filter((v) => v.startsWith('keep')).slice(0, 2), ['keep 1', 'keep 2']);
  const metrics = await (await fetch(`${worker.url}/metrics`)).text();
  assert.match(metrics, /connect_deadletterqueue_records_total\{connector="picky",task="0"\} 1/);
  assert.equal((await api('DELETE', '/connectors/picky')).status, 204);
  const strict = await api('POST', '/connectors', { name: 'picky-strict', config: { 'connector.class': 'com.example.PickySinkConnector', topics: 'picky', 'value.converter': 'StringConverter' } });
  assert.equal(strict.status, 201);
  const failed = await until('FAILED', async () => {
    const t = (await api('GET', '/connectors/picky-strict/tasks/0/status')).body as TaskStatus;
    return t.state === 'FAILED' ? t : null;
  });
  assert.match(failed.trace ?? '', /rejected reject me/);
});

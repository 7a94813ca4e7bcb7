/**
 * Kafka Connect's REST API, endpoint by endpoint, as a table of requests
 * and the status and JSON shape Kafka's documentation gives for each
 * (https://kafka.apache.org/documentation/#connect_rest), run in order
 * against one standalone worker over a real broker: 200/201/202/204 and the
 * 400 (bad JSON, unknown class, missing required config), 404 and 409
 * error bodies `{ error_code, message }`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startStandalone, type ConnectWorkerHandle } from '../../../src/connect/index.js';

let cluster: EmbeddedCluster;
let worker: ConnectWorkerHandle;
// Created at load: the step table below names files in it.
const dir = mkdtempSync(join(tmpdir(), 'connect-rest-'));

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
  writeFileSync(join(dir, 'in.txt'), 'one\ntwo\n');
  worker = await startStandalone({
    'bootstrap.servers': cluster.bootstrap,
    listeners: 'http://127.0.0.1:0',
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'offset.flush.interval.ms': '100',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  }, [], () => undefined);
});
after(async () => {
  await worker.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Json = unknown;
interface Step {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: Json;
  /** Sent as is (for malformed JSON). */
  rawBody?: string;
  status: number;
  check?: (body: Json) => void;
  /** Polls until the check passes (state changes are asynchronous). */
  eventually?: boolean;
}

const src = () => ({ 'connector.class': 'FileStreamSource', file: join(dir, 'in.txt'), topic: 'rest-lines', 'tasks.max': '1' });
const obj = (b: Json): Record<string, Json> => {
  assert.equal(typeof b, 'object');
  assert.ok(b !== null && !Array.isArray(b));
  return b as Record<string, Json>;
};
const errorBody = (status: number, pattern: RegExp) => (b: Json): void => {
  const o = obj(b);
  assert.deepEqual(Object.keys(o).sort(), ['error_code', 'message']);
  assert.equal(o.error_code, status);
  assert.match(String(o.message), pattern);
};
const state = (expected: string) => (b: Json): void => {
  const o = obj(b);
  assert.equal(obj(o.connector).state, expected);
  assert.deepEqual(Object.keys(obj(o.connector)).sort(), ['state', 'worker_id']);
};

const STEPS: Step[] = [
  { name: 'server info', method: 'GET', path: '/', status: 200, check: (b) => assert.deepEqual(Object.keys(obj(b)).sort(), ['commit', 'kafka_cluster_id', 'version']) },
  {
    name: 'plugins',
    method: 'GET',
    path: '/connector-plugins',
    status: 200,
    check: (b) => assert.deepEqual(b, [
      { class: 'io.debezium.connector.postgresql.PostgresConnector', type: 'source', version: '1.0.0' },
      { class: 'io.tributary.connect.postgres.PostgresCdcSourceConnector', type: 'source', version: '1.0.0' },
      { class: 'io.tributary.connect.postgres.PostgresSinkConnector', type: 'sink', version: '1.0.0' },
      { class: 'io.tributary.connect.postgres.PostgresSourceConnector', type: 'source', version: '1.0.0' },
      { class: 'org.apache.kafka.connect.file.FileStreamSinkConnector', type: 'sink', version: '1.0.0' },
      { class: 'org.apache.kafka.connect.file.FileStreamSourceConnector', type: 'source', version: '1.0.0' },
    ]),
  },
  {
    name: 'plugins with transforms',
    method: 'GET',
    path: '/connector-plugins?connectorsOnly=false',
    status: 200,
    check: (b) => assert.ok((b as { class: string; type: string }[]).some((p) => p.class === 'org.apache.kafka.connect.transforms.Cast$Value' && p.type === 'transformation')),
  },
  {
    name: 'validate reports each error',
    method: 'PUT',
    path: '/connector-plugins/FileStreamSinkConnector/config/validate',
    body: { 'connector.class': 'FileStreamSinkConnector', 'tasks.max': 'x' },
    status: 200,
    check: (b) => {
      const o = obj(b) as { name: string; error_count: number; groups: string[]; configs: { definition: Record<string, Json>; value: { name: string; errors: string[] } }[] };
      assert.equal(o.name, 'FileStreamSinkConnector');
      assert.ok(o.groups.includes('Common'));
      const errs = (n: string): string[] => o.configs.find((c) => c.value.name === n)?.value.errors ?? [];
      assert.deepEqual(errs('name'), ['Missing required configuration "name" which has no default value.']);
      assert.deepEqual(errs('topics'), ['Must configure one of topics or topics.regex']);
      assert.match(errs('tasks.max')[0] ?? '', /Invalid value x for configuration tasks.max/);
      assert.equal(o.error_count, 4);
      assert.deepEqual(Object.keys(o.configs[0]?.definition ?? {}).sort(), ['default_value', 'dependents', 'display_name', 'documentation', 'group', 'importance', 'name', 'order', 'required', 'type', 'width']);
    },
  },
  { name: 'validate with a mismatched class', method: 'PUT', path: '/connector-plugins/FileStreamSinkConnector/config/validate', body: { 'connector.class': 'FileStreamSource' }, status: 400, check: errorBody(400, /does not match request type/) },
  { name: 'create with malformed JSON', method: 'POST', path: '/connectors', rawBody: '{"name": ', status: 400, check: errorBody(400, /JSON/i) },
  { name: 'create with an unknown class', method: 'POST', path: '/connectors', body: { name: 'x', config: { 'connector.class': 'com.example.Nope' } }, status: 400, check: errorBody(400, /connector.class: Class com.example.Nope could not be found/) },
  { name: 'create without a required config', method: 'POST', path: '/connectors', body: { name: 'x', config: { 'connector.class': 'FileStreamSource' } }, status: 400, check: errorBody(400, /contains the following 1 error\(s\):\nMissing required configuration "topic"/) },
  {
    name: 'create',
    method: 'POST',
    path: '/connectors',
    body: { name: 'src', config: src() },
    status: 201,
    check: (b) => {
      const o = obj(b);
      assert.deepEqual(Object.keys(o).sort(), ['config', 'name', 'tasks', 'type']);
      assert.equal(o.type, 'source');
      assert.deepEqual(o.tasks, [{ connector: 'src', task: 0 }]);
      assert.equal(obj(o.config).name, 'src');
    },
  },
  { name: 'create a duplicate', method: 'POST', path: '/connectors', body: { name: 'src', config: src() }, status: 409, check: errorBody(409, /Connector src already exists/) },
  { name: 'list', method: 'GET', path: '/connectors', status: 200, check: (b) => assert.deepEqual(b, ['src']) },
  { name: 'list with status and info', method: 'GET', path: '/connectors?expand=status&expand=info', status: 200, check: (b) => assert.deepEqual(Object.keys(obj(obj(b).src)).sort(), ['info', 'status']) },
  { name: 'info', method: 'GET', path: '/connectors/src', status: 200, check: (b) => assert.equal(obj(b).name, 'src') },
  { name: 'unknown connector', method: 'GET', path: '/connectors/nope', status: 404, check: errorBody(404, /^Connector nope not found$/) },
  { name: 'unknown connector status', method: 'GET', path: '/connectors/nope/status', status: 404, check: errorBody(404, /not found/) },
  { name: 'config', method: 'GET', path: '/connectors/src/config', status: 200, check: (b) => assert.equal(obj(b).topic, 'rest-lines') },
  { name: 'update config', method: 'PUT', path: '/connectors/src/config', body: { ...src(), 'batch.size': '10' }, status: 200, check: (b) => assert.equal(obj(obj(b).config)['batch.size'], '10') },
  { name: 'update with a bad value', method: 'PUT', path: '/connectors/src/config', body: { ...src(), 'batch.size': 'ten' }, status: 400, check: errorBody(400, /batch.size/) },
  { name: 'update with a name mismatch', method: 'PUT', path: '/connectors/src/config', body: { ...src(), name: 'other' }, status: 400, check: errorBody(400, /doesn't match/) },
  { name: 'create by PUT', method: 'PUT', path: '/connectors/sink/config', body: { 'connector.class': 'FileStreamSink', topics: 'rest-lines', file: join(dir, 'out.txt') }, status: 201, check: (b) => assert.equal(obj(b).type, 'sink') },
  { name: 'status', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: (b) => {
    state('RUNNING')(b);
    assert.deepEqual((obj(b).tasks as Json[]).map((t) => Object.keys(obj(t)).sort()), [['id', 'state', 'worker_id']]);
    assert.equal(obj(b).type, 'source');
  } },
  { name: 'tasks', method: 'GET', path: '/connectors/src/tasks', status: 200, check: (b) => {
    const list = b as { id: Json; config: Record<string, string> }[];
    assert.deepEqual(list[0]?.id, { connector: 'src', task: 0 });
    assert.equal(list[0]?.config.topic, 'rest-lines');
  } },
  { name: 'task status', method: 'GET', path: '/connectors/src/tasks/0/status', status: 200, check: (b) => assert.equal(obj(b).state, 'RUNNING') },
  { name: 'unknown task status', method: 'GET', path: '/connectors/src/tasks/9/status', status: 404, check: errorBody(404, /src-9/) },
  { name: 'pause', method: 'PUT', path: '/connectors/src/pause', status: 202 },
  { name: 'paused status', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: (b) => {
    state('PAUSED')(b);
    assert.equal(obj((obj(b).tasks as Json[])[0]).state, 'PAUSED');
  } },
  { name: 'resume', method: 'PUT', path: '/connectors/src/resume', status: 202 },
  { name: 'resumed status', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: state('RUNNING') },
  { name: 'restart the connector', method: 'POST', path: '/connectors/src/restart', status: 204 },
  { name: 'restart what failed, when nothing did (KIP-745)', method: 'POST', path: '/connectors/src/restart?includeTasks=true&onlyFailed=true', status: 202, check: (b) => {
    assert.equal(obj(obj(b).connector).state, 'RUNNING');
    assert.deepEqual((obj(b).tasks as Json[]).map((t) => obj(t).state), ['RUNNING']);
  } },
  { name: 'restart with tasks: the plan shows them RESTARTING', method: 'POST', path: '/connectors/src/restart?includeTasks=true&onlyFailed=false', status: 202, check: (b) => {
    assert.equal(obj(b).name, 'src');
    assert.equal(obj(obj(b).connector).state, 'RESTARTING');
    assert.deepEqual((obj(b).tasks as Json[]).map((t) => obj(t).state), ['RESTARTING']);
  } },
  { name: 'running again after the restart', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: (b) => {
    state('RUNNING')(b);
    assert.equal(obj((obj(b).tasks as Json[])[0]).state, 'RUNNING');
  } },
  { name: 'restart a task', method: 'POST', path: '/connectors/src/tasks/0/restart', status: 204 },
  { name: 'restart an unknown task', method: 'POST', path: '/connectors/src/tasks/7/restart', status: 404, check: errorBody(404, /src-7/) },
  { name: 'topics', method: 'GET', path: '/connectors/src/topics', status: 200, eventually: true, check: (b) => assert.deepEqual(b, { src: { topics: ['rest-lines'] } }) },
  { name: 'offsets', method: 'GET', path: '/connectors/src/offsets', status: 200, eventually: true, check: (b) => assert.deepEqual(b, { offsets: [{ partition: { filename: join(dir, 'in.txt') }, offset: { position: 8 } }] }) },
  { name: 'alter offsets of a running connector', method: 'PATCH', path: '/connectors/src/offsets', body: { offsets: [] }, status: 400, check: errorBody(400, /STOPPED state/) },
  { name: 'stop', method: 'PUT', path: '/connectors/src/stop', status: 204 },
  { name: 'stopped status', method: 'GET', path: '/connectors/src/status', status: 200, eventually: true, check: (b) => {
    state('STOPPED')(b);
    assert.deepEqual(obj(b).tasks, []);
  } },
  { name: 'alter offsets', method: 'PATCH', path: '/connectors/src/offsets', body: { offsets: [{ partition: { filename: join(dir, 'in.txt') }, offset: { position: 4 } }] }, status: 200, check: (b) => assert.deepEqual(b, { message: 'The offsets for this connector have been altered successfully' }) },
  { name: 'altered offsets', method: 'GET', path: '/connectors/src/offsets', status: 200, check: (b) => assert.deepEqual(b, { offsets: [{ partition: { filename: join(dir, 'in.txt') }, offset: { position: 4 } }] }) },
  { name: 'reset offsets', method: 'DELETE', path: '/connectors/src/offsets', status: 200, check: (b) => assert.deepEqual(b, { message: 'The offsets for this connector have been reset successfully' }) },
  { name: 'reset offsets are gone', method: 'GET', path: '/connectors/src/offsets', status: 200, check: (b) => assert.deepEqual(b, { offsets: [] }) },
  { name: 'sink offsets', method: 'GET', path: '/connectors/sink/offsets', status: 200, check: (b) => assert.ok(Array.isArray(obj(b).offsets)) },
  { name: 'metrics', method: 'GET', path: '/metrics', status: 200, check: (b) => assert.match(String(b), /connect_source_records_polled_total\{connector="src",task="0"\} \d+/) },
  { name: 'delete', method: 'DELETE', path: '/connectors/src', status: 204 },
  { name: 'deleted', method: 'GET', path: '/connectors/src', status: 404, check: errorBody(404, /not found/) },
  { name: 'delete an unknown connector', method: 'DELETE', path: '/connectors/src', status: 404, check: errorBody(404, /not found/) },
  { name: 'unknown path', method: 'GET', path: '/nope', status: 404, check: errorBody(404, /404/) },
];

async function call(step: Step): Promise<{ status: number; body: Json }> {
  const init: RequestInit = { method: step.method, headers: { accept: 'application/json' } };
  if (step.rawBody !== undefined || step.body !== undefined) {
    init.body = step.rawBody ?? JSON.stringify(step.body);
    init.headers = { 'content-type': 'application/json', accept: 'application/json' };
  }
  const res = await fetch(worker.url + step.path, init);
  const text = await res.text();
  let body: Json = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') body = JSON.parse(text);
  return { status: res.status, body };
}

test('the REST API answers each request as Kafka Connect does', async (t) => {
  for (const step of STEPS) {
    await t.test(`${step.method} ${step.path}: ${step.name}`, async () => {
      const deadline = Date.now() + (step.eventually === true ? 20_000 : 0);
      for (;;) {
        const { status, body } = await call(step);
        try {
          assert.equal(status, step.status, `status of ${step.name}: ${JSON.stringify(body)}`);
          step.check?.(body);
          return;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    });
  }
});

/**
 * The internal topic stores applied to records as Kafka's worker writes
 * them: task configs take effect only with their commit record, target
 * states read `state.v2`, deletions by tombstone, restart requests of the
 * replayed history do not act; a status from another worker with an older
 * generation does not replace a newer one; offset keys written with
 * another key order name the same partition.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConsumerRecord } from '../../../../src/client/index.js';
import { ConfigStore } from '../../../../src/connect/distributed/config-store.js';
import { KafkaOffsetStore } from '../../../../src/connect/distributed/offset-store.js';
import { StatusStore } from '../../../../src/connect/distributed/status-store.js';

let offset = 0n;
function record(key: string, value: unknown): ConsumerRecord<Buffer | null, Buffer | null> {
  return { topic: 't', partition: 0, offset: offset++, timestamp: 0, key: Buffer.from(key), value: value === null ? null : Buffer.from(JSON.stringify(value)), headers: [], leaderEpoch: 0 };
}

const options = { bootstrap: '127.0.0.1:1', clientId: 'test', topic: 't', partitions: 1, replicationFactor: 1 };

test('config store: task configs with their commit, target states, tombstones, restarts only after start', () => {
  const events: string[] = [];
  const store = new ConfigStore(options, {
    onConnectorConfig: (n, removed) => events.push(`config ${n} ${removed}`),
    onTaskConfigs: (n) => events.push(`tasks ${n}`),
    onTargetState: (n, s) => events.push(`target ${n} ${s}`),
    onRestartRequest: (n, t, f) => events.push(`restart ${n} ${t} ${f}`),
  });
  store.apply(record('connector-c', { properties: { 'connector.class': 'X', 'tasks.max': 2 } }));
  assert.deepEqual(store.connectors.get('c'), { 'connector.class': 'X', 'tasks.max': '2' }, 'non-string values read as their JSON');
  store.apply(record('restart-connector-c', { 'include-tasks': true, 'only-failed': false }));
  store.apply(record('task-c-0', { properties: { a: '0' } }));
  store.apply(record('task-c-1', { properties: { a: '1' } }));
  assert.equal(store.tasks.get('c'), undefined, 'no task configs before the commit');
  store.apply(record('commit-c', { tasks: 2 }));
  assert.deepEqual(store.tasks.get('c'), [{ a: '0' }, { a: '1' }]);
  assert.deepEqual(events, [], 'history replayed before start tells nobody');
  (store as unknown as { started: boolean }).started = true;
  store.apply(record('task-c-0', { properties: { a: 'new' } }));
  store.apply(record('commit-c', { tasks: 3 }));
  assert.deepEqual(store.tasks.get('c'), [{ a: '0' }, { a: '1' }], 'a commit without all its tasks is ignored');
  store.apply(record('commit-c', { tasks: 1 }));
  assert.deepEqual(store.tasks.get('c'), [{ a: 'new' }]);
  store.apply(record('target-state-c', { state: 'PAUSED', 'state.v2': 'STOPPED' }));
  assert.equal(store.targetState('c'), 'STOPPED');
  store.apply(record('restart-connector-c', { 'include-tasks': true, 'only-failed': true }));
  store.apply(record('connector-c', null));
  assert.equal(store.connectors.has('c'), false);
  assert.equal(store.tasks.has('c'), false);
  assert.equal(store.targetState('c'), 'STARTED');
  assert.deepEqual(events, ['tasks c', 'target c STOPPED', 'restart c true true', 'config c true']);
  assert.equal(store.offset, offset, 'the view is versioned by the next offset to read');
});

test('status store: an older generation from another worker does not replace a newer status', () => {
  const store = new StatusStore(options);
  store.apply(record('status-task-c-0', { state: 'RUNNING', trace: null, worker_id: 'b:1', generation: 5 }));
  store.apply(record('status-task-c-0', { state: 'UNASSIGNED', trace: null, worker_id: 'a:1', generation: 4 }));
  assert.deepEqual(store.task('c', 0), { state: 'RUNNING', trace: null, worker_id: 'b:1', generation: 5 });
  store.apply(record('status-task-c-0', { state: 'FAILED', trace: 'boom', worker_id: 'b:1', generation: 5 }));
  assert.equal(store.task('c', 0)?.trace, 'boom', 'the same worker updates its own status');
  store.apply(record('status-task-c-0', { state: 'RUNNING', trace: null, worker_id: 'a:1', generation: 6 }));
  assert.equal(store.task('c', 0)?.worker_id, 'a:1', 'a newer generation wins');
  store.apply(record('status-topic-lines:connector-c', { topic: { name: 'lines', connector: 'c', task: 0, discoverTimestamp: 1 } }));
  assert.deepEqual(store.activeTopics('c'), ['lines']);
  store.apply(record('status-connector-c', null));
  assert.equal(store.connector('c'), null);
});

test('offset store: Kafka\'s ["connector", {partition}] keys in any key order, tombstones remove', async () => {
  const store = new KafkaOffsetStore(options);
  store.apply(record('["src",{"z":1,"filename":"/f"}]', { position: 10 }));
  assert.deepEqual(store.get('src', { filename: '/f', z: 1 }), { position: 10 });
  store.apply(record('["src",{"filename":"/f","z":1}]', { position: 20 }));
  assert.deepEqual(store.all('src'), [{ partition: { filename: '/f', z: 1 }, offset: { position: 20 } }]);
  store.apply(record('["src",{"filename":"/f","z":1}]', null));
  assert.deepEqual(store.all('src'), []);
  store.apply(record('not json', { position: 1 }));
  assert.deepEqual(store.all('src'), []);
});

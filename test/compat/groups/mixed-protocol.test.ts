// One group, two clients that share no assignor: kafkajs only offers
// "RoundRobinAssigner", librdkafka offers "range" and "roundrobin". The broker
// must choose a protocol every member supports, so the second client to join
// gets INCONSISTENT_GROUP_PROTOCOL (23) and the first keeps its partitions.
//   - kafkajs first, librdkafka (confluent-kafka-python) second: librdkafka
//     surfaces the JoinGroup error to the application as a consumer error with
//     code 23 (KafkaError.INCONSISTENT_GROUP_PROTOCOL) from poll().
//   - librdkafka first, kafkajs second: kafkajs' JoinGroup fails with
//     KafkaJSProtocolError type INCONSISTENT_GROUP_PROTOCOL (not retriable), the
//     consumer crashes (CRASH event, restart: false).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Consumer } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import {
  FAST_GROUP_OVERRIDES,
  HEARTBEAT_INTERVAL_MS,
  REBALANCE_TIMEOUT_MS,
  SESSION_TIMEOUT_MS,
  assertGroupsAdvertised,
  createTopic,
  numberedValues,
  produceOnce,
  sleep,
  stopAll,
  tally,
  waitUntil,
  type Processed,
} from '../../helpers/groups.js';
import { memberKafka, runKafkajsMember, type KafkajsAssignment } from '../../helpers/groups-kafkajs.js';
import { confluentMember, type PythonMember } from '../../helpers/groups-members.js';
import { uniqueName } from '../../helpers/records.js';

const PARTITIONS = 3;
const INCONSISTENT_GROUP_PROTOCOL = 23;

/** The error and its causes (kafkajs wraps the protocol error in retry errors). */
function causes(err: unknown): { name?: string; type?: string; code?: number; message?: string }[] {
  const out: { name?: string; type?: string; code?: number; message?: string }[] = [];
  let e: unknown = err;
  for (let i = 0; i < 10 && e !== null && e !== undefined && typeof e === 'object'; i++) {
    out.push(e as { name?: string; type?: string; code?: number; message?: string });
    e = (e as { cause?: unknown; originalError?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return out;
}

describe('mixed kafkajs + librdkafka group: INCONSISTENT_GROUP_PROTOCOL', { timeout: 90_000, concurrency: 2 }, () => {
  let broker: BrokerProcess;
  const consumers: Consumer[] = [];
  const pythons: PythonMember[] = [];

  before(async () => {
    broker = await startBroker({ name: 'mixed-group', overrides: { ...FAST_GROUP_OVERRIDES } });
    await assertGroupsAdvertised(broker);
  });
  after(async () => {
    await Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined)));
    await stopAll(pythons.map((p) => p.proc));
    await broker?.cleanup();
  });

  it('kafkajs (RoundRobinAssigner) first, then librdkafka (range,roundrobin): librdkafka gets error 23, kafkajs keeps its partitions', async (t) => {
    await broker.explain(async () => {
      const topic = uniqueName('mix-a');
      const groupId = uniqueName('mix-a-g');
      await createTopic(broker, topic, PARTITIONS);
      const assignments: KafkajsAssignment[] = [];
      const processed: Processed[] = [];
      const logs: string[] = [];
      const kjs = await runKafkajsMember({
        bootstrap: broker.bootstrap,
        topic,
        groupId,
        member: 'kjs',
        hooks: { onAssignment: (a) => assignments.push(a), onLog: (l) => logs.push(l) },
        onMessage: (p) => processed.push(p),
      });
      consumers.push(kjs);
      await waitUntil('kafkajs owns every partition', () => assignments.some((a) => a.partitions.length === PARTITIONS), 30_000, () => JSON.stringify(assignments));
      const generation = assignments[assignments.length - 1]?.generationId;

      const py = confluentMember('py-mixed', { bootstrap: broker.bootstrap, topic, group: groupId, strategy: 'range,roundrobin' });
      pythons.push(py);
      const state = (): string => `kafkajs assignments ${JSON.stringify(assignments)}\nkafkajs logs:\n${logs.slice(-10).join('\n')}\n${py.proc.tail(30)}`;
      await waitUntil(
        'librdkafka reports INCONSISTENT_GROUP_PROTOCOL',
        () => py.errors().some((e) => e['code'] === INCONSISTENT_GROUP_PROTOCOL),
        20_000,
        state,
      );
      const err = py.errors().find((e) => e['code'] === INCONSISTENT_GROUP_PROTOCOL);
      t.diagnostic(`librdkafka surfaced: ${JSON.stringify(err)}`);
      assert.equal(err?.['name'], 'INCONSISTENT_GROUP_PROTOCOL');
      assert.deepEqual(py.owned(), [], 'the librdkafka member never got partitions');

      // The kafkajs member is undisturbed: same generation, still consuming everything.
      const values = numberedValues('mix-a', 0, 30);
      await produceOnce(broker.bootstrap, topic, values, PARTITIONS);
      await waitUntil('kafkajs consumes every new record', () => tally(values, processed).missing.length === 0, 20_000, state);
      assert.equal(assignments[assignments.length - 1]?.generationId, generation, `no rebalance of the kafkajs member: ${state()}`);
      assert.equal(py.processed.length, 0, 'the rejected member consumed nothing');
      await py.stop();
    });
  });

  it('librdkafka (range,roundrobin) first, then kafkajs (RoundRobinAssigner): kafkajs fails with KafkaJSProtocolError INCONSISTENT_GROUP_PROTOCOL', async (t) => {
    await broker.explain(async () => {
      const topic = uniqueName('mix-b');
      const groupId = uniqueName('mix-b-g');
      await createTopic(broker, topic, PARTITIONS);
      const py = confluentMember('py-first', { bootstrap: broker.bootstrap, topic, group: groupId, strategy: 'range,roundrobin' });
      pythons.push(py);
      await waitUntil('librdkafka owns every partition', () => py.owned().length === PARTITIONS, 30_000, () => py.proc.tail(30));
      const assignsBefore = py.rebalances.length;

      const logs: string[] = [];
      const kafka = memberKafka(broker.bootstrap, 'kjs-second', topic, { onLog: (l) => logs.push(l) });
      const consumer = kafka.consumer({
        groupId,
        sessionTimeout: SESSION_TIMEOUT_MS,
        heartbeatInterval: HEARTBEAT_INTERVAL_MS,
        rebalanceTimeout: REBALANCE_TIMEOUT_MS,
        retry: { retries: 2, initialRetryTime: 100, restartOnFailure: async () => false },
      });
      consumers.push(consumer);
      const crashes: { error: unknown; restart: boolean }[] = [];
      consumer.on(consumer.events.CRASH, (e) => crashes.push({ error: e.payload.error, restart: e.payload.restart }));
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      let runError: unknown = null;
      await consumer.run({ eachMessage: async () => undefined }).catch((err: unknown) => {
        runError = err;
      });
      await waitUntil('kafkajs crashes', () => crashes.length > 0 || runError !== null, 20_000, () => `logs:\n${logs.join('\n')}\n${py.proc.tail(20)}`);
      const error = crashes[0]?.error ?? runError;
      const chain = causes(error);
      t.diagnostic(`kafkajs error chain: ${JSON.stringify(chain.map((c) => ({ name: c.name, type: c.type, code: c.code, message: c.message })))}; restart=${String(crashes[0]?.restart)}`);
      const protocolError = chain.find((c) => c.type === 'INCONSISTENT_GROUP_PROTOCOL');
      assert.ok(protocolError, `an INCONSISTENT_GROUP_PROTOCOL error in ${JSON.stringify(chain.map((c) => [c.name, c.type, c.message]))}`);
      assert.equal(protocolError.name, 'KafkaJSProtocolError');
      assert.equal(protocolError.code, INCONSISTENT_GROUP_PROTOCOL);
      assert.equal(crashes[0]?.restart, false, 'not retriable: no restart');

      // The librdkafka member kept everything and was not rebalanced.
      await sleep(500);
      assert.equal(py.rebalances.length, assignsBefore, `librdkafka member rebalanced: ${JSON.stringify(py.rebalances)}`);
      assert.equal(py.owned().length, PARTITIONS);
      const values = numberedValues('mix-b', 0, 30);
      await produceOnce(broker.bootstrap, topic, values, PARTITIONS);
      await waitUntil('librdkafka consumes every new record', () => tally(values, py.processed).missing.length === 0, 20_000, () => py.proc.tail(20));
      assert.deepEqual(py.errors(), [], 'librdkafka member errors');
      await py.stop();
    });
  });
});

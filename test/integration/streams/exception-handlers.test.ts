/**
 * The runtime's error handling against a real broker (startCluster):
 * deserialization and production exception handlers (log and continue, or
 * fail), and the uncaught exception handler's three answers with Kafka's
 * state transitions: SHUTDOWN_CLIENT (PENDING_ERROR, ERROR), REPLACE_THREAD
 * (a new thread reprocesses the failed record, the instance keeps running)
 * and SHUTDOWN_APPLICATION (every instance of the application stops,
 * through the assignment's error code).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { Admin, Consumer, Producer } from '../../../src/client/index.js';
import { KafkaStreams, Serdes, StreamsBuilder, type StreamsConfig, type StreamsStateName, type Topology } from '../../../src/streams/index.js';

let cluster: EmbeddedCluster;
let admin: Admin;
let producer: Producer<Buffer | null, Buffer | null>;

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
  admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  producer = await Producer.connect<Buffer | null, Buffer | null>({ clusterOptions: { bootstrap: cluster.bootstrap } });
});
after(async () => {
  await producer.close();
  await admin.close();
  await cluster.stop();
});

let seq = 0;
async function topics(partitions = 1, outputConfigs: Record<string, string> = {}): Promise<{ input: string; output: string; appId: string }> {
  const id = `${Date.now()}-${seq++}`;
  const t = { input: `eh-in-${id}`, output: `eh-out-${id}`, appId: `eh-${id}` };
  await admin.createTopics([{ name: t.input, numPartitions: partitions }, { name: t.output, numPartitions: 1, configs: outputConfigs }]);
  return t;
}

/** Integers in, "<n*2>" out; -1 throws in the processor; 1000 becomes a 5000-byte value. */
function doubler(input: string, output: string, onValue: (n: number) => void = () => {}): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.Integer() })
    .mapValues((n) => {
      onValue(n);
      if (n === -1) throw new Error('poison record');
      return n === 1000 ? 'x'.repeat(5000) : String(n * 2);
    })
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  return builder.build();
}

const int = (n: number): Buffer => Serdes.Integer().serialize('t', n) as Buffer;
const send = (topic: string, value: Buffer, partition = 0): Promise<unknown> => producer.send({ topic, partition, key: Buffer.from('k'), value });

async function readValues(topic: string, count: number): Promise<string[]> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: cluster.bootstrap, autoOffsetReset: 'earliest' });
  consumer.assign([{ topic, partition: 0 }]);
  const out: string[] = [];
  const deadline = Date.now() + 30_000;
  try {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) out.push(r.value?.toString() ?? '');
      if (out.length >= count || Date.now() > deadline) break;
    }
  } finally {
    await consumer.close();
  }
  return out;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 40_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function config(appId: string, logs: string[], extra: Partial<StreamsConfig> = {}): StreamsConfig {
  return { applicationId: appId, bootstrapServers: cluster.bootstrap, commitIntervalMs: 100, sessionTimeoutMs: 6_000, logger: (l, m) => void logs.push(`${l} ${m}`), ...extra };
}

test('logAndContinue skips a record that does not deserialize; productionExceptionHandler continue drops a record the broker refuses', async () => {
  const t = await topics(1, { 'max.message.bytes': '2000' });
  const logs: string[] = [];
  const streams = new KafkaStreams(doubler(t.input, t.output), config(t.appId, logs, { deserializationExceptionHandler: 'logAndContinue', productionExceptionHandler: 'continue' }));
  await streams.start();
  try {
    await send(t.input, Buffer.from([1, 2, 3])); // 3 bytes: not an Integer
    await send(t.input, int(1));
    assert.deepEqual(await readValues(t.output, 1), ['2']);
    await send(t.input, int(1000)); // 5000 bytes out: MESSAGE_TOO_LARGE
    await waitFor(() => logs.some((l) => /^warn cannot produce a record to .*\(dropped\)$/.test(l)), 'the dropped record logged');
    await send(t.input, int(2));
    assert.deepEqual(await readValues(t.output, 2), ['2', '4']);
    assert.ok(logs.some((l) => /^warn cannot deserialize the record at eh-in-\S+-0@0: .*\(skipped\)$/.test(l)), logs.join('\n'));
    assert.equal(streams.currentState, 'RUNNING');
  } finally {
    await streams.close();
  }
});

test('the default handlers fail: a record that does not deserialize takes the client to PENDING_ERROR, then ERROR', async () => {
  const t = await topics();
  const states: StreamsStateName[] = [];
  const streams = new KafkaStreams(doubler(t.input, t.output), config(t.appId, []));
  streams.onStateChange((s) => void states.push(s));
  await streams.start();
  await send(t.input, Buffer.from([1]));
  await waitFor(() => streams.currentState === 'ERROR', 'ERROR');
  assert.deepEqual(states.slice(-2), ['PENDING_ERROR', 'ERROR']);
  assert.ok(!states.includes('PENDING_SHUTDOWN') && !states.includes('NOT_RUNNING'));
  await streams.close(); // allowed in ERROR, stays ERROR
  assert.equal(streams.currentState, 'ERROR');
});

test('REPLACE_THREAD: a new thread reprocesses the failed record and the instance keeps running', async () => {
  const t = await topics();
  let failures = 0;
  const errors: unknown[] = [];
  // The processor fails on the first sight of 7 only (a transient fault).
  const topology = doubler(t.input, t.output, (n) => {
    if (n === 7 && failures++ === 0) throw new Error('transient fault');
  });
  const states: StreamsStateName[] = [];
  const logs: string[] = [];
  const streams = new KafkaStreams(topology, config(t.appId, logs));
  streams.setUncaughtExceptionHandler((err) => (errors.push(err), 'REPLACE_THREAD'));
  streams.onStateChange((s) => void states.push(s));
  await streams.start();
  try {
    await send(t.input, int(5));
    await send(t.input, int(7));
    await waitFor(() => errors.length === 1, 'the transient fault handled');
    await send(t.input, int(6));
    const values = await readValues(t.output, 3);
    assert.deepEqual(values.slice(-2), ['14', '12'], 'the failed record reprocessed by the new thread, then the next');
    assert.equal(values[0], '10');
    await waitFor(() => streams.currentState === 'RUNNING', 'RUNNING again');
    assert.ok(!states.includes('ERROR') && !states.includes('PENDING_ERROR'), states.join(','));
    assert.match(String((errors[0] as Error).message), /transient fault/);
    assert.equal(logs.filter((l) => l.includes('REPLACE_THREAD: the stream thread was replaced')).length, 1, logs.join('\n'));
  } finally {
    await streams.close();
  }
  assert.equal(streams.currentState, 'NOT_RUNNING');
});

test('SHUTDOWN_APPLICATION: one instance fails, every instance of the application goes to ERROR', async () => {
  const t = await topics(2);
  const make = (logs: string[]): KafkaStreams => {
    const s = new KafkaStreams(doubler(t.input, t.output), config(t.appId, logs));
    s.setUncaughtExceptionHandler(() => 'SHUTDOWN_APPLICATION');
    return s;
  };
  const logsA: string[] = [];
  const logsB: string[] = [];
  const a = make(logsA);
  const b = make(logsB);
  const statesB: StreamsStateName[] = [];
  b.onStateChange((s) => void statesB.push(s));
  await a.start();
  await b.start();
  try {
    await waitFor(() => a.metadataForAllStreamsClients().length === 0 && a.currentState === 'RUNNING' && b.currentState === 'RUNNING', 'both running');
    await send(t.input, int(-1), 0);
    await send(t.input, int(-1), 1);
    await waitFor(() => a.currentState === 'ERROR' && b.currentState === 'ERROR', 'both instances in ERROR');
    assert.deepEqual(statesB.slice(-2), ['PENDING_ERROR', 'ERROR']);
    const asked = [...logsA, ...logsB].filter((l) => l.includes('asked every instance to shut down'));
    assert.equal(asked.length, 2, [...logsA, ...logsB].join('\n'));
  } finally {
    await a.close();
    await b.close();
  }
});

/**
 * Suppression across a restart on a broker (startCluster): an instance
 * buffers the count of an open window and stops (committing its input); a
 * new instance restores the suppression buffer from its changelog and emits
 * the window's final count when a later record closes it, although the
 * records that made the count are not processed again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStreamsCluster } from '../../helpers/streams-cluster.js';
import { Consumer, Producer } from '../../../src/client/index.js';
import { KafkaStreams, KeyValue, Serdes, StreamsBuilder, Suppressed, TimeWindows, type Topology } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();
const sc = useStreamsCluster();

async function produce(topic: string, records: [string, number][]): Promise<void> {
  const producer = await Producer.connect<Buffer | null, Buffer | null>({ clusterOptions: { bootstrap: sc.bootstrap } });
  for (const [key, timestamp] of records) await producer.send({ topic, key: Buffer.from(key), value: Buffer.from('x'), timestamp: BigInt(timestamp) });
  await producer.close();
}

/** Reads `topic` from the start until `count` records came (bounded by 30 s). */
async function read(topic: string, count: number): Promise<[string | null, Buffer | null][]> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: sc.bootstrap, autoOffsetReset: 'earliest' });
  consumer.assign([{ topic, partition: 0 }]);
  const got: [string | null, Buffer | null][] = [];
  // Closing the consumer ends the loop even when no record comes.
  const timer = setTimeout(() => void consumer.close(), 30_000);
  try {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) got.push([r.key?.toString() ?? null, r.value]);
      if (got.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await consumer.close();
  }
  return got;
}

function topology(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: S, valueSerde: S })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeWithNoGrace(10_000))
    // Without the window cache every update reaches the suppression buffer (the test counts them in its changelog).
    .count({ storeName: 'counts', cachingEnabled: false })
    .suppress(Suppressed.untilWindowCloses())
    .toStream()
    .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}`, n))
    .to(output, { keySerde: S, valueSerde: L });
  return builder.build();
}

test('suppress: a final result buffered before a restart is emitted after it', async () => {
  const id = Date.now();
  const [input, output] = [`sup-in-${id}`, `sup-out-${id}`];
  await sc.admin.createTopics([{ name: input, numPartitions: 1 }, { name: output, numPartitions: 1 }]);
  const t = topology(input, output);
  const store = /KTABLE-SUPPRESS-STATE-STORE-\d{10}/.exec(t.describe().toString())?.[0];
  const config = { applicationId: `sup-${id}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 100 };
  const first = new KafkaStreams(t, config);
  await first.start();
  await produce(input, [['k', 1000], ['k', 2000]]);
  const buffered = await read(`${config.applicationId}-${store}-changelog`, 2);
  assert.equal(buffered.length, 2, 'both updates of k@0 went to the buffer changelog');
  await first.close();

  const second = new KafkaStreams(topology(input, output), config);
  await second.start();
  try {
    await produce(input, [['k', 15_000]]);
    const out = await read(output, 1);
    assert.deepEqual(out.map(([k, v]) => [k, L.deserialize(output, v)]), [['k@0', 2n]]);
  } finally {
    await second.close();
  }
});

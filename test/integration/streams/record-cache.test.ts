/**
 * Record caching on a broker (startCluster): a word count over 300 records
 * of one word forwards every update with caching off, and far fewer with
 * the default cache (updates wait for the commit), the last count exact
 * either way; the changelog is deduplicated the same way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStreamsCluster } from '../../helpers/streams-cluster.js';
import { Consumer, Producer } from '../../../src/client/index.js';
import { KafkaStreams, Serdes, StreamsBuilder } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();
const RECORDS = 300;
const sc = useStreamsCluster();

/** Reads `topic` until a record says `word` = RECORDS (bounded by 30 s); returns how many records came. */
async function readUntilFinal(topic: string): Promise<number> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: sc.bootstrap, autoOffsetReset: 'earliest' });
  consumer.assign([{ topic, partition: 0 }]);
  const deadline = Date.now() + 30_000;
  let n = 0;
  try {
    for await (const batch of consumer.batches()) {
      let done = false;
      for (const r of batch.records) {
        n++;
        if (L.deserialize(topic, r.value) === BigInt(RECORDS)) done = true;
      }
      if (done || Date.now() > deadline) break;
    }
  } finally {
    await consumer.close();
  }
  return n;
}

async function run(cacheBytes: number): Promise<{ output: number; changelog: number }> {
  const id = `${Date.now()}-${cacheBytes}`;
  const [input, out] = [`cache-in-${id}`, `cache-out-${id}`];
  await sc.admin.createTopics([{ name: input, numPartitions: 1 }, { name: out, numPartitions: 1 }]);
  const producer = await Producer.connect<Buffer | null, Buffer | null>({ clusterOptions: { bootstrap: sc.bootstrap } });
  await Promise.all(Array.from({ length: RECORDS }, () => producer.send({ topic: input, key: null, value: Buffer.from('word') })));
  await producer.close();
  const builder = new StreamsBuilder();
  builder.stream(input, { keySerde: S, valueSerde: S }).groupBy((_k, v) => v, { keySerde: S, valueSerde: S }).count({ storeName: 'counts' }).toStream().to(out, { keySerde: S, valueSerde: L });
  const applicationId = `cache-${id}`;
  const streams = new KafkaStreams(builder.build(), { applicationId, bootstrapServers: sc.bootstrap, commitIntervalMs: 1000, statestoreCacheMaxBytes: cacheBytes });
  await streams.start();
  try {
    const output = await readUntilFinal(out);
    const changelog = await readUntilFinal(`${applicationId}-counts-changelog`);
    return { output, changelog };
  } finally {
    await streams.close();
  }
}

test('caching off: every update of the count is forwarded and logged', async () => {
  assert.deepEqual(await run(0), { output: RECORDS, changelog: RECORDS });
});

test('caching on: updates between commits are forwarded and logged once per key', async () => {
  const { output, changelog } = await run(10 * 1024 * 1024);
  assert.ok(output < RECORDS / 3, `${output} output records for ${RECORDS} updates`);
  assert.ok(changelog < RECORDS / 3, `${changelog} changelog records for ${RECORDS} updates`);
});

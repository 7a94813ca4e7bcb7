/**
 * GlobalKTable and a stream-stream join against a real broker (startCluster):
 * the global store is bootstrapped from every partition of its topic before
 * the stream is processed (the orders topic has 2 partitions, the products
 * topic 3: no co-partitioning needed), keeps following the topic, and is
 * queryable; a windowed stream-stream join gives the test driver's results;
 * session windows survive a restart through their changelog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { produceStrings, readStringMap, useStreamsCluster } from '../../helpers/streams-cluster.js';
import { JoinWindows, KafkaStreams, KeyValue, Serdes, SessionWindows, StreamsBuilder, type Topology } from '../../../src/streams/index.js';

const S = Serdes.String();
const sc = useStreamsCluster();
const produce = (topic: string, records: [string, string | null, number?][]): Promise<void> => produceStrings(sc.bootstrap, topic, records);
/** Reads `topic` from the start until `count` records came, or `done` holds (bounded by 30 s). */
const read = (topic: string, count: number, done?: (got: Map<string, string | null>) => boolean): Promise<Map<string, string | null>> =>
  readStringMap(sc, topic, { count, ...(done === undefined ? {} : { done }) });

function enrich(orders: string, products: string, out: string): Topology {
  const builder = new StreamsBuilder();
  const table = builder.globalTable(products, { keySerde: S, valueSerde: S }, { storeName: 'products' });
  builder
    .stream(orders, { keySerde: S, valueSerde: S })
    .leftJoin(table, (_id, v) => v.split(':')[0] ?? null, (o, p) => `${o}->${p}`)
    .to(out, { keySerde: S, valueSerde: S });
  return builder.build();
}

test('GlobalKTable: bootstrapped from all partitions before processing, follows updates, queryable', async () => {
  const id = Date.now();
  const [orders, products, out] = [`orders-${id}`, `products-${id}`, `enriched-${id}`];
  await sc.admin.createTopics([{ name: orders, numPartitions: 2 }, { name: products, numPartitions: 3 }, { name: out, numPartitions: 1 }]);
  await produce(products, [['p1', 'apple'], ['p2', 'pear'], ['p3', 'plum'], ['p3', null]]);
  await produce(orders, [['o1', 'p1:1'], ['o2', 'p2:2'], ['o3', 'p3:3']]);
  const streams = new KafkaStreams(enrich(orders, products, out), { applicationId: `global-${id}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 200 });
  await streams.start();
  try {
    assert.deepEqual(Object.fromEntries(await read(out, 3)), { o1: 'p1:1->apple', o2: 'p2:2->pear', o3: 'p3:3->null' });
    assert.equal(streams.store<string, string>('products').get('p2'), 'pear');
    await produce(products, [['p3', 'fig']]);
    const deadline = Date.now() + 30_000;
    while (streams.store<string, string>('products').get('p3') !== 'fig' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await produce(orders, [['o4', 'p3:4']]);
    assert.equal((await read(out, 4)).get('o4'), 'p3:4->fig');
  } finally {
    await streams.close();
  }
});

test('stream-stream left join on a cluster: joined pairs, and the unmatched record once its window closed', async () => {
  const id = Date.now();
  const [left, right, out] = [`sl-${id}`, `sr-${id}`, `sj-${id}`];
  await sc.admin.createTopics([{ name: left, numPartitions: 1 }, { name: right, numPartitions: 1 }, { name: out, numPartitions: 1 }]);
  const builder = new StreamsBuilder();
  builder
    .stream(left, { keySerde: S, valueSerde: S })
    .leftJoin(builder.stream(right, { keySerde: S, valueSerde: S }), (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceWithNoGrace(100))
    .to(out, { keySerde: S, valueSerde: S });
  const streams = new KafkaStreams(builder.build(), { applicationId: `ssj-${id}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 200 });
  await streams.start();
  try {
    await produce(left, [['a', 'A', 1000], ['b', 'B', 1010]]);
    await produce(right, [['a', 'x', 1050], ['z', 'late-clock', 5000]]);
    assert.deepEqual(Object.fromEntries(await read(out, 2)), { a: 'A+x', b: 'B+null' });
  } finally {
    await streams.close();
  }
});

test('session windows on a cluster: a new instance restores the sessions from the changelog and merges into them', async () => {
  const id = Date.now();
  const [input, out] = [`clicks-${id}`, `sessions-${id}`];
  await sc.admin.createTopics([{ name: input, numPartitions: 2 }, { name: out, numPartitions: 1 }]);
  const topology = (): Topology => {
    const builder = new StreamsBuilder();
    builder
      .stream(input, { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(100, 10_000))
      .count({ storeName: 'sessions' })
      .toStream()
      .filter((_wk, n) => n !== null)
      .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}-${wk.window.end}`, String(n)))
      .to(out, { keySerde: S, valueSerde: S });
    return builder.build();
  };
  const config = { applicationId: `sess-${id}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 200 };
  const first = new KafkaStreams(topology(), config);
  await first.start();
  await produce(input, [['u', 'a', 1000], ['u', 'b', 1050]]);
  // The store caches: the session [1000, 1000] may be merged away before a commit and never emitted.
  assert.equal((await read(out, 2, (got) => got.has('u@1000-1050'))).get('u@1000-1050'), '2');
  await first.close();
  const second = new KafkaStreams(topology(), config);
  await second.start();
  try {
    await produce(input, [['u', 'c', 1120]]);
    assert.equal((await read(out, 3, (got) => got.has('u@1000-1120'))).get('u@1000-1120'), '3', 'the restored session [1000,1050] merged with the record at 1120');
  } finally {
    await second.close();
  }
});

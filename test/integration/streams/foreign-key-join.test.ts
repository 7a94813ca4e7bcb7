/**
 * A foreign-key join against a real broker (startCluster): orders (3
 * partitions) joined with products (2 partitions), which are not
 * co-partitioned; the subscription and response topics are created sized
 * like their readers, and the result equals the test driver's: a product
 * update reaches the orders of every partition that point at it, and an
 * order moving to another product is joined with that one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { produceStrings, readStringMap, useStreamsCluster } from '../../helpers/streams-cluster.js';
import { KafkaStreams, Serdes, StreamsBuilder, TopologyTestDriver, type Topology } from '../../../src/streams/index.js';

const S = Serdes.String();
const sc = useStreamsCluster();
const produce = (topic: string, records: [string, string | null][]): Promise<void> => produceStrings(sc.bootstrap, topic, records);
/** Reads `topic` from the start into a map (last value per key) until `done(map)` or 30 s. */
const readUntil = (topic: string, done: (m: Map<string, string | null>) => boolean): Promise<Map<string, string | null>> => readStringMap(sc, topic, { done });

function topology(orders: string, products: string, out: string): Topology {
  const builder = new StreamsBuilder();
  const productTable = builder.table(products, { keySerde: S, valueSerde: S });
  builder
    .table(orders, { keySerde: S, valueSerde: S })
    .leftJoin(productTable, (order) => order.split(':')[0] ?? null, (order, product) => `${order}/${product}`, { storeName: 'enriched', valueSerde: S })
    .toStream()
    .to(out, { keySerde: S, valueSerde: S });
  return builder.build();
}

const ORDERS: [string, string][] = Array.from({ length: 12 }, (_, i) => [`o${i}`, `p${i % 3}:${i}`]);
const PRODUCTS: [string, string][] = [['p0', 'apple'], ['p1', 'pear'], ['p2', 'plum']];

test('foreign-key left join on a cluster: tables of different partition counts, updates on both sides', async () => {
  const id = Date.now();
  const [orders, products, out] = [`fk-orders-${id}`, `fk-products-${id}`, `fk-out-${id}`];
  await sc.admin.createTopics([{ name: orders, numPartitions: 3 }, { name: products, numPartitions: 2 }, { name: out, numPartitions: 1 }]);
  await produce(products, PRODUCTS);
  await produce(orders, ORDERS);
  const applicationId = `fk-${id}`;
  const t = topology(orders, products, out);
  const internal = (kind: string): string => `${applicationId}-${new RegExp(`KTABLE-FK-JOIN-SUBSCRIPTION-${kind}-\\d{10}-topic`).exec(t.describe().toString())?.[0]}`;
  const streams = new KafkaStreams(t, { applicationId, bootstrapServers: sc.bootstrap, commitIntervalMs: 200 });
  await streams.start();
  try {
    const described = await sc.admin.describeTopics([internal('REGISTRATION'), internal('RESPONSE')]);
    assert.deepEqual(described.map((d) => d.partitions.length), [2, 3], 'subscriptions sized like products, responses like orders');
    const expected = (m: Map<string, string | null>): boolean => ORDERS.every(([o, v]) => m.get(o) === `${v}/${PRODUCTS[Number(v[1])]?.[1]}`);
    assert.ok(expected(await readUntil(out, expected)), 'every order joined with its product');

    // Oracle: the test driver run over the same inputs and updates.
    const driver = new TopologyTestDriver(topology(orders, products, out));
    driver.createInputTopic(products, S, S).pipeKeyValueList(PRODUCTS.map(([key, value]) => ({ key, value })));
    driver.createInputTopic(orders, S, S).pipeKeyValueList(ORDERS.map(([key, value]) => ({ key, value })));
    const updates: [string, string, string | null][] = [[products, 'p1', 'nashi'], [orders, 'o0', 'p1:0'], [products, 'p2', null]];
    for (const [topic, key, value] of updates) driver.createInputTopic(topic, S, S).pipeInput(key, value);
    const oracle = driver.createOutputTopic(out, S, S).readKeyValuesToMap();
    driver.close();

    for (const [topic, key, value] of updates) await produce(topic, [[key, value]]);
    const same = (m: Map<string, string | null>): boolean => [...oracle].every(([k, v]) => m.get(k) === v);
    const got = await readUntil(out, same);
    assert.deepEqual(new Map([...got].filter(([k]) => oracle.has(k))), oracle);
    assert.equal(got.get('o0'), 'p1:0/nashi');
    assert.equal(got.get('o2'), 'p2:2/null');
    assert.equal(streams.store<string, string>('enriched').get('o4'), 'p1:4/nashi');
  } finally {
    await streams.close();
  }
});

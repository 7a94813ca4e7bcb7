/**
 * GlobalKTable in the TopologyTestDriver, against Kafka Streams' KStream-GlobalKTable
 * join semantics: the lookup key comes from a key selector over the stream
 * record; the inner join drops records without a table value, the left join
 * passes null; table updates and deletions emit nothing but change later lookups.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamsBuilder, TopologyTestDriver, type KeyValueStore } from '../../../src/streams/index.js';

const S = Serdes.String();

function run(left: boolean, steps: [topic: 'orders' | 'products', key: string, value: string | null][]): { out: string[]; topology: string } {
  const builder = new StreamsBuilder();
  const products = builder.globalTable('products', { keySerde: S, valueSerde: S }, { storeName: 'products-store' });
  // Orders are keyed by order id; the value is "<product id>:<quantity>".
  const orders = builder.stream('orders', { keySerde: S, valueSerde: S });
  const selector = (_orderId: string, value: string): string | null => value.split(':')[0] || null;
  const joined = left ? orders.leftJoin(products, selector, (o, p) => `${o}->${p}`) : orders.join(products, selector, (o, p) => `${o}->${p}`);
  joined.to('out', { keySerde: S, valueSerde: S });
  const topology = builder.build();
  const driver = new TopologyTestDriver(topology);
  const topics = { orders: driver.createInputTopic('orders', S, S), products: driver.createInputTopic('products', S, S) };
  const outTopic = driver.createOutputTopic('out', S, S);
  const out: string[] = [];
  for (const [topic, key, value] of steps) {
    topics[topic].pipeInput(key, value);
    out.push(...outTopic.readKeyValuesToList().map((r) => `${r.key}=${r.value}`));
  }
  driver.close();
  return { out, topology: topology.describe().toString() };
}

const STEPS: [('orders' | 'products'), string, string | null][] = [
  ['orders', 'o1', 'p1:2'],
  ['products', 'p1', 'apple'],
  ['orders', 'o2', 'p1:1'],
  ['products', 'p1', 'pear'],
  ['orders', 'o3', 'p1:5'],
  ['orders', 'o4', ':5'],
  ['products', 'p1', null],
  ['orders', 'o5', 'p1:3'],
];

test('KStream-GlobalKTable inner join: looks up by the selected key, keeps the stream key, table updates emit nothing', () => {
  assert.deepEqual(run(false, STEPS).out, ['o2=p1:1->apple', 'o3=p1:5->pear']);
});

test('KStream-GlobalKTable left join: null when the table has no value or the selector gives null', () => {
  assert.deepEqual(run(true, STEPS).out, ['o1=p1:2->null', 'o2=p1:1->apple', 'o3=p1:5->pear', 'o4=:5->null', 'o5=p1:3->null']);
});

test('the global store is queryable, outside every sub-topology, and its topic cannot also be a stream', () => {
  const builder = new StreamsBuilder();
  builder.globalTable('g', { keySerde: S, valueSerde: S }, { storeName: 'gs' });
  builder.stream('a', { keySerde: S, valueSerde: S }).mapValues((v) => v.toUpperCase()).map((k, v) => KeyValue.pair(v, k)).to('out');
  const topology = builder.build();
  assert.equal(topology.subtopologies().length, 1);
  const driver = new TopologyTestDriver(topology);
  driver.createInputTopic('g', S, S).pipeInput('x', '1');
  assert.equal(driver.getStateStore<KeyValueStore<string, string>>('gs').get('x'), '1');
  driver.close();
  const b2 = new StreamsBuilder();
  b2.globalTable('g', { keySerde: S, valueSerde: S });
  assert.throws(() => b2.stream('g'), /read by both|global store/);
});

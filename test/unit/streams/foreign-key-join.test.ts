/**
 * Foreign-key table-table joins (KIP-213) in the test driver: orders (key:
 * order id, value `<product>:<qty>`) joined with products (key: product id).
 * The table tests follow the semantics documented by KIP-213 and the Kafka
 * Streams developer guide: the result is keyed like the left table; a right
 * change reaches every left row pointing at it; a left row that moves to
 * another foreign key is joined with the new right row (or unset for an inner
 * join); deletes on either side unset results with tombstones; a response
 * for a left value that changed since is dropped (hash check).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamsBuilder, TopologyTestDriver, type KTable } from '../../../src/streams/index.js';

const S = Serdes.String();
type Step = [side: 'O' | 'P', key: string, value: string | null];
const productOf = (order: string): string | null => (order.split(':')[0] || null);
const joiner = (order: string, product: string | null): string => `${order}/${product}`;

function build(left: boolean, materialize = false): { builder: StreamsBuilder; joined: KTable<string, string> } {
  const builder = new StreamsBuilder();
  const orders = builder.table('orders', { keySerde: S, valueSerde: S });
  const products = builder.table('products', { keySerde: S, valueSerde: S });
  const m = materialize ? { storeName: 'joined', valueSerde: S } : undefined;
  const joined = left ? orders.leftJoin(products, productOf, joiner, m) : orders.join(products, productOf, joiner, m);
  return { builder, joined };
}

/** Runs the steps; returns each step's output as `key=value` strings. */
function run(left: boolean, steps: Step[]): string[][] {
  const { builder, joined } = build(left);
  joined.toStream().to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build(), { statestoreCacheMaxBytes: 0 });
  const inputs = { O: driver.createInputTopic('orders', S, S), P: driver.createInputTopic('products', S, S) };
  const out = driver.createOutputTopic('out', S, S);
  try {
    return steps.map(([side, key, value]) => {
      inputs[side].pipeInput(key, value);
      return out.readKeyValuesToList().map((kv) => `${kv.key}=${kv.value}`);
    });
  } finally {
    driver.close();
  }
}

const STEPS: Step[] = [
  ['O', 'o1', 'p1:1'], // 0: order before its product
  ['P', 'p1', 'apple'], // 1: the product arrives
  ['O', 'o2', 'p1:2'], // 2: a second order of p1
  ['P', 'p1', 'green apple'], // 3: product update reaches both orders
  ['O', 'o1', 'p1:5'], // 4: order update, same product
  ['O', 'o1', 'p2:5'], // 5: order moves to a product that does not exist
  ['P', 'p2', 'pear'], // 6: that product arrives
  ['P', 'p1', null], // 7: p1 deleted: o2 loses its match
  ['O', 'o2', null], // 8: order deleted
  ['O', 'o3', ':7'], // 9: an order without a product (null foreign key)
  ['P', 'p9', 'fig'], // 10: a product no order references
  ['O', 'o1', 'p2:6'], // 11: update while matched
];

test('foreign-key inner join: the documented result per step', () => {
  assert.deepEqual(run(false, STEPS), [
    [],
    ['o1=p1:1/apple'],
    ['o2=p1:2/apple'],
    ['o1=p1:1/green apple', 'o2=p1:2/green apple'],
    ['o1=p1:5/green apple'],
    ['o1=null'],
    ['o1=p2:5/pear'],
    ['o2=null'],
    ['o2=null'],
    [],
    [],
    ['o1=p2:6/pear'],
  ]);
});

test('foreign-key left join: every left row has a result, null on the right when unmatched', () => {
  assert.deepEqual(run(true, STEPS), [
    ['o1=p1:1/null'],
    ['o1=p1:1/apple'],
    ['o2=p1:2/apple'],
    ['o1=p1:1/green apple', 'o2=p1:2/green apple'],
    ['o1=p1:5/green apple'],
    ['o1=p2:5/null'],
    ['o1=p2:5/pear'],
    ['o2=p1:2/null'],
    ['o2=null'],
    ['o3=:7/null'],
    [],
    ['o1=p2:6/pear'],
  ]);
});

test('foreign-key join: an order moving away from a product is no longer updated by it', () => {
  const out = run(false, [['P', 'p1', 'apple'], ['P', 'p2', 'pear'], ['O', 'o1', 'p1:1'], ['O', 'o1', 'p2:1'], ['P', 'p1', 'red apple'], ['P', 'p2', 'nashi']]);
  assert.deepEqual(out, [[], [], ['o1=p1:1/apple'], ['o1=p2:1/pear'], [], ['o1=p2:1/nashi']]);
});

test('foreign-key left join: an order losing its foreign key is joined with null, its deletion is a tombstone', () => {
  const out = run(true, [['P', 'p1', 'apple'], ['O', 'o1', 'p1:1'], ['O', 'o1', ':1'], ['P', 'p1', 'red apple'], ['O', 'o1', null]]);
  assert.deepEqual(out, [[], ['o1=p1:1/apple'], ['o1=:1/null'], [], ['o1=null']]);
});

test('foreign-key inner join: an order losing its foreign key is unset', () => {
  const out = run(false, [['P', 'p1', 'apple'], ['O', 'o1', 'p1:1'], ['O', 'o1', ':1'], ['P', 'p1', 'red apple']]);
  assert.deepEqual(out, [[], ['o1=p1:1/apple'], ['o1=null'], []]);
});

test('foreign-key join: a response for a left value that changed meanwhile is dropped (hash check)', () => {
  // One input updates order o1 twice before either subscription is answered:
  // the answer to the first value arrives when the row already holds the second.
  const builder = new StreamsBuilder();
  const orders = builder
    .stream('order-batches', { keySerde: S, valueSerde: S })
    .flatMap((_k, v) => v.split(',').map((item) => KeyValue.pair(item.split('=')[0] as string, item.split('=')[1] as string)))
    .groupByKey({ keySerde: S, valueSerde: S })
    .reduce((_old, next) => next);
  const products = builder.table('products', { keySerde: S, valueSerde: S });
  orders.join(products, productOf, joiner).toStream().to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build(), { statestoreCacheMaxBytes: 0 });
  const out = driver.createOutputTopic('out', S, S);
  driver.createInputTopic('products', S, S).pipeKeyValueList([KeyValue.pair('p1', 'apple'), KeyValue.pair('p2', 'pear')]);
  driver.createInputTopic('order-batches', S, S).pipeInput('batch', 'o1=p1:1,o1=p2:2');
  assert.deepEqual(out.readKeyValuesToList(), [KeyValue.pair('o1', 'p2:2/pear')]);
  driver.close();
});

test('foreign-key join: materialized result is queryable; internal topics and stores are named as Kafka names them', () => {
  const { builder, joined } = build(false, true);
  joined.toStream().to('out', { keySerde: S, valueSerde: S });
  const topology = builder.build();
  const description = topology.describe().toString();
  assert.match(description, /KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-\d{10}-topic/);
  assert.match(description, /KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-\d{10}-topic/);
  assert.match(description, /KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-\d{10}/);
  assert.equal(topology.subtopologies().length, 2, 'left and right sides run in their own sub-topologies');
  const driver = new TopologyTestDriver(topology);
  driver.createInputTopic('products', S, S).pipeInput('p1', 'apple');
  driver.createInputTopic('orders', S, S).pipeInput('o1', 'p1:1');
  assert.equal(driver.getKeyValueStore<string, string>('joined').get('o1'), 'p1:1/apple');
  driver.close();
});

test('foreign-key join: missing serdes are refused at build time, naming what is missing', () => {
  const builder = new StreamsBuilder();
  const orders = builder.table<string, string>('orders', { keySerde: S });
  const products = builder.table('products', { keySerde: S, valueSerde: S });
  assert.throws(() => orders.join(products, productOf, joiner), /left table's value serde/);
});

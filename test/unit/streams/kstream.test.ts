/** Every KStream operator through the TopologyTestDriver. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamsBuilder, TopologyTestDriver, type KStream } from '../../../src/streams/index.js';

const S = Serdes.String();
const I = Serdes.Integer();

/** Runs `build(stream of 'in')` over `input` and returns what 'out' got. */
function run<K, V>(build: (s: KStream<string, number>) => KStream<K, V> | void, input: [string | null, number][], out: { key: import('../../../src/streams/index.js').Serde<K>; value: import('../../../src/streams/index.js').Serde<V> }): { key: K | null; value: V | null }[] {
  const builder = new StreamsBuilder();
  const result = build(builder.stream('in', { keySerde: S, valueSerde: I }));
  if (result) result.to('out', { keySerde: out.key, valueSerde: out.value });
  const driver = new TopologyTestDriver(builder.build());
  const tin = driver.createInputTopic('in', S, I);
  for (const [k, v] of input) tin.pipeInput(k, v);
  const records = driver.createOutputTopic('out', out.key, out.value).readKeyValuesToList();
  driver.close();
  return records;
}

const input: [string, number][] = [['a', 1], ['b', 2], ['c', 3], ['d', 4]];
const SI = { key: S, value: I };

test('filter and filterNot', () => {
  assert.deepEqual(run((s) => s.filter((_k, v) => v % 2 === 0), input, SI), [{ key: 'b', value: 2 }, { key: 'd', value: 4 }]);
  assert.deepEqual(run((s) => s.filterNot((_k, v) => v % 2 === 0), input, SI), [{ key: 'a', value: 1 }, { key: 'c', value: 3 }]);
});

test('map, mapValues, selectKey', () => {
  assert.deepEqual(run((s) => s.map((k, v) => KeyValue.pair(`${k}${v}`, v * 10)), input.slice(0, 2), SI), [{ key: 'a1', value: 10 }, { key: 'b2', value: 20 }]);
  assert.deepEqual(run((s) => s.mapValues((v, k) => `${k}=${v}`), input.slice(0, 2), { key: S, value: S }), [{ key: 'a', value: 'a=1' }, { key: 'b', value: 'b=2' }]);
  assert.deepEqual(run((s) => s.selectKey((_k, v) => String(v)), input.slice(0, 1), SI), [{ key: '1', value: 1 }]);
});

test('flatMap and flatMapValues emit zero or more records', () => {
  assert.deepEqual(run((s) => s.flatMap((k, v) => Array.from({ length: v - 1 }, (_, i) => KeyValue.pair(`${k}${i}`, i))), input.slice(0, 3), SI), [
    { key: 'b0', value: 0 },
    { key: 'c0', value: 0 },
    { key: 'c1', value: 1 },
  ]);
  assert.deepEqual(run((s) => s.flatMapValues((v) => (v > 2 ? [v, -v] : [])), input, SI), [
    { key: 'c', value: 3 },
    { key: 'c', value: -3 },
    { key: 'd', value: 4 },
    { key: 'd', value: -4 },
  ]);
});

test('peek and foreach see every record', () => {
  const peeked: string[] = [];
  const seen: string[] = [];
  assert.equal(run((s) => s.peek((k) => void peeked.push(k)), input, SI).length, 4);
  run((s) => s.foreach((k, v) => void seen.push(`${k}${v}`)), input, SI);
  assert.deepEqual(peeked, ['a', 'b', 'c', 'd']);
  assert.deepEqual(seen, ['a1', 'b2', 'c3', 'd4']);
});

test('split routes each record to the first matching branch; the default branch takes the rest', () => {
  const builder = new StreamsBuilder();
  const branches = builder
    .stream('in', { keySerde: S, valueSerde: I })
    .split('route-')
    .branch((_k, v) => v < 2, { name: 'small' })
    .branch((_k, v) => v < 4)
    .defaultBranch();
  assert.deepEqual([...branches.keys()], ['route-small', 'route-2', 'route-0']);
  for (const [name, stream] of branches) stream.to(name, { keySerde: S, valueSerde: I });
  const driver = new TopologyTestDriver(builder.build());
  const tin = driver.createInputTopic('in', S, I);
  for (const [k, v] of input) tin.pipeInput(k, v);
  const read = (t: string): (number | null)[] => driver.createOutputTopic(t, S, I).readValuesToList();
  assert.deepEqual(read('route-small'), [1]);
  assert.deepEqual(read('route-2'), [2, 3]);
  assert.deepEqual(read('route-0'), [4]);
  driver.close();
});

test('merge interleaves two streams in arrival order', () => {
  const builder = new StreamsBuilder();
  const a = builder.stream('a', { keySerde: S, valueSerde: I });
  const b = builder.stream('b', { keySerde: S, valueSerde: I });
  a.merge(b).to('out', { keySerde: S, valueSerde: I });
  const driver = new TopologyTestDriver(builder.build());
  driver.createInputTopic('a', S, I).pipeInput('x', 1);
  driver.createInputTopic('b', S, I).pipeInput('y', 2);
  driver.createInputTopic('a', S, I).pipeInput('z', 3);
  assert.deepEqual(driver.createOutputTopic('out', S, I).readValuesToList(), [1, 2, 3]);
  driver.close();
});

test('to() with a topic extractor, and repartition() through an internal topic', () => {
  const builder = new StreamsBuilder();
  const s = builder.stream('in', { keySerde: S, valueSerde: I });
  s.to((k) => `out-${k}`, { keySerde: S, valueSerde: I, partitioner: (_t, _k, v, n) => v % n });
  s.repartition({ name: 'rekeyed', numberOfPartitions: 4 }).to('after', { keySerde: S, valueSerde: I });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
  const tin = driver.createInputTopic('in', S, I);
  tin.pipeInput('a', 1);
  tin.pipeInput('b', 2);
  assert.deepEqual(driver.createOutputTopic('out-a', S, I).readValuesToList(), [1]);
  assert.deepEqual(driver.createOutputTopic('out-b', S, I).readValuesToList(), [2]);
  assert.deepEqual(driver.createOutputTopic('after', S, I).readKeyValuesToList(), [{ key: 'a', value: 1 }, { key: 'b', value: 2 }]);
  assert.ok(driver.producedTopicNames().includes('app-rekeyed-repartition'));
  driver.close();
});

test('groupByKey reduce and aggregate keep per-key state; null keys and values are skipped', () => {
  const builder = new StreamsBuilder();
  const grouped = builder.stream('in', { keySerde: S, valueSerde: I }).groupByKey();
  grouped.reduce((a, b) => a + b, { storeName: 'sums' }).toStream().to('sums', { keySerde: S, valueSerde: I });
  grouped.aggregate(() => '', (_k, v, agg) => agg + String(v), { storeName: 'concat', valueSerde: S }).toStream().to('concat', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build());
  const tin = driver.createInputTopic('in', S, I);
  tin.pipeInput('a', 1);
  tin.pipeInput('a', 2);
  tin.pipeInput(null, 5);
  tin.pipeInput('b', null);
  tin.pipeInput('b', 7);
  assert.deepEqual(driver.createOutputTopic('sums', S, I).readKeyValuesToList(), [{ key: 'a', value: 1 }, { key: 'a', value: 3 }, { key: 'b', value: 7 }]);
  assert.deepEqual(driver.createOutputTopic('concat', S, S).readValuesToList(), ['1', '12', '7']);
  assert.equal(driver.getKeyValueStore<string, number>('sums').get('a'), 3);
  driver.close();
});

test('a bad record with the default handler fails with the source named', () => {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: Serdes.Long() }).to('out');
  const driver = new TopologyTestDriver(builder.build());
  assert.throws(() => driver.createInputTopic('in', S, Serdes.Integer()).pipeInput('k', 1), /source 'KSTREAM-SOURCE-0000000000' cannot deserialize/);
  driver.close();
});

test('a deserialization handler answering CONTINUE skips the bad record and processing goes on', () => {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: Serdes.Long() }).to('out', { keySerde: S, valueSerde: Serdes.Long() });
  const skipped: string[] = [];
  const driver = new TopologyTestDriver(builder.build(), { deserializationExceptionHandler: (_err, r) => (skipped.push(`${r.topic}@${r.offset}`), 'CONTINUE') });
  driver.createInputTopic('in', S, Serdes.Integer()).pipeInput('k', 1);
  driver.createInputTopic('in', S, Serdes.Long()).pipeInput('k', 2n);
  assert.deepEqual(skipped, ['in@0']);
  assert.deepEqual(driver.createOutputTopic('out', S, Serdes.Long()).readValuesToList(), [2n]);
  driver.close();
});

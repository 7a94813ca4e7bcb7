/**
 * Join semantics as the tables of the Kafka Streams developer guide
 * ("Joining", KStream-KTable and KTable-KTable): the same input sequence of
 * one key, one record per timestamp on the left or the right side, and
 * the output each join type gives at each step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, StreamsBuilder, TopologyTestDriver, type KStream, type KTable } from '../../../src/streams/index.js';

const S = Serdes.String();
type Side = 'L' | 'R';
/** The guide's sequence: [timestamp, side, value]. */
const SEQUENCE: [number, Side, string | null][] = [
  [1, 'L', null], [2, 'R', null], [3, 'L', 'A'], [4, 'R', 'a'], [5, 'L', 'B'], [6, 'R', 'b'], [7, 'L', null], [8, 'R', null],
  [9, 'L', 'C'], [10, 'R', 'c'], [11, 'R', null], [12, 'L', null], [13, 'R', null], [14, 'R', 'd'], [15, 'L', 'D'],
];
const joiner = (l: string | null, r: string | null): string => `[${l},${r}]`;

/** The outputs per timestamp (a timestamp without output is absent). */
function outputs(build: (b: StreamsBuilder) => KStream<string, string>): Map<number, (string | null)[]> {
  const builder = new StreamsBuilder();
  build(builder).to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build());
  const left = driver.createInputTopic('left', S, S);
  const right = driver.createInputTopic('right', S, S);
  const out = driver.createOutputTopic('out', S, S);
  const result = new Map<number, (string | null)[]>();
  for (const [ts, side, value] of SEQUENCE) {
    (side === 'L' ? left : right).pipeInput('k', value, ts);
    const values = out.readValuesToList();
    if (values.length > 0) result.set(ts, values);
  }
  driver.close();
  return result;
}

const table = (b: StreamsBuilder, topic: string): KTable<string, string> => b.table(topic, { keySerde: S, valueSerde: S });
const stream = (b: StreamsBuilder): KStream<string, string> => b.stream('left', { keySerde: S, valueSerde: S });

test('KStream-KTable inner join: only stream records with a table value, table updates emit nothing', () => {
  assert.deepEqual(outputs((b) => stream(b).join(table(b, 'right'), joiner)), new Map([[5, ['[B,a]']], [15, ['[D,d]']]]));
});

test('KStream-KTable left join: every stream record with a value, null when the table has none', () => {
  assert.deepEqual(outputs((b) => stream(b).leftJoin(table(b, 'right'), joiner)), new Map([[3, ['[A,null]']], [5, ['[B,a]']], [9, ['[C,null]']], [15, ['[D,d]']]]));
});

test('KTable-KTable inner join', () => {
  assert.deepEqual(
    outputs((b) => table(b, 'left').join(table(b, 'right'), joiner).toStream()),
    new Map<number, (string | null)[]>([[4, ['[A,a]']], [5, ['[B,a]']], [6, ['[B,b]']], [7, [null]], [10, ['[C,c]']], [11, [null]], [15, ['[D,d]']]]),
  );
});

test('KTable-KTable left join', () => {
  assert.deepEqual(
    outputs((b) => table(b, 'left').leftJoin(table(b, 'right'), joiner).toStream()),
    new Map<number, (string | null)[]>([
      [3, ['[A,null]']], [4, ['[A,a]']], [5, ['[B,a]']], [6, ['[B,b]']], [7, [null]],
      [9, ['[C,null]']], [10, ['[C,c]']], [11, ['[C,null]']], [12, [null]], [15, ['[D,d]']],
    ]),
  );
});

test('KTable-KTable outer join', () => {
  assert.deepEqual(
    outputs((b) => table(b, 'left').outerJoin(table(b, 'right'), joiner).toStream()),
    new Map<number, (string | null)[]>([
      [3, ['[A,null]']], [4, ['[A,a]']], [5, ['[B,a]']], [6, ['[B,b]']], [7, ['[null,b]']], [8, [null]],
      [9, ['[C,null]']], [10, ['[C,c]']], [11, ['[C,null]']], [12, [null]], [14, ['[null,d]']], [15, ['[D,d]']],
    ]),
  );
});

test('KTable filter and mapValues propagate deletions; a joined derived table reads through its parent store', () => {
  const builder = new StreamsBuilder();
  const prices = builder.table('prices', { keySerde: Serdes.String(), valueSerde: Serdes.Integer() });
  const cheap = prices.filter((_k, v) => v < 10).mapValues((v) => `$${v}`);
  cheap.toStream().to('cheap', { keySerde: S, valueSerde: S });
  builder.stream('orders', { keySerde: S, valueSerde: S }).join(cheap, (o, p) => `${o}@${p}`).to('priced', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build());
  const p = driver.createInputTopic('prices', S, Serdes.Integer());
  const o = driver.createInputTopic('orders', S, S);
  p.pipeInput('x', 5);
  p.pipeInput('y', 50);
  o.pipeInput('x', 'o1');
  o.pipeInput('y', 'o2');
  p.pipeInput('x', 20);
  o.pipeInput('x', 'o3');
  assert.deepEqual(driver.createOutputTopic('cheap', S, S).readKeyValuesToList(), [{ key: 'x', value: '$5' }, { key: 'x', value: null }]);
  assert.deepEqual(driver.createOutputTopic('priced', S, S).readValuesToList(), ['o1@$5']);
  driver.close();
});

test('a join after a key change goes through a repartition topic', () => {
  const builder = new StreamsBuilder();
  const users = builder.table('users', { keySerde: S, valueSerde: S });
  builder
    .stream('clicks', { keySerde: S, valueSerde: S })
    .selectKey((_k, v) => v)
    .join(users, (click, name) => `${click} by ${name}`, { keySerde: S, valueSerde: S })
    .to('out', { keySerde: S, valueSerde: S });
  const topology = builder.build();
  assert.match(topology.describe().toString(), /Sink: KSTREAM-KEY-SELECT-0000000004-repartition-sink/);
  const driver = new TopologyTestDriver(topology);
  driver.createInputTopic('users', S, S).pipeInput('u1', 'Ann');
  driver.createInputTopic('clicks', S, S).pipeInput('page', 'u1');
  assert.deepEqual(driver.createOutputTopic('out', S, S).readKeyValuesToList(), [{ key: 'u1', value: 'u1 by Ann' }]);
  driver.close();
});

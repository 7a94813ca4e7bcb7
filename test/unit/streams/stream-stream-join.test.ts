/**
 * Stream-stream windowed joins against Kafka Streams' semantics: the
 * KStream-KStream table of the developer guide ("Joining"), and Kafka 3.x's
 * left/outer behaviour (a record without a partner is emitted with null only
 * after its window closes), late records, asymmetric windows, duplicates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JoinWindows, Serdes, StreamsBuilder, TopologyTestDriver, type KStream } from '../../../src/streams/index.js';

const S = Serdes.String();
type Side = 'L' | 'R';
type Mode = 'inner' | 'left' | 'outer';
const joiner = (l: string | null, r: string | null): string => `[${l},${r}]`;

function join(mode: Mode, windows: JoinWindows, l: KStream<string, string>, r: KStream<string, string>): KStream<string, string> {
  if (mode === 'inner') return l.join(r, joiner, windows);
  if (mode === 'left') return l.leftJoin(r, joiner, windows);
  return l.outerJoin(r, joiner, windows);
}

/** Pipes [timestamp, side, value, key?] in order; returns the outputs after each input (`value@timestamp`), by input timestamp. */
function run(mode: Mode, windows: JoinWindows, input: [number, Side, string | null, string?][]): Map<number, string[]> {
  const builder = new StreamsBuilder();
  const l = builder.stream('left', { keySerde: S, valueSerde: S });
  const r = builder.stream('right', { keySerde: S, valueSerde: S });
  join(mode, windows, l, r).to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build());
  const tl = driver.createInputTopic('left', S, S);
  const tr = driver.createInputTopic('right', S, S);
  const out = driver.createOutputTopic('out', S, S);
  const result = new Map<number, string[]>();
  for (const [ts, side, value, key] of input) {
    (side === 'L' ? tl : tr).pipeInput(key ?? 'k', value, ts);
    const got = out.readRecordsToList().map((rec) => `${rec.value}@${rec.timestamp}`);
    if (got.length > 0) result.set(ts, got);
  }
  driver.close();
  return result;
}

/** The developer guide's sequence, all within one window. */
const GUIDE: [number, Side, string | null][] = [
  [1, 'L', null], [2, 'R', null], [3, 'L', 'A'], [4, 'R', 'a'], [5, 'L', 'B'], [6, 'R', 'b'], [7, 'L', null], [8, 'R', null],
  [9, 'L', 'C'], [10, 'R', 'c'], [11, 'R', null], [12, 'L', null], [13, 'R', null], [14, 'R', 'd'], [15, 'L', 'D'],
];
const GUIDE_RESULT = new Map([
  [4, ['[A,a]@4']], [5, ['[B,a]@5']], [6, ['[A,b]@6', '[B,b]@6']], [9, ['[C,a]@9', '[C,b]@9']], [10, ['[A,c]@10', '[B,c]@10', '[C,c]@10']],
  [14, ['[A,d]@14', '[B,d]@14', '[C,d]@14']], [15, ['[D,a]@15', '[D,b]@15', '[D,c]@15', '[D,d]@15']],
]);

test('KStream-KStream inner, left and outer join: the developer guide table (Kafka 3.x: no eager [A,null])', () => {
  for (const mode of ['inner', 'left', 'outer'] as const) assert.deepEqual(run(mode, JoinWindows.ofTimeDifferenceWithNoGrace(100), GUIDE), GUIDE_RESULT, mode);
});

test('left join: a record without a partner is emitted with null when its window closes, at its own timestamp', () => {
  const input: [number, Side, string][] = [[0, 'L', 'A'], [5, 'L', 'B'], [30, 'R', 'x'], [50, 'L', 'C']];
  assert.deepEqual(run('left', JoinWindows.ofTimeDifferenceWithNoGrace(10), input), new Map([[30, ['[A,null]@0', '[B,null]@5']]]));
  assert.deepEqual(
    run('outer', JoinWindows.ofTimeDifferenceWithNoGrace(10), input),
    new Map([[30, ['[A,null]@0', '[B,null]@5']], [50, ['[null,x]@30']]]),
    'the outer join also emits right records without a partner',
  );
  assert.deepEqual(run('inner', JoinWindows.ofTimeDifferenceWithNoGrace(10), input), new Map());
});

test('left join: a partner arriving within the window cancels the null result', () => {
  const out = run('left', JoinWindows.ofTimeDifferenceWithNoGrace(10), [[0, 'L', 'A'], [8, 'R', 'a'], [100, 'R', 'z'], [200, 'L', 'Q']]);
  assert.deepEqual(out, new Map([[8, ['[A,a]@8']]]));
});

test('grace: unmatched records wait for end + grace; a late record is dropped; an out-of-order one within grace and past its window is emitted at once', () => {
  const w = JoinWindows.ofTimeDifferenceAndGrace(5, 20);
  assert.deepEqual(run('left', w, [[0, 'L', 'A'], [20, 'R', 'x'], [26, 'R', 'y']]), new Map([[26, ['[A,null]@0']]]), 'A closes when 0 + 5 + 20 < stream time');
  assert.deepEqual(run('left', w, [[100, 'R', 'x'], [50, 'L', 'late']]), new Map(), '50 + 5 + 20 < 100: dropped');
  assert.deepEqual(run('left', w, [[100, 'R', 'x'], [80, 'L', 'Y']]), new Map([[80, ['[Y,null]@80']]]), 'its window ended at 85 < 100: no partner can come');
  assert.deepEqual(run('inner', w, [[100, 'L', 'A'], [96, 'R', 'a'], [90, 'R', 'late']]), new Map([[96, ['[A,a]@100']]]));
});

test('before/after: a left record at t joins right records in [t - before, t + after] only', () => {
  const w = JoinWindows.ofTimeDifferenceWithNoGrace(0).after(10).before(2);
  const out = run('inner', w, [[10, 'L', 'A'], [7, 'R', 'early'], [8, 'R', 'b'], [20, 'R', 'c'], [21, 'R', 'late']]);
  assert.deepEqual(out, new Map([[8, ['[A,b]@10']], [20, ['[A,c]@20']]]));
  assert.throws(() => JoinWindows.ofTimeDifferenceWithNoGrace(-1), /non-negative/);
});

test('two records of one key and time both join; other keys never do; null keys and values are dropped', () => {
  const out = run('inner', JoinWindows.ofTimeDifferenceWithNoGrace(10), [[5, 'L', 'A'], [5, 'L', 'A2'], [5, 'R', 'o', 'other'], [6, 'R', 'a'], [7, 'R', null]]);
  assert.deepEqual(out, new Map([[6, ['[A,a]@6', '[A2,a]@6']]]));
});

test('the join stores have changelogs; describe() shows both sides and the merge', () => {
  const builder = new StreamsBuilder();
  const l = builder.stream('left', { keySerde: S, valueSerde: S });
  l.outerJoin(builder.stream('right', { keySerde: S, valueSerde: S }), joiner, JoinWindows.ofTimeDifferenceWithNoGrace(10), { storeName: 'j' }).to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
  driver.createInputTopic('left', S, S).pipeInput('k', 'A', 1);
  driver.createInputTopic('right', S, S).pipeInput('k', 'a', 2);
  assert.deepEqual(driver.createOutputTopic('out', S, S).readValuesToList(), ['[A,a]']);
  const names = driver.producedTopicNames();
  for (const store of ['j-this-join-store', 'j-other-join-store', 'j-outer-shared-join-store']) assert.ok(names.includes(`app-${store}-changelog`), store);
  const outerLog = driver.createOutputTopic('app-j-outer-shared-join-store-changelog', Serdes.ByteArray(), Serdes.ByteArray()).readKeyValuesToList();
  assert.deepEqual(outerLog.map((r) => r.value === null), [false, true], 'A was buffered, then removed when a joined it');
  driver.close();
  const text = builder.build().describe().toString();
  assert.match(text, /KSTREAM-OUTERTHIS/);
  assert.match(text, /KSTREAM-MERGE/);
});

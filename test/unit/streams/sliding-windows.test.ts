/**
 * Sliding windows against KIP-450: after any sequence of records, the
 * windows are exactly the left window [t - D, t] of every record and the
 * right window [t + 1, t + 1 + D] of every record with a later one within
 * D + 1, each holding the records it spans; updates are emitted as records
 * arrive, out-of-order records within grace included, late ones dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, SlidingWindows, StreamsBuilder, Suppressed, TopologyTestDriver, type KTable, type WindowStore, type Windowed } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();

function run(windows: SlidingWindows, input: number[], shape: (t: KTable<Windowed<string>, bigint>) => KTable<Windowed<string>, bigint> = (t) => t): { out: string[][]; windows: string[] } {
  const builder = new StreamsBuilder();
  shape(builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(windows).count({ storeName: 'counts' }))
    .toStream()
    .map((wk, n) => KeyValue.pair(`[${wk.window.start},${wk.window.end}]`, n))
    .to('out', { keySerde: S, valueSerde: L });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
  const tin = driver.createInputTopic('in', S, S);
  const tout = driver.createOutputTopic('out', S, L);
  const out: string[][] = [];
  for (const ts of input) {
    tin.pipeInput('k', `v${ts}`, ts);
    out.push(tout.readRecordsToList().map((r) => `${r.key}=${r.value}@${r.timestamp}`));
  }
  const store = driver.getStateStore<WindowStore<string, bigint>>('counts');
  const snapshot = store.fetchRange('k', 0, 1000).map((e) => `[${e.windowStart},${e.windowStart + 10}]=${e.value}`);
  assert.ok(driver.producedTopicNames().includes('app-counts-changelog'));
  driver.close();
  return { out, windows: snapshot };
}

test('in order and out of order within grace: left windows, right windows of the previous record and of the late one', () => {
  const { out, windows } = run(SlidingWindows.ofTimeDifferenceAndGrace(10, 20), [10, 15, 30, 25]);
  assert.deepEqual(out, [
    ['[0,10]=1@10'],
    ['[5,15]=2@15', '[11,21]=1@15'],
    ['[20,30]=1@30'],
    ['[15,25]=2@25', '[16,26]=1@25', '[20,30]=2@30', '[26,36]=1@30'],
  ]);
  assert.deepEqual(windows, ['[0,10]=1', '[5,15]=2', '[11,21]=1', '[15,25]=2', '[16,26]=1', '[20,30]=2', '[26,36]=1']);
});

test('a record sharing a window updates it; records more than D + 1 apart share nothing', () => {
  const { out } = run(SlidingWindows.ofTimeDifferenceWithNoGrace(10), [20, 20, 40]);
  assert.deepEqual(out, [['[10,20]=1@20'], ['[10,20]=2@20'], ['[30,40]=1@40']]);
});

test('late records: dropped when every window that could hold them is closed; closed windows are not updated', () => {
  assert.deepEqual(run(SlidingWindows.ofTimeDifferenceWithNoGrace(10), [10, 30, 15]).out[2], [], '15 + 10 + 1 <= 30');
  const { out, windows } = run(SlidingWindows.ofTimeDifferenceWithNoGrace(10), [10, 30, 25]);
  assert.deepEqual(out[2], ['[20,30]=2@30', '[26,36]=1@30'], 'the left window of 25, [15,25], is closed (25 < 30); [20,30] still open');
  assert.deepEqual(windows, ['[0,10]=1', '[20,30]=2', '[26,36]=1']);
});

test('records before D share the window [0, D]', () => {
  const { out } = run(SlidingWindows.ofTimeDifferenceWithNoGrace(10), [2, 5]);
  assert.deepEqual(out, [['[0,10]=1@2'], ['[0,10]=2@5', '[3,13]=1@5']]);
});

test('suppress(untilWindowCloses) emits each sliding window once it closes', () => {
  const { out } = run(SlidingWindows.ofTimeDifferenceWithNoGrace(10), [10, 15, 40], (t) => t.suppress(Suppressed.untilWindowCloses()));
  assert.deepEqual(out.flat(), ['[0,10]=1@10', '[5,15]=2@15', '[11,21]=1@15']);
});

test('reduce folds the values of each window; the time difference is validated', () => {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(5)).reduce((a, b) => `${a}+${b}`, { storeName: 'r' });
  const driver = new TopologyTestDriver(builder.build());
  const tin = driver.createInputTopic('in', S, S);
  for (const ts of [10, 12, 20]) tin.pipeInput('k', `v${ts}`, ts);
  const store = driver.getStateStore<WindowStore<string, string>>('r');
  assert.deepEqual(store.fetchRange('k', 0, 100).map((e) => `${e.windowStart}:${e.value}`), ['5:v10', '7:v10+v12', '11:v12', '15:v20']);
  driver.close();
  assert.throws(() => SlidingWindows.ofTimeDifferenceWithNoGrace(-1), /time difference/);
});

/** Windowed aggregation: out-of-order and late records with grace, hopping windows, suppression once per window. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamsBuilder, Suppressed, TimeWindows, TopologyTestDriver, WindowedSerdes, type KTable, type WindowStore, type Windowed } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();

function run(windows: TimeWindows, input: number[], shape: (t: KTable<Windowed<string>, bigint>) => KTable<Windowed<string>, bigint> = (t) => t): { out: string[]; store: (start: number) => bigint | null } {
  const builder = new StreamsBuilder();
  shape(builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(windows).count({ storeName: 'counts' }))
    .toStream()
    .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}-${wk.window.end}`, n))
    .to('out', { keySerde: S, valueSerde: L });
  const driver = new TopologyTestDriver(builder.build());
  const tin = driver.createInputTopic('in', S, S);
  for (const ts of input) tin.pipeInput('k', `v${ts}`, ts);
  const out = driver.createOutputTopic('out', S, L).readKeyValuesToList().map((r) => `${r.key}=${r.value}`);
  const store = driver.getStateStore<WindowStore<string, bigint>>('counts');
  const snapshot = new Map(store.fetchRange('k', 0, 1000).map((e) => [e.windowStart, e.value]));
  driver.close();
  return { out, store: (start) => snapshot.get(start) ?? null };
}

test('tumbling windows with grace: an out-of-order record within grace counts, a late one is dropped', () => {
  const { out, store } = run(TimeWindows.ofSizeAndGrace(10, 5), [1, 12, 8, 16, 3, 25]);
  assert.deepEqual(out, ['k@0-10=1', 'k@10-20=1', 'k@0-10=2', 'k@10-20=2', 'k@20-30=1']);
  // The record at 3 came after stream time 16 closed [0,10) (10 + 5 <= 16): the output has no third count for it.
  assert.equal(store(0), null, '[0,10) is past retention (size + grace = 15) once the window starting at 20 is written');
  assert.equal(store(10), 2n);
});

test('without grace a window closes at its end', () => {
  const { out } = run(TimeWindows.ofSizeWithNoGrace(10), [1, 12, 8]);
  assert.deepEqual(out, ['k@0-10=1', 'k@10-20=1']);
});

test('hopping windows: a record counts in every window that contains it', () => {
  const { out } = run(TimeWindows.ofSizeWithNoGrace(10).advanceBy(5), [7, 12]);
  assert.deepEqual(out, ['k@0-10=1', 'k@5-15=1', 'k@5-15=2', 'k@10-20=1']);
  assert.deepEqual(TimeWindows.ofSizeWithNoGrace(10).advanceBy(5).windowsFor(3), [{ start: 0, end: 10 }]);
  assert.throws(() => TimeWindows.ofSizeWithNoGrace(10).advanceBy(11), /advance/);
});

test('suppress(untilWindowCloses) emits one final count per window, when stream time passes end + grace', () => {
  const { out } = run(TimeWindows.ofSizeAndGrace(10, 5), [1, 12, 8, 14, 16, 3, 24, 25, 40], (t) => t.suppress(Suppressed.untilWindowCloses()));
  assert.deepEqual(out, ['k@0-10=2', 'k@10-20=3', 'k@20-30=2']);
});

test('suppress needs a windowed table', () => {
  const builder = new StreamsBuilder();
  const table = builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().count();
  assert.throws(() => table.suppress(Suppressed.untilWindowCloses()), /needs a windowed table/);
});

test('the time-windowed serde writes the key then the start as 8 big-endian bytes', () => {
  const serde = WindowedSerdes.timeWindowedSerdeFrom(S, 10);
  const bytes = serde.serialize('t', { key: 'ab', window: { start: 20, end: 30 } });
  assert.deepEqual(bytes, Buffer.concat([Buffer.from('ab'), Buffer.from([0, 0, 0, 0, 0, 0, 0, 20])]));
  assert.deepEqual(serde.deserialize('t', bytes), { key: 'ab', window: { start: 20, end: 30 } });
});

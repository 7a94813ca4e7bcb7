/**
 * Window retention: window stores (time and sliding windows) and the join
 * buffers of stream-stream joins drop what is older than their retention
 * (window size + grace by default, or Materialized.retentionMs), so they stay
 * bounded however long the input; the deletions go to the changelog; results
 * within retention are unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JoinWindows, KeyValue, Serdes, SlidingWindows, StreamsBuilder, TimeWindows, TopologyTestDriver, type WindowStore } from '../../../src/streams/index.js';
import type { JoinWindowBuffer } from '../../../src/streams/state/join-buffer-store.js';

const S = Serdes.String();
const L = Serdes.Long();
const RECORDS = 2000;

function windowedCount(retentionMs?: number): { driver: TopologyTestDriver; store: WindowStore<string, bigint> } {
  const builder = new StreamsBuilder();
  builder
    .stream('in', { keySerde: S, valueSerde: S })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
    .count({ storeName: 'counts', ...(retentionMs === undefined ? {} : { retentionMs }) })
    .toStream()
    .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}`, n))
    .to('out', { keySerde: S, valueSerde: L });
  const driver = new TopologyTestDriver(builder.build());
  const input = driver.createInputTopic('in', S, S);
  for (let t = 0; t < RECORDS; t++) input.pipeInput(`k${t % 3}`, 'v', t);
  return { driver, store: driver.getStateStore<WindowStore<string, bigint>>('counts') };
}

test('a time-window store keeps about size + grace of windows, not all of them', () => {
  const { driver, store } = windowedCount();
  const windows = store.approximateNumEntries();
  // 3 keys, windows of 10 ms kept 15 ms plus at most half a retention of segment slack: a handful per key.
  assert.ok(windows > 0 && windows <= 3 * 4, `${windows} windows held after ${RECORDS} records`);
  assert.equal(store.fetch('k1', RECORDS - 10), 4n, 'the latest window is complete (k1: 1990, 1993, 1996, 1999)');
  assert.equal(store.fetch('k0', 0), null, 'the first window is gone');
  const changelog = driver.createOutputTopic('test-driver-counts-changelog', S, L).readKeyValuesToList();
  assert.ok(changelog.filter((r) => r.value === null).length >= RECORDS / 10 * 3 - 3 * 4, 'expired windows are deleted from the changelog');
  driver.close();
});

test('Materialized.retentionMs keeps windows longer for queries; shorter than size + grace is refused', () => {
  const { driver, store } = windowedCount(1000);
  assert.equal(store.fetch('k2', RECORDS - 900), 4n, 'a window 900 ms old is still there (k2: 1100 to 1109)');
  assert.equal(store.fetch('k1', 500), null);
  assert.equal(store.fetchRange('k1', 0, RECORDS).length <= 3 * 100 / 3 + 50 + 3, true);
  driver.close();
  const builder = new StreamsBuilder();
  const grouped = builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(10, 5));
  assert.throws(() => grouped.count({ storeName: 'c', retentionMs: 14 }), /retentionMs 14 is shorter than window size \+ grace \(15 ms\)/);
});

test('stream-stream join buffers keep before + after + grace of records; joins within the window still happen', () => {
  const builder = new StreamsBuilder();
  const left = builder.stream('left', { keySerde: S, valueSerde: S });
  const right = builder.stream('right', { keySerde: S, valueSerde: S });
  left.join(right, (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceAndGrace(20, 10), { storeName: 'j' }).to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build());
  const [l, r] = [driver.createInputTopic('left', S, S), driver.createInputTopic('right', S, S)];
  for (let t = 0; t < RECORDS; t++) {
    l.pipeInput('k', `L${t}`, t);
    if (t % 10 === 5) r.pipeInput('k', `R${t}`, t);
  }
  const held = driver.getStateStore<JoinWindowBuffer<string, string>>('j-this-join-store').approximateNumEntries();
  assert.ok(held <= 50 + 25 + 1, `${held} left records held (retention 50 ms, one record per ms, plus half a retention)`);
  const out = driver.createOutputTopic('out', S, S).readValuesToList();
  // Each right record at t joins the left records in [t - 20, t + 20]: 21 earlier ones at once, 20 later ones as they come.
  const last = RECORDS - 5 - 20;
  assert.equal(out.filter((v) => v?.endsWith(`+R${last}`)).length, 41);
  driver.close();
});

test('sliding windows keep a bounded store and record buffer', () => {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 5)).count({ storeName: 's' });
  const driver = new TopologyTestDriver(builder.build());
  const input = driver.createInputTopic('in', S, S);
  for (let t = 0; t < RECORDS; t += 3) input.pipeInput('k', 'v', t);
  const windows = driver.getStateStore<WindowStore<string, bigint>>('s');
  const records = driver.getStateStore<JoinWindowBuffer<string, string>>('s-sliding-records');
  assert.ok(windows.approximateNumEntries() < 60, `${windows.approximateNumEntries()} windows`);
  assert.ok(records.approximateNumEntries() < 30, `${records.approximateNumEntries()} records`);
  const t = RECORDS - 2; // the last record time (1998): its left window [1988, 1998] holds 1989..1998 step 3
  assert.equal(windows.fetch('k', t - 10), 4n);
  driver.close();
});

/**
 * The suppression buffer's changelog: every buffered update is logged and
 * every emitted or dropped one deleted, and replaying the changelog into a
 * new buffer (what a restarted task does) gives back exactly the updates not
 * emitted yet, which are then emitted when their windows close.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamsBuilder, Suppressed, TimeWindows, TopologyTestDriver, type StateStoreContext } from '../../../src/streams/index.js';
import { SuppressionBuffer } from '../../../src/streams/state/suppression-buffer.js';

const S = Serdes.String();
const L = Serdes.Long();

function context(log: [Buffer, Buffer | null][], restorers: ((k: Buffer, v: Buffer | null) => void)[]): StateStoreContext {
  return {
    applicationId: 'app',
    taskId: '0_0',
    partition: 0,
    stateDir: null,
    defaultKeySerde: S as never,
    defaultValueSerde: L as never,
    logChange: (_s, k, v) => void log.push([k, v]),
    recordTimestampMs: () => 0,
    cache: null,
    registerRestore: (_s, restore) => void restorers.push(restore),
    reportWiped: () => {},
  };
}

test('a suppression buffer restored from its changelog holds what was not emitted, and emits it when due', () => {
  const log: [Buffer, Buffer | null][] = [];
  const first = new SuppressionBuffer('buf', undefined, undefined, true);
  first.init(context(log, []));
  first.put({ key: 'a', start: 0, end: 10, value: 1n, timestamp: 3 });
  first.put({ key: 'a', start: 0, end: 10, value: 2n, timestamp: 5 });
  first.put({ key: 'b', start: 10, end: 20, value: 7n, timestamp: 12 });
  first.put({ key: 'c', start: 10, end: 20, value: 1n, timestamp: 13 });
  first.delete('c', 10, 20);
  assert.deepEqual(first.takeDue(14, 4).map((u) => `${u.key}=${u.value}`), ['a=2']);
  first.close();

  const restorers: ((k: Buffer, v: Buffer | null) => void)[] = [];
  const second = new SuppressionBuffer('buf', undefined, undefined, true);
  second.init(context([], restorers));
  for (const [k, v] of log) restorers[0]?.(k, v);
  assert.equal(second.size, 1, 'only b is left: a was emitted, c deleted');
  assert.deepEqual(second.takeDue(23, 4), []);
  assert.deepEqual(second.takeDue(24, 4), [{ key: 'b', start: 10, end: 20, value: 7n, timestamp: 12, bytes: log[2]?.[0] }]);
});

test('suppress logs its buffer to <app>-KTABLE-SUPPRESS-STATE-STORE-<n>-changelog: a put per update, a tombstone per emission', () => {
  const builder = new StreamsBuilder();
  builder
    .stream('in', { keySerde: S, valueSerde: S })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(10, 0))
    .count()
    .suppress(Suppressed.untilWindowCloses())
    .toStream()
    .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}`, n))
    .to('out', { keySerde: S, valueSerde: L });
  const topology = builder.build();
  const store = /KTABLE-SUPPRESS-STATE-STORE-\d{10}/.exec(topology.describe().toString())?.[0];
  assert.ok(store !== undefined, topology.describe().toString());
  const driver = new TopologyTestDriver(topology);
  const input = driver.createInputTopic('in', S, S);
  input.pipeInput('k', 'x', 1);
  input.pipeInput('k', 'x', 2);
  input.pipeInput('k', 'x', 11);
  assert.deepEqual(driver.createOutputTopic('out', S, L).readKeyValuesToList(), [KeyValue.pair('k@0', 2n)]);
  const changes = driver.createOutputTopic(`test-driver-${store}-changelog`, Serdes.ByteArray(), Serdes.ByteArray()).readKeyValuesToList();
  assert.deepEqual(changes.map((c) => c.value === null ? 'delete' : 'put'), ['put', 'put', 'put', 'delete']);
  driver.close();
});

/**
 * Sliding-window aggregation caching (Kafka caches the sliding-window
 * aggregation's window store): the updates of a window made while one
 * input is processed reach downstream and the changelog once, stamped with
 * the window's latest record time; `cachingEnabled: false` or a cache of 0
 * bytes forwards every update.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, SlidingWindows, StreamsBuilder, TopologyTestDriver } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();

function slidingCount(options: { cacheBytes?: number; cachingEnabled?: boolean }): { pipe: (line: string, ts: number) => void; read: () => string[]; changelog: () => number; close: () => void } {
  const builder = new StreamsBuilder();
  builder
    .stream('lines', { keySerde: S, valueSerde: S })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_k, w) => w, { keySerde: S, valueSerde: S })
    .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 100))
    .count({ storeName: 'sliding', ...(options.cachingEnabled === undefined ? {} : { cachingEnabled: options.cachingEnabled }) })
    .toStream()
    .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}-${wk.window.end}`, n))
    .to('out', { keySerde: S, valueSerde: L });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app', ...(options.cacheBytes === undefined ? {} : { statestoreCacheMaxBytes: options.cacheBytes }) });
  const input = driver.createInputTopic('lines', S, S);
  const out = driver.createOutputTopic('out', S, L);
  const log = driver.createOutputTopic('app-sliding-changelog', S, L);
  return {
    pipe: (line, ts) => input.pipeInput(null, line, ts),
    read: () => out.readRecordsToList().map((r) => `${r.key}=${r.value}@${r.timestamp}`),
    changelog: () => log.readRecordsToList().length,
    close: () => driver.close(),
  };
}

test('sliding windows cache by default: a window updated twice within one input goes downstream and to the changelog once', () => {
  const wc = slidingCount({});
  wc.pipe('a a', 7);
  assert.deepEqual(wc.read(), ['a@0-10=2@7']);
  assert.equal(wc.changelog(), 1);
  wc.pipe('a', 12);
  assert.deepEqual(wc.read(), ['a@2-12=3@12', 'a@8-18=1@12'], 'the new left window, then the right window of the records at 7');
  wc.close();
});

test('sliding windows without caching (cachingEnabled: false, or a cache of 0 bytes) forward every update', () => {
  for (const options of [{ cachingEnabled: false }, { cacheBytes: 0 }]) {
    const wc = slidingCount(options);
    wc.pipe('a a', 7);
    assert.deepEqual(wc.read(), ['a@0-10=1@7', 'a@0-10=2@7'], JSON.stringify(options));
    assert.equal(wc.changelog(), 2);
    wc.close();
  }
});

/**
 * Sliding-window aggregation caching (Kafka caches the sliding-window
 * aggregation's window store): the updates of a window made while one
 * input is processed reach downstream and the changelog once, stamped with
 * the window's latest record time; `cachingEnabled: false` or a cache of 0
 * bytes forwards every update.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingWindows } from '../../../src/streams/index.js';
import { windowedWordCount, type CachingOptions, type WindowedCount } from '../../helpers/streams-caching.js';

const slidingCount = (options: CachingOptions): WindowedCount =>
  windowedWordCount('sliding', options, (grouped, materialized) => grouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 100)).count(materialized));

test('sliding windows cache by default: a window updated twice within one input goes downstream and to the changelog once', () => {
  const wc = slidingCount({});
  wc.pipe('a a', 7);
  assert.deepEqual(wc.readTimed(), ['a@0-10=2@7']);
  assert.equal(wc.changelog(), 1);
  wc.pipe('a', 12);
  assert.deepEqual(wc.readTimed(), ['a@2-12=3@12', 'a@8-18=1@12'], 'the new left window, then the right window of the records at 7');
  wc.close();
});

test('sliding windows without caching (cachingEnabled: false, or a cache of 0 bytes) forward every update', () => {
  for (const options of [{ cachingEnabled: false }, { cacheBytes: 0 }]) {
    const wc = slidingCount(options);
    wc.pipe('a a', 7);
    assert.deepEqual(wc.readTimed(), ['a@0-10=1@7', 'a@0-10=2@7'], JSON.stringify(options));
    assert.equal(wc.changelog(), 2);
    wc.close();
  }
});

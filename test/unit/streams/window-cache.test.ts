/**
 * Window store caching (Kafka's CachingWindowStore): a windowed aggregation's
 * updates of one window between two flushes reach the store, the changelog
 * and downstream once (the driver flushes after each input); reads and
 * window ranges see unflushed writes; a flush hands the listener the value it
 * replaces; `cachingEnabled: false` or a cache of 0 bytes forwards every
 * update; retention still applies to what the cache writes through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, Stores, TimeWindows, WindowStore, type StateStoreContext } from '../../../src/streams/index.js';
import { RecordCache } from '../../../src/streams/state/record-cache.js';
import { cachingStoreContext, windowedWordCount, type CachingOptions, type WindowedCount } from '../../helpers/streams-caching.js';

const S = Serdes.String();

const timeWindowedCount = (options: CachingOptions): WindowedCount =>
  windowedWordCount('counts', options, (grouped, materialized) => grouped.windowedBy(TimeWindows.ofSizeAndGrace(10, 0).advanceBy(5)).count(materialized));

test('cached by default: the updates of a window within one input go downstream and to the changelog once', () => {
  const wc = timeWindowedCount({});
  wc.pipe('a b a a', 7);
  assert.deepEqual(wc.read(), ['b@0-10=1', 'b@5-15=1', 'a@0-10=3', 'a@5-15=3'], 'each window once, in last-update order');
  assert.equal(wc.changelog(), 4);
  wc.pipe('a', 12);
  assert.deepEqual(wc.read(), ['a@5-15=4', 'a@10-20=1'], 'the driver flushes after each input');
  wc.close();
});

test('cachingEnabled: false, or a cache of 0 bytes: every update is forwarded', () => {
  for (const options of [{ cachingEnabled: false }, { cacheBytes: 0 }]) {
    const wc = timeWindowedCount(options);
    wc.pipe('a a', 7);
    assert.deepEqual(wc.read(), ['a@0-10=1', 'a@5-15=1', 'a@0-10=2', 'a@5-15=2'], JSON.stringify(options));
    assert.equal(wc.changelog(), 4);
    wc.close();
  }
});

function storeContext(cache: RecordCache, logged: string[]): StateStoreContext {
  return cachingStoreContext(cache, (_s, k, v, ts) => void logged.push(`${k.subarray(0, k.length - 8).toString()}@${Number(k.readBigInt64BE(k.length - 8))}=${v?.toString() ?? null}@${ts ?? 'now'}`), 9);
}

test('a caching window store: fetch and fetchRange see unflushed writes; a flush writes each window once with the value it replaces', () => {
  const logged: string[] = [];
  const flushed: string[] = [];
  const store = new WindowStore<string, string>(Stores.inMemoryKeyValueStore('w'), S, S, true, 100, true);
  store.init(storeContext(new RecordCache(1 << 20), logged));
  assert.equal(store.setFlushListener((k, start, n, o, ts) => void flushed.push(`${k}@${start}:${o}->${n}@${ts}`)), true);
  store.put('k', '1', 0);
  store.put('k', '2', 0);
  store.put('k', 'x', 10);
  store.put('j', 'y', 10);
  assert.equal(store.fetch('k', 0), '2');
  assert.deepEqual(store.fetchRange('k', 0, 20), [{ windowStart: 0, value: '2' }, { windowStart: 10, value: 'x' }]);
  assert.equal(logged.length, 0, 'nothing logged before the flush');
  store.flush();
  assert.deepEqual(flushed, ['k@0:null->2@9', 'k@10:null->x@9', 'j@10:null->y@9']);
  assert.deepEqual(logged, ['k@0=2@9', 'k@10=x@9', 'j@10=y@9']);
  store.put('k', '3', 0);
  store.flush();
  assert.deepEqual(flushed.slice(3), ['k@0:2->3@9']);
  // Retention (100 ms) applies to what the cache writes through: a window 200 ms later expires the old ones.
  store.put('k', 'late', 300);
  store.flush();
  assert.equal(store.fetch('k', 0), null);
  assert.ok(logged.includes('k@0=null@now'), logged.join(','));
  store.close();
});

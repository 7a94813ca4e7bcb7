/**
 * Session store caching (Kafka's CachingSessionStore): a session aggregation's
 * updates between two flushes reach the store, the changelog and downstream
 * once; sessions created and merged away between two flushes reach none of
 * them; reads see unflushed sessions; `cachingEnabled: false` or a cache of
 * 0 bytes forwards every update.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, SessionStore, SessionWindows, Stores, type StateStoreContext } from '../../../src/streams/index.js';
import { parseSessionKey } from '../../../src/streams/dsl/session-windows.js';
import { RecordCache } from '../../../src/streams/state/record-cache.js';
import { cachingStoreContext, windowedWordCount, type CachingOptions, type WindowedCount } from '../../helpers/streams-caching.js';

const S = Serdes.String();
const L = Serdes.Long();

const sessionWordCount = (options: CachingOptions): WindowedCount =>
  windowedWordCount('sessions', options, (grouped, materialized) => grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(10, 100)).count(materialized));

test('cached by default: the updates of a session within one input go downstream and to the changelog once', () => {
  const wc = sessionWordCount({});
  wc.pipe('a b a a', 7);
  assert.deepEqual(wc.read(), ['b@7-7=1', 'a@7-7=3'], 'each session once, in last-update order');
  assert.equal(wc.changelog(), 2);
  wc.pipe('a', 12);
  assert.deepEqual(wc.read(), ['a@7-7=null', 'a@7-12=4'], 'a merge removes the old session and writes the merged one');
  assert.equal(wc.changelog(), 2);
  wc.close();
});

test('session caching off (cachingEnabled: false, or a cache of 0 bytes): every update is forwarded', () => {
  for (const options of [{ cachingEnabled: false }, { cacheBytes: 0 }]) {
    const wc = sessionWordCount(options);
    wc.pipe('a a', 7);
    assert.deepEqual(wc.read(), ['a@7-7=1', 'a@7-7=2'], JSON.stringify(options));
    assert.equal(wc.changelog(), 2);
    wc.close();
  }
});

function storeContext(cache: RecordCache, logged: string[]): StateStoreContext {
  return cachingStoreContext(
    cache,
    (_s, k, v) => {
      const { keyBytes, start, end } = parseSessionKey(k);
      logged.push(`${keyBytes.toString()}@${start}-${end}=${v === null ? null : L.deserialize('', v)}`);
    },
    9,
  );
}

test('a caching session store: reads see unflushed sessions; sessions merged away before a flush never reach the store', () => {
  const logged: string[] = [];
  const flushed: string[] = [];
  const store = new SessionStore<string, bigint>(Stores.inMemoryKeyValueStore('s'), S, L, true, 1000, true);
  store.init(storeContext(new RecordCache(1 << 20), logged));
  assert.equal(store.setFlushListener((k, n, o, ts) => void flushed.push(`${k.key}@${k.window.start}-${k.window.end}=${n}/${o}@${ts}`)), true);
  store.put({ key: 'a', window: { start: 0, end: 0 } }, 1n);
  store.put({ key: 'a', window: { start: 5, end: 5 } }, 1n);
  assert.deepEqual(store.fetch('a').map((s) => `${s.key.window.start}-${s.key.window.end}=${s.value}`), ['0-0=1', '5-5=1']);
  store.remove({ key: 'a', window: { start: 0, end: 0 } });
  store.remove({ key: 'a', window: { start: 5, end: 5 } });
  store.put({ key: 'a', window: { start: 0, end: 5 } }, 2n);
  assert.deepEqual(store.findSessions('a', 0, 10).map((s) => `${s.key.window.start}-${s.key.window.end}=${s.value}`), ['0-5=2']);
  assert.equal(store.fetchSession('a', 0, 5), 2n);
  assert.equal(store.fetchSession('a', 0, 0), null);
  assert.deepEqual(logged, [], 'nothing written before the flush');
  store.flush();
  assert.deepEqual(logged, ['a@0-5=2']);
  assert.deepEqual(flushed, ['a@0-5=2/null@9']);
  store.remove({ key: 'a', window: { start: 0, end: 5 } });
  store.put({ key: 'a', window: { start: 0, end: 8 } }, 3n);
  store.flush();
  assert.deepEqual(logged.slice(1), ['a@0-5=null', 'a@0-8=3']);
  assert.deepEqual(flushed.slice(1), ['a@0-5=null/2@9', 'a@0-8=3/null@9'], 'a removal flushed with the aggregate it removes');
  store.close();
});

/** Key-value stores: in memory and on LMDB, ordered by key bytes, in the DSL and the test driver. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Serdes, StreamsBuilder, Stores, TopologyTestDriver, type KeyValueStore, type StateStoreContext } from '../../../src/streams/index.js';

function context(stateDir: string | null, wiped: string[] = []): StateStoreContext {
  return {
    applicationId: 'app',
    taskId: '0_0',
    partition: 0,
    stateDir,
    defaultKeySerde: Serdes.String() as never,
    defaultValueSerde: Serdes.String() as never,
    logChange: () => {},
    recordTimestampMs: () => 0,
    cache: null,
    registerRestore: () => {},
    reportWiped: (s) => void wiped.push(s),
  };
}

for (const kind of ['in-memory', 'persistent'] as const) {
  test(`${kind} key-value store: put, get, delete, putIfAbsent, range and all in key-byte order`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'kv-'));
    try {
      const supplier = kind === 'persistent' ? Stores.persistentKeyValueStore('s') : Stores.inMemoryKeyValueStore('s');
      const store = Stores.keyValueStoreBuilder(supplier, Serdes.String(), Serdes.Integer()).build();
      store.init(context(dir));
      for (const [k, v] of [['b', 2], ['a', 1], ['d', 4], ['c', 3]] as const) store.put(k, v);
      store.flush();
      store.put('e', 5); // pending (not flushed) writes are visible too
      store.delete('d');
      assert.equal(store.get('a'), 1);
      assert.equal(store.get('d'), null);
      assert.equal(store.putIfAbsent('a', 9), 1);
      assert.equal(store.putIfAbsent('z', 26), null);
      assert.deepEqual(store.range('b', 'e').map((e) => `${e.key}${e.value}`), ['b2', 'c3', 'e5']);
      assert.deepEqual(store.all().map((e) => e.key), ['a', 'b', 'c', 'e', 'z']);
      assert.equal(store.approximateNumEntries(), 5);
      store.close();
      if (kind === 'persistent') {
        const again = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('s'), Serdes.String(), Serdes.Integer()).build();
        again.init(context(dir));
        assert.deepEqual(again.all().map((e) => `${e.key}${e.value}`), ['a1', 'b2', 'c3', 'e5', 'z26'], 'close() flushed, reopen reads it back');
        again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a persistent store with unreadable files is wiped, reported, and starts empty', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kv-'));
  try {
    mkdirSync(join(dir, 's'), { recursive: true });
    writeFileSync(join(dir, 's', 'data.mdb'), Buffer.alloc(8192, 0x5a));
    const wiped: string[] = [];
    const store = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('s'), Serdes.String(), Serdes.Integer()).build() as KeyValueStore<string, number>;
    store.init(context(dir, wiped));
    assert.deepEqual(wiped, ['s']);
    assert.equal(store.approximateNumEntries(), 0);
    store.put('a', 1);
    assert.equal(store.get('a'), 1);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the DSL materializes a persistent store with storeType', () => {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: Serdes.String(), valueSerde: Serdes.String() }).groupByKey().count({ storeName: 'c', storeType: 'persistent' });
  const driver = new TopologyTestDriver(builder.build());
  const input = driver.createInputTopic('in', Serdes.String(), Serdes.String());
  input.pipeInput('x', '1');
  input.pipeInput('x', '2');
  const store = driver.getKeyValueStore<string, bigint>('c');
  assert.equal(store.persistent, true);
  assert.equal(store.get('x'), 2n);
  driver.close();
});

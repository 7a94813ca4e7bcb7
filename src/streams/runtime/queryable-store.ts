/**
 * Interactive queries: one read-only view over the instances of a store in
 * every local task (each holds the keys of its partition, so a key is in at
 * most one of them). Range and all() merge in serialized-key order is not
 * kept across tasks: results are grouped by task.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { KeyValueEntry, KeyValueStore, ReadOnlyKeyValueStore, StateStore } from '../state/store.js';

function asKeyValue<K, V>(store: StateStore): KeyValueStore<K, V> {
  const s = store as Partial<KeyValueStore<K, V>>;
  if (typeof s.get !== 'function' || typeof s.range !== 'function') throw new StreamsError(StreamsErrorCode.STORE, `store '${store.name}' is not a key-value store`);
  return store as KeyValueStore<K, V>;
}

export function compositeStore<K, V>(name: string, stores: () => StateStore[]): ReadOnlyKeyValueStore<K, V> {
  const each = (): KeyValueStore<K, V>[] => stores().map((s) => asKeyValue<K, V>(s));
  return {
    get(key) {
      for (const s of each()) {
        const v = s.get(key);
        if (v !== null) return v;
      }
      return null;
    },
    range: (from, to) => each().flatMap((s): KeyValueEntry<K, V>[] => s.range(from, to)),
    all: () => each().flatMap((s) => s.all()),
    approximateNumEntries: () => each().reduce((n, s) => n + s.approximateNumEntries(), 0),
    toString: () => `store ${name}`,
  } as ReadOnlyKeyValueStore<K, V>;
}

/**
 * `Stores`: the factory of store suppliers and builders (Kafka Streams'
 * `Stores`).
 */
import type { Serde } from '../serdes.js';
import { InMemoryBytesStore, type BytesStoreSupplier } from './bytes-store.js';
import { LmdbBytesStore } from './lmdb-store.js';
import { TypedKeyValueStore } from './key-value-store.js';
import type { ChangelogConfig, KeyValueStore, KeyValueStoreBuilder } from './store.js';

class TypedKeyValueStoreBuilder<K, V> implements KeyValueStoreBuilder<K, V> {
  constructor(
    private readonly supplier: BytesStoreSupplier,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled = true,
    readonly changelogConfig: ChangelogConfig = {},
    readonly cachingEnabled = false,
  ) {}

  get name(): string {
    return this.supplier.name;
  }

  build(): KeyValueStore<K, V> {
    return new TypedKeyValueStore(this.supplier, this.keySerde, this.valueSerde, this.loggingEnabled, this.cachingEnabled);
  }

  withLoggingDisabled(): KeyValueStoreBuilder<K, V> {
    return new TypedKeyValueStoreBuilder(this.supplier, this.keySerde, this.valueSerde, false, {}, this.cachingEnabled);
  }

  withLoggingEnabled(config: ChangelogConfig = {}): KeyValueStoreBuilder<K, V> {
    return new TypedKeyValueStoreBuilder(this.supplier, this.keySerde, this.valueSerde, true, config, this.cachingEnabled);
  }

  withCachingEnabled(): KeyValueStoreBuilder<K, V> {
    return new TypedKeyValueStoreBuilder(this.supplier, this.keySerde, this.valueSerde, this.loggingEnabled, this.changelogConfig, true);
  }

  withCachingDisabled(): KeyValueStoreBuilder<K, V> {
    return new TypedKeyValueStoreBuilder(this.supplier, this.keySerde, this.valueSerde, this.loggingEnabled, this.changelogConfig, false);
  }
}

/** Store suppliers and builders. */
export const Stores = {
  /** A key-value store kept in memory (rebuilt from its changelog when a task starts). */
  inMemoryKeyValueStore: (name: string): BytesStoreSupplier => ({ name, persistent: false, get: () => new InMemoryBytesStore() }),
  /** A key-value store on disk (LMDB under the task's state directory); a clean restart restores only the changelog's tail. */
  persistentKeyValueStore: (name: string): BytesStoreSupplier => ({ name, persistent: true, get: () => new LmdbBytesStore(name) }),
  /** A builder of typed key-value stores over `supplier` (serdes default to the application's). */
  keyValueStoreBuilder: <K, V>(supplier: BytesStoreSupplier, keySerde?: Serde<K>, valueSerde?: Serde<V>): KeyValueStoreBuilder<K, V> =>
    new TypedKeyValueStoreBuilder(supplier, keySerde, valueSerde),
} as const;

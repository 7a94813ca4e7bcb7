/**
 * State store interfaces (Kafka Streams' `StateStore`, `KeyValueStore`,
 * `StoreBuilder`) and the context a store gets from its task.
 */
import type { Serde } from '../serdes.js';
import type { RecordCache } from './record-cache.js';

/** What a task gives each of its stores when it opens them. */
export interface StateStoreContext {
  readonly applicationId: string;
  readonly taskId: string;
  /** The partition of the task (the changelog partition the store writes). */
  readonly partition: number;
  /** Directory for persistent stores of this task, or null when state is in memory only. */
  readonly stateDir: string | null;
  /** Serdes used where a store has none of its own. */
  readonly defaultKeySerde: Serde<unknown>;
  readonly defaultValueSerde: Serde<unknown>;
  /** Records a change for the store's changelog, stamped with `timestampMs` or else the time of the record being processed (a no-op when logging is off). */
  logChange(storeName: string, key: Buffer, value: Buffer | null, timestampMs?: number): void;
  /** The timestamp of the record being processed (stream time inside a punctuation or a cache flush). */
  recordTimestampMs(): number;
  /** The thread's record cache, for stores built with caching (null or disabled: write through). */
  readonly cache: RecordCache | null;
  /** Says that a persistent store found unreadable files and started empty (it must be restored in full). */
  reportWiped(storeName: string): void;
  /** Registers how the runtime replays changelog records into the store on start-up. */
  registerRestore(storeName: string, restore: (key: Buffer, value: Buffer | null) => void): void;
}

/** A store a processor reads and writes; one instance per task. */
export interface StateStore {
  readonly name: string;
  /** Whether the data survives a restart of the process (then a checkpoint says how much changelog to replay). */
  readonly persistent: boolean;
  /** Opens the store for a task. */
  init(context: StateStoreContext): void;
  /** Makes writes durable (persistent stores). */
  flush(): void;
  /** Releases the store. */
  close(): void;
}

/** A key-value iterator entry. */
export interface KeyValueEntry<K, V> {
  key: K;
  value: V;
}

/** The read side of a key-value store (what interactive queries get). */
export interface ReadOnlyKeyValueStore<K, V> {
  /** The value of `key`, or null. */
  get(key: K): V | null;
  /** Entries with `from <= key <= to` in serialized-key byte order (either bound may be null: open). */
  range(from: K | null, to: K | null): KeyValueEntry<K, V>[];
  /** Every entry, in serialized-key byte order. */
  all(): KeyValueEntry<K, V>[];
  /** The number of entries (exact for the built-in stores). */
  approximateNumEntries(): number;
}

/** Receives what a caching store writes through at a flush: the key's latest value and the one it replaces. */
export type CacheFlushListener<K, V> = (key: K, newValue: V | null, oldValue: V | null, timestampMs: number) => void;

/** A key-value store a processor can write. */
export interface KeyValueStore<K, V> extends StateStore, ReadOnlyKeyValueStore<K, V> {
  /**
   * For a caching store: calls `listener` for each key written through at a
   * flush, and returns true, so the processor forwards from the listener
   * instead of after each put (Kafka's TimestampedTupleForwarder). Returns
   * false when the store does not cache.
   */
  setFlushListener?(listener: CacheFlushListener<K, V>): boolean;
  /** Sets `key` to `value`; a null value deletes. */
  put(key: K, value: V | null): void;
  /** Puts only when `key` has no value; returns the value there before. */
  putIfAbsent(key: K, value: V): V | null;
  /** Deletes `key`; returns the value it had. */
  delete(key: K): V | null;
}

/** Builds key-value stores; caching is off unless asked for (the DSL's stores cache by default). */
export interface KeyValueStoreBuilder<K, V> extends StoreBuilder<KeyValueStore<K, V>> {
  readonly cachingEnabled: boolean;
  /** Keeps writes in the thread's record cache until a commit or eviction (consecutive updates of a key then count once). */
  withCachingEnabled(): KeyValueStoreBuilder<K, V>;
  withCachingDisabled(): KeyValueStoreBuilder<K, V>;
  withLoggingDisabled(): KeyValueStoreBuilder<K, V>;
  withLoggingEnabled(config?: ChangelogConfig): KeyValueStoreBuilder<K, V>;
}

/** Topic configs of a store's changelog topic, beyond `cleanup.policy=compact`. */
export type ChangelogConfig = Readonly<Record<string, string>>;

/** Builds one store instance per task; says whether the store logs its changes. */
export interface StoreBuilder<S extends StateStore = StateStore> {
  readonly name: string;
  /** Whether changes go to `<applicationId>-<name>-changelog` (default true). */
  readonly loggingEnabled: boolean;
  readonly changelogConfig: ChangelogConfig;
  /** A fresh store instance. */
  build(): S;
  /** Turns the changelog off (state is then lost with the task). */
  withLoggingDisabled(): StoreBuilder<S>;
  /** Turns the changelog on, with extra topic configs. */
  withLoggingEnabled(config?: ChangelogConfig): StoreBuilder<S>;
}

/** The changelog topic of a store of an application. */
export function changelogTopic(applicationId: string, storeName: string): string {
  return `${applicationId}-${storeName}-changelog`;
}

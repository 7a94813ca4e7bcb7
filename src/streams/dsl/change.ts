/**
 * How KTable nodes talk to each other: each update travels as a Change
 * (the new and the old value of a key), and a table that did not keep a
 * store answers lookups through a value getter derived from its parent's
 * (Kafka's `Change` and `KTableValueGetterSupplier`).
 */
import type { ProcessorContext } from '../processor/processor.js';
import { StreamRecord } from '../processor/record.js';
import type { KeyValueStore } from '../state/store.js';

/** The update of one key of a table (null: absent/deleted). */
export interface Change<V> {
  newValue: V | null;
  oldValue: V | null;
}

/** Looks up the current value of a table for a key. */
export type ValueGetter<K, V> = (key: K) => V | null;

/** Makes a value getter inside a processor that is connected to `stores`. */
export interface ValueGetterSupplier<K, V> {
  readonly stores: readonly string[];
  get(context: ProcessorContext): ValueGetter<K, V>;
}

/** The getter of a table kept in `storeName`. */
export function storeGetter<K, V>(storeName: string): ValueGetterSupplier<K, V> {
  return {
    stores: [storeName],
    get(context) {
      const store = context.getStateStore<KeyValueStore<K, V>>(storeName);
      return (key) => store.get(key);
    },
  };
}

/** The getter of a table derived from `parent` by mapping each value (null stays null). */
export function mappedGetter<K, V, VR>(parent: ValueGetterSupplier<K, V>, map: (value: V, key: K) => VR | null): ValueGetterSupplier<K, VR> {
  return {
    stores: parent.stores,
    get(context) {
      const inner = parent.get(context);
      return (key) => {
        const value = inner(key);
        return value === null ? null : map(value, key);
      };
    },
  };
}

/** Sends a table node's change downstream. */
export type ChangeForwarder<V> = (record: StreamRecord<unknown, unknown>, newValue: V | null, oldValue: V | null) => void;

/**
 * Forwards a table change at once or, when `store` caches, leaves it to the
 * cache, which forwards the key's latest change when it writes it through
 * (Kafka's TimestampedTupleForwarder): the old value is then what the store
 * held at the previous flush.
 */
export function changeForwarder<K, V>(context: ProcessorContext, store: KeyValueStore<K, V> | null): ChangeForwarder<V> {
  const cached = store?.setFlushListener?.((key, newValue, oldValue, timestampMs) => context.forward(new StreamRecord<K, Change<V>>(key, { newValue, oldValue }, timestampMs))) ?? false;
  if (cached) return () => {};
  return (record, newValue, oldValue) => context.forward(record.withValue<Change<V>>({ newValue, oldValue }));
}

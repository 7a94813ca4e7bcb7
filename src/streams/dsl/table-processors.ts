/**
 * The processors behind aggregations and KTable operators. Each forwards a
 * `Change` (new and old value of the key) so that downstream table nodes can
 * correct what they emitted before; `toStream()` turns changes back into
 * plain records (the new value, null for a deletion).
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { StreamRecord } from '../processor/record.js';
import type { KeyValueStore } from '../state/store.js';
import { changeForwarder, type Change } from './change.js';

function withContext(build: (context: ProcessorContext) => (record: StreamRecord<unknown, unknown>) => void): ProcessorSupplier {
  return (): Processor => {
    let process: ((record: StreamRecord<unknown, unknown>) => void) | null = null;
    return {
      init: (context) => void (process = build(context)),
      process: (record) => (process as (r: StreamRecord<unknown, unknown>) => void)(record),
    };
  };
}

/**
 * A stream aggregation into `storeName`: records with a null key or value are
 * skipped (as Kafka does: they cannot be grouped or added).
 */
export function streamAggregate<K, V, VA>(storeName: string, initializer: () => VA, aggregator: (key: K, value: V, aggregate: VA) => VA): ProcessorSupplier {
  return withContext((context) => {
    const store = context.getStateStore<KeyValueStore<K, VA>>(storeName);
    const forward = changeForwarder(context, store);
    return (record) => {
      if (record.key === null || record.key === undefined || record.value === null || record.value === undefined) return;
      const key = record.key as K;
      const old = store.get(key);
      const next = aggregator(key, record.value as V, old ?? initializer());
      store.put(key, next);
      forward(record, next, old);
    };
  });
}

/** The first value of a key, then `reducer(aggregate, value)` for each next one. */
export function streamReduce<K, V>(storeName: string, reducer: (aggregate: V, value: V) => V): ProcessorSupplier {
  return withContext((context) => {
    const store = context.getStateStore<KeyValueStore<K, V>>(storeName);
    const forward = changeForwarder(context, store);
    return (record) => {
      if (record.key === null || record.key === undefined || record.value === null || record.value === undefined) return;
      const key = record.key as K;
      const old = store.get(key);
      const next = old === null ? (record.value as V) : reducer(old, record.value as V);
      store.put(key, next);
      forward(record, next, old);
    };
  });
}

/** A table read from a topic: each record upserts its key (null value: deletes it). */
export function tableSource<K, V>(storeName: string): ProcessorSupplier {
  return withContext((context) => {
    const store = context.getStateStore<KeyValueStore<K, V>>(storeName);
    const forward = changeForwarder(context, store);
    return (record) => {
      if (record.key === null || record.key === undefined) return;
      const key = record.key as K;
      const old = store.get(key);
      const value = (record.value ?? null) as V | null;
      store.put(key, value);
      forward(record, value, old);
    };
  });
}

/**
 * Maps a table's changes value by value (filter maps a failing value to null);
 * an update that is null before and after is not forwarded. With a store,
 * the result is also kept there.
 */
export function tableTransform<K, V, VR>(map: (value: V, key: K) => VR | null, storeName: string | null): ProcessorSupplier {
  return withContext((context) => {
    const store = storeName === null ? null : context.getStateStore<KeyValueStore<K, VR>>(storeName);
    const forward = changeForwarder(context, store);
    return (record) => {
      const change = record.value as Change<V>;
      const key = record.key as K;
      const newValue = change.newValue === null ? null : map(change.newValue, key);
      const oldValue = change.oldValue === null ? null : map(change.oldValue, key);
      if (newValue === null && oldValue === null) return;
      store?.put(key, newValue);
      forward(record, newValue, oldValue);
    };
  });
}

/** `toStream()`: each change becomes a record with the new value. */
export function tableToStream(): ProcessorSupplier {
  return withContext((context) => (record) => context.forward(record.withValue((record.value as Change<unknown>).newValue)));
}

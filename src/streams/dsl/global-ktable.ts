/**
 * `GlobalKTable` (Kafka Streams): a table of every partition of a topic,
 * held whole by each instance in a global store and shared by all its
 * tasks, so a stream joins it without repartitioning or co-partitioning,
 * through a key selector that may pick any field of the stream record.
 * Kafka's stream-globalTable joins: a stream record looks the table up by
 * `keySelector(key, value)`; the inner join drops it when the table has no
 * value (or the selected key is null), the left join passes null; table
 * updates emit nothing. The result keeps the stream record's key.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { KeyValueStore } from '../state/store.js';

/** A table replicated whole to every instance. */
export class GlobalKTable<K, V> {
  /** @internal */
  constructor(
    /** The global store holding the table (queryable in the test driver by this name). */
    readonly storeName: string,
    /** @internal Keeps K and V in the type. */
    readonly phantom?: [K, V],
  ) {}
}

/** The processor of a stream-globalTable join. */
export function globalTableJoin<K, V, GK, GV, VR>(storeName: string, keySelector: (key: K, value: V) => GK | null, joiner: (value: V, tableValue: GV | null) => VR, left: boolean): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext;
    let store: KeyValueStore<GK, GV>;
    return {
      init(c) {
        context = c;
        store = c.getStateStore(storeName);
      },
      process(record) {
        if (record.value === null || record.value === undefined) return;
        const lookupKey = keySelector(record.key as K, record.value as V);
        const tableValue = lookupKey === null || lookupKey === undefined ? null : store.get(lookupKey);
        if (tableValue === null && !left) return;
        context.forward(record.withValue(joiner(record.value as V, tableValue)));
      },
    };
  };
}

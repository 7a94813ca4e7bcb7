/**
 * KGroupedStream: a stream grouped by key, ready to aggregate into a KTable
 * (Kafka Streams' `KGroupedStream`). If the key may have changed upstream,
 * the aggregation reads the records back from a repartition topic named
 * after the grouping (`<name>-repartition`), or after the store.
 */
import { Serdes } from '../serdes.js';
import type { ProcessorSupplier } from '../processor/processor.js';
import { storeGetter } from './change.js';
import type { StreamState } from './kstream.js';
import type { KTable } from './ktable.js';
import type { Materialized } from './options.js';
import { streamAggregate, streamReduce } from './table-processors.js';
import { SessionWindowedKStream } from './session-windowed-stream.js';
import { SessionWindows } from './session-windows.js';
import { SlidingWindowedKStream } from './sliding-windowed-stream.js';
import { SlidingWindows } from './sliding-windows.js';
import { TimeWindowedKStream } from './time-windowed-stream.js';
import type { TimeWindows } from './windows.js';

/** A stream grouped by key. */
export class KGroupedStream<K, V> {
  /** @internal */
  constructor(
    private readonly state: StreamState<K, V>,
    private readonly groupName: string | undefined,
  ) {}

  /** The number of records (with a non-null value) per key, as a `bigint` (Serdes.Long()). */
  count(materialized: Materialized<K, bigint> = {}): KTable<K, bigint> {
    return this.aggregateWith('KSTREAM-AGGREGATE', { valueSerde: Serdes.Long(), ...materialized }, (store) => streamAggregate<K, V, bigint>(store, () => 0n, (_k, _v, n) => n + 1n));
  }

  /** Combines the values of each key with `reducer` (the first value is the start). */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<K, V> {
    return this.aggregateWith('KSTREAM-REDUCE', { ...(this.state.valueSerde ? { valueSerde: this.state.valueSerde } : {}), ...materialized }, (store) => streamReduce<K, V>(store, reducer));
  }

  /** Folds the values of each key into an aggregate that starts as `initializer()`. */
  aggregate<VA>(initializer: () => VA, aggregator: (key: K, value: V, aggregate: VA) => VA, materialized: Materialized<K, VA> = {}): KTable<K, VA> {
    return this.aggregateWith('KSTREAM-AGGREGATE', materialized, (store) => streamAggregate<K, V, VA>(store, initializer, aggregator));
  }

  /** Cuts the groups into time windows (tumbling or hopping, with grace), session windows or sliding windows. */
  windowedBy(windows: TimeWindows): TimeWindowedKStream<K, V>;
  windowedBy(windows: SessionWindows): SessionWindowedKStream<K, V>;
  windowedBy(windows: SlidingWindows): SlidingWindowedKStream<K, V>;
  windowedBy(windows: TimeWindows | SessionWindows | SlidingWindows): TimeWindowedKStream<K, V> | SessionWindowedKStream<K, V> | SlidingWindowedKStream<K, V> {
    let parent = this.state.node;
    if (this.state.repartitionRequired) {
      const g = this.state.graph;
      parent = g.repartition(parent, this.groupName ?? g.name('KSTREAM-AGGREGATE'), { keySerde: this.state.keySerde as never, valueSerde: this.state.valueSerde as never });
    }
    if (windows instanceof SlidingWindows) return new SlidingWindowedKStream<K, V>(this.state, parent, windows);
    if (windows instanceof SessionWindows) return new SessionWindowedKStream<K, V>(this.state, parent, windows);
    return new TimeWindowedKStream<K, V>(this.state, parent, windows);
  }

  private aggregateWith<VA>(prefix: string, materialized: Materialized<K, VA>, supplier: (store: string) => ProcessorSupplier): KTable<K, VA> {
    const g = this.state.graph;
    const keySerde = materialized.keySerde ?? this.state.keySerde;
    const store = g.keyValueStore<K, VA>(materialized, `${prefix}-STATE-STORE`, keySerde, materialized.valueSerde);
    let parent = this.state.node;
    if (this.state.repartitionRequired) parent = g.repartition(parent, this.groupName ?? store, { keySerde: keySerde as never, valueSerde: this.state.valueSerde as never });
    const node = g.processor(g.name(prefix), supplier(store), [parent], [store]);
    return g.make.table<K, VA>({ graph: g, node, keySerde, valueSerde: materialized.valueSerde, getter: storeGetter(store), storeName: store });
  }
}

/**
 * Windowed aggregation (Kafka Streams' `TimeWindowedKStream`): each record
 * is added to every window that contains its timestamp, unless the window
 * is closed, that is its end plus grace is at or before the stream time
 * observed so far (such a late record is dropped, as Kafka drops it). The
 * result is a table keyed by `Windowed<K>`; each update is forwarded at
 * once (or, with the store's caching, each window's latest update at the
 * next commit), or only when the window closes with `suppress(untilWindowCloses)`.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import { StreamRecord } from '../processor/record.js';
import { Serdes, type Serde } from '../serdes.js';
import { Stores } from '../state/stores.js';
import { WindowStore } from '../state/window-store.js';
import type { StoreBuilder } from '../state/store.js';
import type { Change, ValueGetterSupplier } from './change.js';
import type { StreamState } from './kstream.js';
import type { KTable } from './ktable.js';
import type { Materialized } from './options.js';
import type { TimeWindows, Windowed } from './windows.js';

/** A grouped stream cut into time windows. */
export class TimeWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly state: StreamState<K, V>,
    private readonly parentNode: string,
    private readonly windows: TimeWindows,
  ) {}

  /** Records per key and window, as `bigint`. */
  count(materialized: Materialized<K, bigint> = {}): KTable<Windowed<K>, bigint> {
    return this.build({ valueSerde: Serdes.Long(), ...materialized }, () => 0n, (_k, _v, n) => n + 1n);
  }

  /** Values per key and window combined with `reducer`. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<Windowed<K>, V> {
    return this.build<V>({ ...(this.state.valueSerde ? { valueSerde: this.state.valueSerde } : {}), ...materialized }, null, (_k, v, agg) => (agg === null ? v : reducer(agg, v)));
  }

  /** Values per key and window folded into an aggregate starting at `initializer()`. */
  aggregate<VA>(initializer: () => VA, aggregator: (key: K, value: V, aggregate: VA) => VA, materialized: Materialized<K, VA> = {}): KTable<Windowed<K>, VA> {
    return this.build(materialized, initializer, aggregator);
  }

  private build<VA>(materialized: Materialized<K, VA>, initializer: (() => VA) | null, aggregator: (key: K, value: V, aggregate: VA) => VA): KTable<Windowed<K>, VA> {
    const g = this.state.graph;
    const keySerde = materialized.keySerde ?? this.state.keySerde;
    const name = materialized.storeName ?? g.name('KSTREAM-AGGREGATE-STATE-STORE');
    const supplier = materialized.storeType === 'persistent' ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name);
    const retentionMs = windowRetentionMs(materialized.retentionMs, this.windows.sizeMs + this.windows.graceMs, name);
    // Cached unless turned off, as Kafka's DSL stores: a window's updates between two commits go downstream once.
    const caching = materialized.cachingEnabled !== false;
    g.topology.addStateStore(windowStoreBuilder(supplier, keySerde, materialized.valueSerde, materialized.loggingEnabled !== false, materialized.changelogConfig ?? {}, retentionMs, caching));
    const node = g.processor(g.name('KSTREAM-AGGREGATE'), windowedAggregate<K, V, VA>(name, this.windows, initializer, aggregator), [this.parentNode], [name]);
    const getter: ValueGetterSupplier<Windowed<K>, VA> = {
      stores: [name],
      get(context) {
        const store = context.getStateStore<WindowStore<K, VA>>(name);
        return (wk) => store.fetch(wk.key, wk.window.start);
      },
    };
    return g.make.table<Windowed<K>, VA>({ graph: g, node, keySerde: undefined, valueSerde: materialized.valueSerde, getter, storeName: name, windowGraceMs: this.windows.graceMs, windowKeySerde: keySerde });
  }
}

/**
 * A window store keeps its windows for window size + grace (the longest a
 * window can still change), or longer if `Materialized.retentionMs` says so
 * (to query old windows); shorter would drop open windows: refused, as Kafka does.
 */
export function windowRetentionMs(asked: number | undefined, minimumMs: number, store: string): number {
  if (asked === undefined) return minimumMs;
  if (!Number.isFinite(asked) || asked < minimumMs) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `store '${store}': retentionMs ${asked} is shorter than window size + grace (${minimumMs} ms)`);
  return asked;
}

function windowStoreBuilder<K, V>(supplier: ReturnType<typeof Stores.inMemoryKeyValueStore>, keySerde: Serde<K> | undefined, valueSerde: Serde<V> | undefined, logging: boolean, config: Record<string, string>, retentionMs: number, caching: boolean): StoreBuilder<WindowStore<K, V>> {
  const make = (log: boolean, cfg: Record<string, string>): StoreBuilder<WindowStore<K, V>> => ({
    name: supplier.name,
    loggingEnabled: log,
    changelogConfig: cfg,
    build: () => new WindowStore(supplier, keySerde, valueSerde, log, retentionMs, caching),
    withLoggingDisabled: () => make(false, {}),
    withLoggingEnabled: (c = {}) => make(true, { ...c }),
  });
  return make(logging, config);
}

function windowedAggregate<K, V, VA>(storeName: string, windows: TimeWindows, initializer: (() => VA) | null, aggregator: (key: K, value: V, aggregate: VA) => VA): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext;
    let store: WindowStore<K, VA>;
    let observedStreamTimeMs = -1;
    // A caching store forwards each window's latest change when its cache is flushed (Kafka's TimestampedTupleForwarder).
    let cached = false;
    return {
      init(c) {
        context = c;
        store = c.getStateStore(storeName);
        cached = store.setFlushListener((key, start, newValue, oldValue, timestampMs) =>
          context.forward(new StreamRecord<Windowed<K>, Change<VA>>({ key, window: { start, end: start + windows.sizeMs } }, { newValue, oldValue }, timestampMs)),
        );
      },
      process(record) {
        if (record.key === null || record.key === undefined || record.value === null || record.value === undefined) return;
        observedStreamTimeMs = Math.max(observedStreamTimeMs, record.timestamp);
        const closeTimeMs = observedStreamTimeMs - windows.graceMs;
        const key = record.key as K;
        for (const window of windows.windowsFor(record.timestamp)) {
          if (window.end <= closeTimeMs) continue; // closed: a late record
          const old = store.fetch(key, window.start);
          const start = old ?? (initializer === null ? null : initializer());
          const next = start === null ? (record.value as unknown as VA) : aggregator(key, record.value as V, start);
          store.put(key, next, window.start);
          if (!cached) context.forward(record.withKey<Windowed<K>>({ key, window }).withValue<Change<VA>>({ newValue: next, oldValue: old }));
        }
      },
    };
  };
}

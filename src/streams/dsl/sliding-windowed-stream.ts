/**
 * Sliding-window aggregation (Kafka Streams' `KStreamSlidingWindowAggregate`,
 * KIP-450). A record at t updates every existing window that contains it,
 * creates its left window [t - D, t], the right window of the previous
 * record if t falls in it, and its own right window if a later record is
 * within D + 1 (out of order). Windows are clamped at 0 as Kafka clamps
 * early records: a record before D has the left window [0, D].
 *
 * Unlike Kafka, which derives a new window's aggregate from neighbouring
 * windows' aggregates, the aggregates here are folded from the key's raw
 * records, kept in a changelogged buffer (`<store>-sliding-records`), in
 * (timestamp, arrival) order; for the built-in count and reduce, and any
 * aggregator that does not depend on order, the results are the same. A
 * window whose (inclusive) end is before stream time - grace is closed: it
 * is no longer created or updated. Each update is forwarded stamped with the
 * largest record timestamp in the window.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import { StreamRecord } from '../processor/record.js';
import { Serdes, type Serde } from '../serdes.js';
import { JoinWindowBuffer, type BufferedRecord } from '../state/join-buffer-store.js';
import type { StateStore, StoreBuilder } from '../state/store.js';
import { Stores } from '../state/stores.js';
import { WindowStore } from '../state/window-store.js';
import { windowRetentionMs } from './time-windowed-stream.js';
import type { Change, ValueGetterSupplier } from './change.js';
import type { StreamState } from './kstream.js';
import type { KTable } from './ktable.js';
import type { Materialized } from './options.js';
import type { SlidingWindows } from './sliding-windows.js';
import type { Windowed } from './windows.js';

/** A grouped stream cut into sliding windows. */
export class SlidingWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly state: StreamState<K, V>,
    private readonly parentNode: string,
    private readonly windows: SlidingWindows,
  ) {}

  /** Records per key and window, as `bigint`. */
  count(materialized: Materialized<K, bigint> = {}): KTable<Windowed<K>, bigint> {
    return this.build({ valueSerde: Serdes.Long(), ...materialized }, () => 0n, (_k, _v, n) => n + 1n);
  }

  /** Values per key and window combined with `reducer`. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<Windowed<K>, V> {
    return this.build<V>({ ...(this.state.valueSerde ? { valueSerde: this.state.valueSerde } : {}), ...materialized }, null, (_k, v, agg) => (agg === null ? v : reducer(agg, v)));
  }

  /** Values per key and window folded from `initializer()`. */
  aggregate<VA>(initializer: () => VA, aggregator: (key: K, value: V, aggregate: VA) => VA, materialized: Materialized<K, VA> = {}): KTable<Windowed<K>, VA> {
    return this.build(materialized, initializer, aggregator);
  }

  private build<VA>(materialized: Materialized<K, VA>, initializer: (() => VA) | null, aggregator: (key: K, value: V, aggregate: VA) => VA): KTable<Windowed<K>, VA> {
    const g = this.state.graph;
    const keySerde = materialized.keySerde ?? this.state.keySerde;
    const name = materialized.storeName ?? g.name('KSTREAM-AGGREGATE-STATE-STORE');
    const recordsName = `${name}-sliding-records`;
    const supplier = (n: string) => (materialized.storeType === 'persistent' ? Stores.persistentKeyValueStore(n) : Stores.inMemoryKeyValueStore(n));
    const logging = materialized.loggingEnabled !== false;
    // A record within grace reads records up to 2d + 1 before it and windows starting d + 1 before it: keep 3d + grace + 2.
    const needMs = 3 * this.windows.timeDifferenceMs + this.windows.graceMs + 2;
    const retentionMs = windowRetentionMs(materialized.retentionMs, needMs, name);
    // The windows' store caches as Kafka's sliding-window aggregation store does (not the record buffer, which Kafka does not have).
    const caching = materialized.cachingEnabled !== false;
    g.topology.addStateStore(builder(name, (log) => new WindowStore<K, VA>(supplier(name), keySerde, materialized.valueSerde, log, retentionMs, caching), logging, materialized.changelogConfig ?? {}));
    g.topology.addStateStore(builder(recordsName, (log) => new JoinWindowBuffer<K, V>(supplier(recordsName), keySerde, this.state.valueSerde, log, needMs), logging, {}));
    const processor = slidingAggregate<K, V, VA>(name, recordsName, this.windows, initializer, aggregator);
    const node = g.processor(g.name('KSTREAM-AGGREGATE'), processor, [this.parentNode], [name, recordsName]);
    const getter: ValueGetterSupplier<Windowed<K>, VA> = {
      stores: [name],
      get(context) {
        const store = context.getStateStore<WindowStore<K, VA>>(name);
        return (wk) => store.fetch(wk.key, wk.window.start);
      },
    };
    // The end is inclusive: a window is final once stream time is past end + grace, one ms later than a time window's.
    return g.make.table<Windowed<K>, VA>({ graph: g, node, keySerde: undefined, valueSerde: materialized.valueSerde, getter, storeName: name, windowGraceMs: this.windows.graceMs + 1, windowKeySerde: keySerde });
  }
}

function builder<S extends StateStore>(name: string, build: (logging: boolean) => S, logging: boolean, config: Record<string, string>): StoreBuilder<S> {
  const make = (log: boolean, cfg: Record<string, string>): StoreBuilder<S> => ({
    name,
    loggingEnabled: log,
    changelogConfig: cfg,
    build: () => build(log),
    withLoggingDisabled: () => make(false, {}),
    withLoggingEnabled: (c = {}) => make(true, { ...c }),
  });
  return make(logging, config);
}

/** The starts of the windows a record at `ts` changes or creates (see the file comment). */
function windowStarts(ts: number, d: number, existing: number[], records: BufferedRecord<unknown>[]): number[] {
  const starts = new Set(existing);
  starts.add(Math.max(0, ts - d));
  if (records.some((r) => r.timestamp > ts && r.timestamp <= ts + 1 + d)) starts.add(ts + 1);
  const previous = records.filter((r) => r.timestamp < ts).reduce<number | null>((max, r) => Math.max(max ?? r.timestamp, r.timestamp), null);
  if (previous !== null && ts <= previous + 1 + d) starts.add(previous + 1);
  return [...starts].sort((a, b) => a - b);
}

function slidingAggregate<K, V, VA>(storeName: string, recordsName: string, windows: SlidingWindows, initializer: (() => VA) | null, aggregator: (key: K, value: V, aggregate: VA) => VA): ProcessorSupplier {
  const d = windows.timeDifferenceMs;
  return (): Processor => {
    let context: ProcessorContext;
    let store: WindowStore<K, VA>;
    let buffer: JoinWindowBuffer<K, V>;
    let observedStreamTimeMs = -1;
    let cached = false;
    const update = (record: StreamRecord<unknown, unknown>, key: K, start: number, records: BufferedRecord<V>[]): void => {
      const inWindow = records.filter((r) => r.timestamp >= start && r.timestamp <= start + d);
      if (inWindow.length === 0) return;
      let agg: VA | null = initializer === null ? null : initializer();
      for (const r of inWindow) agg = aggregator(key, r.value, agg as VA);
      const maxTs = Math.max(...inWindow.map((r) => r.timestamp));
      if (cached) return store.put(key, agg, start, maxTs); // the cache forwards the window's latest change at its flush
      const old = store.fetch(key, start);
      store.put(key, agg, start, maxTs);
      const window = { start, end: start + d };
      context.forward(record.withKey<Windowed<K>>({ key, window }).withValue<Change<VA>>({ newValue: agg, oldValue: old }).withTimestamp(maxTs));
    };
    return {
      init(c) {
        context = c;
        store = c.getStateStore(storeName);
        buffer = c.getStateStore(recordsName);
        cached = store.setFlushListener((key, start, newValue, oldValue, timestampMs) =>
          context.forward(new StreamRecord<Windowed<K>, Change<VA>>({ key, window: { start, end: start + d } }, { newValue, oldValue }, timestampMs)),
        );
      },
      process(record) {
        if (record.key === null || record.key === undefined || record.value === null || record.value === undefined) return;
        const key = record.key as K;
        const ts = record.timestamp;
        observedStreamTimeMs = Math.max(observedStreamTimeMs, ts);
        const closeTimeMs = observedStreamTimeMs - windows.graceMs;
        if (ts + 1 + d <= closeTimeMs) return; // every window that could hold it is closed: late
        const neighbours = buffer.fetch(key, ts - d - 1, ts + d + 1);
        buffer.put(key, ts, record.value as V);
        const existing = store.fetchRange(key, ts - d, ts).map((e) => e.windowStart);
        const records = buffer.fetch(key, Math.max(0, ts - 2 * d - 1), ts + 2 * d + 1);
        for (const start of windowStarts(ts, d, existing, neighbours)) {
          if (start + d < closeTimeMs) continue; // closed (the end is inclusive)
          const containsRecord = start <= ts && ts <= start + d;
          if (!containsRecord && store.fetch(key, start) !== null) continue; // an existing right window the record is not in: unchanged
          update(record, key, start, records);
        }
      },
    };
  };
}

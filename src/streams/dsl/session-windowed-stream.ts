/**
 * Session-windowed aggregation (Kafka Streams' `SessionWindowedKStream` and
 * `KStreamSessionWindowAggregate`). For each record the sessions of its key
 * that end at most one gap before it and start at most one gap after it are
 * merged with the record's own [t, t] window; their aggregates are combined
 * with the merger. Unless the merged session is closed (its end is before
 * stream time - gap - grace: a late record, dropped), every session it
 * replaced is removed and forwarded as a tombstone, then the merged session
 * is stored and forwarded with its new aggregate, stamped with its end time.
 * With the store's caching (the default, as Kafka's), the store forwards
 * instead, at each cache flush: every session's latest aggregate, or its
 * removal, once, stamped with its end time (Kafka's SessionCacheFlushListener).
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import { StreamRecord } from '../processor/record.js';
import { Serdes, type Serde } from '../serdes.js';
import { SessionStore } from '../state/session-store.js';
import type { BytesStoreSupplier } from '../state/bytes-store.js';
import type { StoreBuilder } from '../state/store.js';
import { Stores } from '../state/stores.js';
import type { Change, ValueGetterSupplier } from './change.js';
import type { StreamState } from './kstream.js';
import type { KTable } from './ktable.js';
import type { Materialized } from './options.js';
import type { SessionWindows } from './session-windows.js';
import type { Window, Windowed } from './windows.js';
import { windowRetentionMs } from './time-windowed-stream.js';

/** Combines the aggregates of two sessions of `key` that a record joins into one. */
export type Merger<K, VA> = (key: K, left: VA, right: VA) => VA;

/** A grouped stream cut into session windows. */
export class SessionWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly state: StreamState<K, V>,
    private readonly parentNode: string,
    private readonly windows: SessionWindows,
  ) {}

  /** Records per key and session, as `bigint`. */
  count(materialized: Materialized<K, bigint> = {}): KTable<Windowed<K>, bigint> {
    return this.build({ valueSerde: Serdes.Long(), ...materialized }, () => 0n, (_k, _v, n) => n + 1n, (_k, a, b) => a + b);
  }

  /** Values per key and session combined with `reducer` (also used to merge sessions). */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<Windowed<K>, V> {
    const valueSerde = this.state.valueSerde ? { valueSerde: this.state.valueSerde } : {};
    return this.build<V>({ ...valueSerde, ...materialized }, null, (_k, v, agg) => (agg === null ? v : reducer(agg, v)), (_k, a, b) => reducer(a, b));
  }

  /** Values per key and session folded from `initializer()`; `merger` combines two sessions' aggregates. */
  aggregate<VA>(initializer: () => VA, aggregator: (key: K, value: V, aggregate: VA) => VA, merger: Merger<K, VA>, materialized: Materialized<K, VA> = {}): KTable<Windowed<K>, VA> {
    return this.build(materialized, initializer, aggregator, merger);
  }

  private build<VA>(materialized: Materialized<K, VA>, initializer: (() => VA) | null, aggregator: (key: K, value: V, aggregate: VA) => VA, merger: Merger<K, VA>): KTable<Windowed<K>, VA> {
    const g = this.state.graph;
    const keySerde = materialized.keySerde ?? this.state.keySerde;
    const name = materialized.storeName ?? g.name('KSTREAM-AGGREGATE-STATE-STORE');
    const supplier = materialized.storeType === 'persistent' ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name);
    // Kafka's default session store retention: inactivity gap + grace (a session can change until then).
    const retentionMs = windowRetentionMs(materialized.retentionMs, this.windows.inactivityGapMs + this.windows.graceMs, name);
    const caching = materialized.cachingEnabled !== false;
    g.topology.addStateStore(sessionStoreBuilder(supplier, keySerde, materialized.valueSerde, materialized.loggingEnabled !== false, materialized.changelogConfig ?? {}, retentionMs, caching));
    const node = g.processor(g.name('KSTREAM-AGGREGATE'), sessionAggregate<K, V, VA>(name, this.windows, initializer, aggregator, merger), [this.parentNode], [name]);
    const getter: ValueGetterSupplier<Windowed<K>, VA> = {
      stores: [name],
      get(context) {
        const store = context.getStateStore<SessionStore<K, VA>>(name);
        return (wk) => store.fetchSession(wk.key, wk.window.start, wk.window.end);
      },
    };
    // A session can still grow until stream time passes its end + gap + grace (what suppress waits for).
    const windowGraceMs = this.windows.inactivityGapMs + this.windows.graceMs;
    return g.make.table<Windowed<K>, VA>({ graph: g, node, keySerde: undefined, valueSerde: materialized.valueSerde, getter, storeName: name, windowGraceMs, windowKeySerde: keySerde });
  }
}

function sessionStoreBuilder<K, V>(supplier: BytesStoreSupplier, keySerde: Serde<K> | undefined, valueSerde: Serde<V> | undefined, logging: boolean, config: Record<string, string>, retentionMs: number, caching: boolean): StoreBuilder<SessionStore<K, V>> {
  const make = (log: boolean, cfg: Record<string, string>): StoreBuilder<SessionStore<K, V>> => ({
    name: supplier.name,
    loggingEnabled: log,
    changelogConfig: cfg,
    build: () => new SessionStore(supplier, keySerde, valueSerde, log, retentionMs, caching),
    withLoggingDisabled: () => make(false, {}),
    withLoggingEnabled: (c = {}) => make(true, { ...c }),
  });
  return make(logging, config);
}

function sessionAggregate<K, V, VA>(storeName: string, windows: SessionWindows, initializer: (() => VA) | null, aggregator: (key: K, value: V, aggregate: VA) => VA, merger: Merger<K, VA>): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext;
    let store: SessionStore<K, VA>;
    let observedStreamTimeMs = -1;
    let cached = false;
    return {
      init(c) {
        context = c;
        store = c.getStateStore(storeName);
        cached = store.setFlushListener((key, newValue, oldValue) => context.forward(new StreamRecord<Windowed<K>, Change<VA>>(key, { newValue, oldValue }, key.window.end)));
      },
      process(record) {
        if (record.key === null || record.key === undefined || record.value === null || record.value === undefined) return;
        observedStreamTimeMs = Math.max(observedStreamTimeMs, record.timestamp);
        const closeTimeMs = observedStreamTimeMs - windows.graceMs - windows.inactivityGapMs;
        const key = record.key as K;
        const ts = record.timestamp;
        const merged = store.findSessions(key, ts - windows.inactivityGapMs, ts + windows.inactivityGapMs);
        const window: Window = { start: ts, end: ts };
        let agg: VA | null = initializer === null ? null : initializer();
        for (const session of merged) {
          agg = agg === null ? session.value : merger(key, agg, session.value);
          window.start = Math.min(window.start, session.key.window.start);
          window.end = Math.max(window.end, session.key.window.end);
        }
        if (window.end < closeTimeMs) return; // the session it belongs to is closed: a late record
        // A second record at the time of a one-record session leaves the window as it is: no tombstone (as Kafka).
        const replaced = window.start === ts && window.end === ts ? [] : merged;
        for (const session of replaced) {
          store.remove(session.key);
          if (!cached) context.forward(record.withKey<Windowed<K>>(session.key).withValue<Change<VA>>({ newValue: null, oldValue: session.value }).withTimestamp(session.key.window.end));
        }
        const next = aggregator(key, record.value as V, agg as VA);
        store.put({ key, window }, next);
        if (!cached) context.forward(record.withKey<Windowed<K>>({ key, window }).withValue<Change<VA>>({ newValue: next, oldValue: null }).withTimestamp(window.end));
      },
    };
  };
}

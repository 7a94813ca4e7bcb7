/**
 * KTable: a changelog stream read as a table, the latest value per key
 * (Kafka Streams' `KTable`). Its nodes pass `Change`s; a table without a
 * store of its own answers joins through its parent's store.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import { mappedGetter, storeGetter, type ValueGetterSupplier } from './change.js';
import type { DslGraph } from './graph.js';
import { addForeignKeyJoin } from './foreign-key-join.js';
import { joinValues, tableTableJoinSide, type JoinMode } from './join-processors.js';
import type { KStream } from './kstream.js';
import type { Materialized } from './options.js';
import { tableToStream, tableTransform } from './table-processors.js';
import { suppressionBufferBuilder, suppressUntilWindowCloses, type Suppressed } from './suppress.js';

/** What defines a table besides its types (internal). */
export interface TableState<K, V> {
  graph: DslGraph;
  node: string;
  keySerde: Serde<K> | undefined;
  valueSerde: Serde<V> | undefined;
  getter: ValueGetterSupplier<K, V>;
  /** The store holding this table, if it has one (queryable). */
  storeName: string | null;
  /** For a windowed aggregation: the windows' grace (what `suppress(untilWindowCloses)` waits for). */
  windowGraceMs?: number;
  /** For a windowed aggregation: the serde of the key inside `Windowed` (the suppression buffer's changelog uses it). */
  windowKeySerde?: Serde<unknown> | undefined;
}

/** A table: the latest value of each key. */
export class KTable<K, V> {
  /** @internal */
  constructor(readonly state: TableState<K, V>) {}

  /** The name of the store holding this table (for `streams.store()`), or null if it has none. */
  queryableStoreName(): string | null {
    return this.state.storeName;
  }

  /** Keeps the rows `predicate` holds for; a row that stops holding is deleted downstream. */
  filter(predicate: (key: K, value: V) => boolean, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.transform('KTABLE-FILTER', (v, k) => (predicate(k, v) ? v : null), materialized, this.state.valueSerde);
  }

  /** Drops the rows `predicate` holds for. */
  filterNot(predicate: (key: K, value: V) => boolean, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.transform('KTABLE-FILTER', (v, k) => (predicate(k, v) ? null : v), materialized, this.state.valueSerde);
  }

  /** Maps each value (the key stays). */
  mapValues<V2>(mapper: (value: V, key: K) => V2, materialized?: Materialized<K, V2>): KTable<K, V2> {
    return this.transform<V2>('KTABLE-MAPVALUES', mapper, materialized, undefined);
  }

  /**
   * Holds back updates: with `Suppressed.untilWindowCloses()` (windowed tables
   * only), one final result per window, emitted when stream time passes the
   * window's end plus grace.
   */
  suppress(suppressed: Suppressed): KTable<K, V> {
    const grace = this.state.windowGraceMs;
    if (grace === undefined) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `suppress(${suppressed.kind}) needs a windowed table (from windowedBy(...).count/reduce/aggregate)`);
    const g = this.state.graph;
    const node = g.name('KTABLE-SUPPRESS');
    const store = g.name('KTABLE-SUPPRESS-STATE-STORE');
    g.topology.addStateStore(suppressionBufferBuilder(store, this.state.windowKeySerde as Serde<unknown> | undefined, this.state.valueSerde as Serde<unknown> | undefined));
    g.processor(node, suppressUntilWindowCloses(grace, store), [this.state.node], [store]);
    return g.make.table<K, V>({ ...this.state, node, storeName: null });
  }

  /** The table's updates as a stream (a deletion is a record with a null value). */
  toStream(name?: string): KStream<K, V> {
    const g = this.state.graph;
    const node = g.processor(name ?? g.name('KTABLE-TOSTREAM'), tableToStream(), [this.state.node]);
    return g.make.stream<K, V>({ graph: g, node, keySerde: this.state.keySerde, valueSerde: this.state.valueSerde, repartitionRequired: false });
  }

  /** Inner join: a row where both tables have the key. */
  join<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO) => VR, materialized?: Materialized<K, VR>): KTable<K, VR>;
  /**
   * Foreign-key inner join (KIP-213): a row for each row of this table whose
   * `foreignKeyExtractor(value)` is a key of `other`, joined with that row.
   * The tables need not be co-partitioned (see docs/streams.md).
   */
  join<KO, VO, VR>(other: KTable<KO, VO>, foreignKeyExtractor: (value: V) => KO | null, joiner: (value: V, foreignValue: VO) => VR, materialized?: Materialized<K, VR>): KTable<K, VR>;
  join(other: object, a: (...args: never[]) => unknown, b?: ((...args: never[]) => unknown) | Materialized<K, unknown>, c?: Materialized<K, unknown>): KTable<K, unknown> {
    if (typeof b === 'function') return this.foreignKeyJoin(other as KTable<unknown, unknown>, a as (v: V) => unknown, b as (v: V, o: unknown) => unknown, false, c);
    return this.joinTables('inner', other as KTable<K, unknown>, a as (l: V | null, r: unknown) => unknown, b);
  }

  /** Left join: a row for each key of this table, with the other's value or null. */
  leftJoin<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO | null) => VR, materialized?: Materialized<K, VR>): KTable<K, VR>;
  /** Foreign-key left join (KIP-213): a row for each row of this table, joined with the row of `other` its foreign key names, or null. */
  leftJoin<KO, VO, VR>(other: KTable<KO, VO>, foreignKeyExtractor: (value: V) => KO | null, joiner: (value: V, foreignValue: VO | null) => VR, materialized?: Materialized<K, VR>): KTable<K, VR>;
  leftJoin(other: object, a: (...args: never[]) => unknown, b?: ((...args: never[]) => unknown) | Materialized<K, unknown>, c?: Materialized<K, unknown>): KTable<K, unknown> {
    if (typeof b === 'function') return this.foreignKeyJoin(other as KTable<unknown, unknown>, a as (v: V) => unknown, b as (v: V, o: unknown) => unknown, true, c);
    return this.joinTables('left', other as KTable<K, unknown>, a as (l: V | null, r: unknown) => unknown, b);
  }

  /** Outer join: a row for each key of either table, with null for the missing side. */
  outerJoin<VO, VR>(other: KTable<K, VO>, joiner: (value: V | null, otherValue: VO | null) => VR, materialized?: Materialized<K, VR>): KTable<K, VR> {
    return this.joinTables('outer', other, joiner, materialized);
  }

  private foreignKeyJoin<KO, VO, VR>(other: KTable<KO, VO>, extractor: (value: V) => KO | null, joiner: (value: V, foreignValue: VO | null) => VR, leftJoin: boolean, materialized: Materialized<K, VR> | undefined): KTable<K, VR> {
    const state = addForeignKeyJoin<K, V, KO, VO, VR>({ left: this.state, right: other.state, extractor, joiner, leftJoin, materialized });
    return this.state.graph.make.table<K, VR>(state);
  }

  private transform<V2>(prefix: string, map: (value: V, key: K) => V2 | null, materialized: Materialized<K, V2> | undefined, valueSerde: Serde<V2> | undefined): KTable<K, V2> {
    const g = this.state.graph;
    const name = g.name(prefix);
    const store = materialized === undefined ? null : g.keyValueStore<K, V2>(materialized, `${prefix}-STATE-STORE`, this.state.keySerde, valueSerde);
    g.processor(name, tableTransform<K, V, V2>(map, store), [this.state.node], store === null ? [] : [store]);
    const getter = store === null ? mappedGetter(this.state.getter, map) : storeGetter<K, V2>(store);
    // A derived getter reads the parent's stores: connect them wherever it is used.
    return g.make.table<K, V2>({ graph: g, node: name, keySerde: this.state.keySerde, valueSerde: materialized?.valueSerde ?? valueSerde, getter, storeName: store });
  }

  private joinTables<VO, VR>(mode: JoinMode, other: KTable<K, VO>, joiner: (l: V | null, r: VO | null) => VR, materialized: Materialized<K, VR> | undefined): KTable<K, VR> {
    const g = this.state.graph;
    if (other.state.graph !== g) throw new StreamsError(StreamsErrorCode.TOPOLOGY, 'cannot join a table of another StreamsBuilder');
    const prefix = mode === 'inner' ? 'KTABLE-JOIN' : mode === 'left' ? 'KTABLE-LEFTJOIN' : 'KTABLE-OUTERJOIN';
    const thisName = g.name(`${prefix}THIS`);
    const otherName = g.name(`${prefix}OTHER`);
    const mergeName = g.name('KTABLE-MERGE');
    const store = materialized === undefined ? null : g.keyValueStore<K, VR>(materialized, `${prefix}-STATE-STORE`, this.state.keySerde, undefined);
    const stores = [...new Set([...this.state.getter.stores, ...other.state.getter.stores])];
    g.processor(thisName, tableTableJoinSide<K, V, VO, VR>(mode, true, other.state.getter, joiner, null), [this.state.node], stores);
    g.processor(otherName, tableTableJoinSide<K, V, VO, VR>(mode, false, this.state.getter, joiner, null), [other.state.node], stores);
    g.processor(mergeName, tableTransform<K, VR, VR>((v) => v, store), [thisName, otherName], store === null ? [] : [store]);
    g.topology.addCopartitionedNode(thisName);
    const left = this.state.getter;
    const right = other.state.getter;
    const getter: ValueGetterSupplier<K, VR> =
      store !== null
        ? storeGetter<K, VR>(store)
        : {
            stores,
            get(context) {
              const l = left.get(context);
              const r = right.get(context);
              return (key) => joinValues(mode, joiner, l(key), r(key));
            },
          };
    return g.make.table<K, VR>({ graph: g, node: mergeName, keySerde: this.state.keySerde, valueSerde: materialized?.valueSerde, getter, storeName: store });
  }
}

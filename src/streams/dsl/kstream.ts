/**
 * KStream: an unbounded stream of independent records (Kafka Streams'
 * `KStream`). Each operator adds a node to the topology and returns a new
 * KStream over it. Operators that may change the key (map, flatMap,
 * selectKey, process) mark the stream: a later grouping or join then goes
 * through a repartition topic so that equal keys meet in one task.
 */
import type { ProcessorSupplier } from '../processor/processor.js';
import type { KeyValue } from '../processor/record.js';
import type { Serde } from '../serdes.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { TopicNameExtractor } from '../topology.js';
import { DslGraph, PASS_ON } from './graph.js';
import type { Grouped, Joined, Produced, Repartitioned, SinkTopic } from './options.js';
import type { BranchedKStream } from './branched-kstream.js';
import type { KGroupedStream } from './kgrouped-stream.js';
import type { KTable } from './ktable.js';
import { streamTableJoin, type JoinMode } from './join-processors.js';
import { JoinWindows } from './join-windows.js';
import { GlobalKTable, globalTableJoin } from './global-ktable.js';
import { addStreamStreamJoin, type StreamJoined } from './stream-stream-join.js';
import type { StatelessStep } from '../processor/stateless-step.js';

/** A split's node until the split is closed, when BranchedKStream puts its router in place: it forwards nothing. */
const UNROUTED: ProcessorSupplier = () => ({ process: () => {} });

/** What defines a stream besides its records' types (internal). */
export interface StreamState<K, V> {
  graph: DslGraph;
  node: string;
  keySerde: Serde<K> | undefined;
  valueSerde: Serde<V> | undefined;
  repartitionRequired: boolean;
}

/** A stream of key-value records. */
export class KStream<K, V> {
  /** @internal */
  constructor(readonly state: StreamState<K, V>) {}

  /** Keeps the records for which `predicate` holds. */
  filter(predicate: (key: K, value: V) => boolean, name?: string): KStream<K, V> {
    return this.same(name ?? 'KSTREAM-FILTER', name !== undefined, { kind: 'filter', keep: predicate as (key: unknown, value: unknown) => boolean });
  }

  /** Drops the records for which `predicate` holds. */
  filterNot(predicate: (key: K, value: V) => boolean, name?: string): KStream<K, V> {
    return this.same(name ?? 'KSTREAM-FILTER', name !== undefined, { kind: 'filter', keep: (key, value) => !predicate(key as K, value as V) });
  }

  /** Replaces each record's key and value (marks the stream for repartitioning). */
  map<K2, V2>(mapper: (key: K, value: V) => KeyValue<K2, V2>, name?: string): KStream<K2, V2> {
    const node = this.add(name ?? 'KSTREAM-MAP', name !== undefined, { kind: 'map', map: mapper as (key: unknown, value: unknown) => KeyValue<unknown, unknown> });
    return this.derive<K2, V2>(node, undefined, undefined, true);
  }

  /** Replaces each record's value (the key, and so the partitioning, stays). */
  mapValues<V2>(mapper: (value: V, key: K) => V2, name?: string): KStream<K, V2> {
    const node = this.add(name ?? 'KSTREAM-MAPVALUES', name !== undefined, { kind: 'mapValues', map: mapper as (value: unknown, key: unknown) => unknown });
    return this.derive<K, V2>(node, this.state.keySerde, undefined, this.state.repartitionRequired);
  }

  /** Replaces each record by zero or more records (marks the stream for repartitioning). */
  flatMap<K2, V2>(mapper: (key: K, value: V) => Iterable<KeyValue<K2, V2>>, name?: string): KStream<K2, V2> {
    const node = this.add(name ?? 'KSTREAM-FLATMAP', name !== undefined, { kind: 'flatMap', map: mapper as (key: unknown, value: unknown) => Iterable<KeyValue<unknown, unknown>> });
    return this.derive<K2, V2>(node, undefined, undefined, true);
  }

  /** Replaces each record by zero or more records with the same key. */
  flatMapValues<V2>(mapper: (value: V, key: K) => Iterable<V2>, name?: string): KStream<K, V2> {
    const node = this.add(name ?? 'KSTREAM-FLATMAPVALUES', name !== undefined, { kind: 'flatMapValues', map: mapper as (value: unknown, key: unknown) => Iterable<unknown> });
    return this.derive<K, V2>(node, this.state.keySerde, undefined, this.state.repartitionRequired);
  }

  /** Sets each record's key (marks the stream for repartitioning). */
  selectKey<K2>(selector: (key: K, value: V) => K2, name?: string): KStream<K2, V> {
    const node = this.add(name ?? 'KSTREAM-KEY-SELECT', name !== undefined, { kind: 'selectKey', select: selector as (key: unknown, value: unknown) => unknown });
    return this.derive<K2, V>(node, undefined, this.state.valueSerde, true);
  }

  /** Calls `action` with each record and passes it on. */
  peek(action: (key: K, value: V) => void, name?: string): KStream<K, V> {
    return this.same(name ?? 'KSTREAM-PEEK', name !== undefined, { kind: 'peek', action: action as (key: unknown, value: unknown) => void });
  }

  /** Calls `action` with each record (a terminal operation). */
  foreach(action: (key: K, value: V) => void, name?: string): void {
    this.add(name ?? 'KSTREAM-FOREACH', name !== undefined, { kind: 'foreach', action: action as (key: unknown, value: unknown) => void });
  }

  /** Splits the stream by predicates: `.split().branch(p1).branch(p2).defaultBranch()` gives a Map of named branches. */
  split(name?: string): BranchedKStream<K, V> {
    const g = this.state.graph;
    const node = g.processor(name ?? g.name('KSTREAM-BRANCH'), UNROUTED, [this.state.node]);
    return this.state.graph.make.split(this.state, node, name ?? node + '-');
  }

  /** The records of this stream and `other`, interleaved as they arrive. */
  merge(other: KStream<K, V>, name?: string): KStream<K, V> {
    const g = this.state.graph;
    const node = g.stateless(name ?? g.name('KSTREAM-MERGE'), PASS_ON, [this.state.node, other.state.node]);
    return this.derive<K, V>(node, this.state.keySerde, this.state.valueSerde, this.state.repartitionRequired || other.state.repartitionRequired);
  }

  /** Writes the stream to a topic, or to the topic `extractor` picks per record. */
  to(topic: SinkTopic<K, V>, produced: Produced<K, V> = {}): void {
    const g = this.state.graph;
    const keySerde = produced.keySerde ?? this.state.keySerde;
    const valueSerde = produced.valueSerde ?? this.state.valueSerde;
    const options = { ...(keySerde ? { keySerde } : {}), ...(valueSerde ? { valueSerde } : {}), ...(produced.partitioner ? { partitioner: produced.partitioner } : {}) };
    g.topology.addSink(produced.name ?? g.name('KSTREAM-SINK'), topic as string | TopicNameExtractor<K, V>, options, this.state.node);
  }

  /** Sends the stream through the internal topic `<applicationId>-<name>-repartition` (by key, or by `partitioner`). */
  repartition(options: Repartitioned<K, V> = {}): KStream<K, V> {
    const g = this.state.graph;
    const base = options.name ?? g.name('KSTREAM-REPARTITION');
    const keySerde = options.keySerde ?? this.state.keySerde;
    const valueSerde = options.valueSerde ?? this.state.valueSerde;
    const source = g.repartition(this.state.node, base, { keySerde, valueSerde } as never, options.numberOfPartitions ?? null, options.partitioner as never);
    return this.derive<K, V>(source, keySerde, valueSerde, false);
  }

  /** Groups by the current key (through a repartition topic if the key may have changed). */
  groupByKey(grouped: Grouped<K, V> = {}): KGroupedStream<K, V> {
    return this.state.graph.make.grouped<K, V>({
      ...this.state,
      keySerde: grouped.keySerde ?? this.state.keySerde,
      valueSerde: grouped.valueSerde ?? this.state.valueSerde,
    }, grouped.name);
  }

  /** Groups by a new key (always through a repartition topic). */
  groupBy<K2>(selector: (key: K, value: V) => K2, grouped: Grouped<K2, V> = {}): KGroupedStream<K2, V> {
    const keyed = this.selectKey(selector);
    return this.state.graph.make.grouped<K2, V>({ ...keyed.state, keySerde: grouped.keySerde, valueSerde: grouped.valueSerde ?? this.state.valueSerde }, grouped.name);
  }

  /** Joins each record with the table's current value for its key; records without a match are dropped. */
  join<VT, VR>(table: KTable<K, VT>, joiner: (value: V, tableValue: VT) => VR, joined?: Joined<K, V, VT>): KStream<K, VR>;
  /** Joins records of both streams with the same key at most the window apart (see docs/streams.md). */
  join<VO, VR>(other: KStream<K, VO>, joiner: (value: V, otherValue: VO) => VR, windows: JoinWindows, joined?: StreamJoined<K, V, VO>): KStream<K, VR>;
  /** Joins each record with the global table's value for `keySelector(key, value)`; records without a match are dropped. */
  join<GK, GV, VR>(table: GlobalKTable<GK, GV>, keySelector: (key: K, value: V) => GK | null, joiner: (value: V, tableValue: GV) => VR): KStream<K, VR>;
  join(other: KTable<K, unknown> | KStream<K, unknown> | GlobalKTable<unknown, unknown>, joinerOrSelector: (...args: never[]) => unknown, windowsOrJoined?: JoinWindows | Joined<K, V, unknown> | ((...args: never[]) => unknown), joined: StreamJoined<K, V, unknown> = {}): KStream<K, unknown> {
    if (other instanceof GlobalKTable) return this.joinGlobal(other, joinerOrSelector as never, windowsOrJoined as never, false);
    const joiner = joinerOrSelector;
    if (other instanceof KStream) return this.joinStream(other, joiner as (v: V, o: unknown) => unknown, windowsOrJoined as JoinWindows, 'inner', joined);
    return this.joinTable(other, joiner as (v: V, t: unknown) => unknown, (windowsOrJoined ?? {}) as Joined<K, V, unknown>, false);
  }

  /** Joins each record with the table's current value for its key, or null when there is none. */
  leftJoin<VT, VR>(table: KTable<K, VT>, joiner: (value: V, tableValue: VT | null) => VR, joined?: Joined<K, V, VT>): KStream<K, VR>;
  /** Windowed left join: a record without a partner is joined with null once its window closes. */
  leftJoin<VO, VR>(other: KStream<K, VO>, joiner: (value: V, otherValue: VO | null) => VR, windows: JoinWindows, joined?: StreamJoined<K, V, VO>): KStream<K, VR>;
  /** Joins each record with the global table's value for `keySelector(key, value)`, or null when there is none. */
  leftJoin<GK, GV, VR>(table: GlobalKTable<GK, GV>, keySelector: (key: K, value: V) => GK | null, joiner: (value: V, tableValue: GV | null) => VR): KStream<K, VR>;
  leftJoin(other: KTable<K, unknown> | KStream<K, unknown> | GlobalKTable<unknown, unknown>, joinerOrSelector: (...args: never[]) => unknown, windowsOrJoined?: JoinWindows | Joined<K, V, unknown> | ((...args: never[]) => unknown), joined: StreamJoined<K, V, unknown> = {}): KStream<K, unknown> {
    if (other instanceof GlobalKTable) return this.joinGlobal(other, joinerOrSelector as never, windowsOrJoined as never, true);
    const joiner = joinerOrSelector;
    if (other instanceof KStream) return this.joinStream(other, joiner as (v: V, o: unknown) => unknown, windowsOrJoined as JoinWindows, 'left', joined);
    return this.joinTable(other, joiner as (v: V, t: unknown) => unknown, (windowsOrJoined ?? {}) as Joined<K, V, unknown>, true);
  }

  /** Windowed outer join: a record of either side without a partner is joined with null once its window closes. */
  outerJoin<VO, VR>(other: KStream<K, VO>, joiner: (value: V | null, otherValue: VO | null) => VR, windows: JoinWindows, joined: StreamJoined<K, V, VO> = {}): KStream<K, VR> {
    return this.joinStream(other, joiner, windows, 'outer', joined);
  }

  /** Runs your processor on each record (it may use the named stores); its output is a stream that may have other keys. */
  process<K2, V2>(supplier: ProcessorSupplier<K, V, K2, V2>, ...storeNames: string[]): KStream<K2, V2> {
    const g = this.state.graph;
    const node = g.processor(g.name('KSTREAM-PROCESSOR'), supplier as ProcessorSupplier, [this.state.node], storeNames);
    return this.derive<K2, V2>(node, undefined, undefined, true);
  }

  private joinGlobal<GK, GV, VR>(table: GlobalKTable<GK, GV>, keySelector: (key: K, value: V) => GK | null, joiner: (value: V, tableValue: GV | null) => VR, left: boolean): KStream<K, VR> {
    const g = this.state.graph;
    const name = g.processor(g.name(left ? 'KSTREAM-LEFTJOIN' : 'KSTREAM-JOIN'), globalTableJoin<K, V, GK, GV, VR>(table.storeName, keySelector, joiner, left), [this.state.node], [table.storeName]);
    // The global table is whole in every instance: no repartition, even after a key change.
    return this.derive<K, VR>(name, this.state.keySerde, undefined, this.state.repartitionRequired);
  }

  private joinStream<VO, VR>(other: KStream<K, VO>, joiner: (v: V, o: VO) => VR, windows: JoinWindows, mode: JoinMode, joined: StreamJoined<K, V, VO>): KStream<K, VR> {
    if (other.state.graph !== this.state.graph) throw new StreamsError(StreamsErrorCode.TOPOLOGY, 'cannot join a stream of another StreamsBuilder');
    if (!(windows instanceof JoinWindows)) throw new StreamsError(StreamsErrorCode.TOPOLOGY, 'a stream-stream join needs JoinWindows');
    const node = addStreamStreamJoin<K, V, VO, VR>(this, other, (_k, l, r) => joiner(l as V, r as VO), windows, mode, joined);
    return this.derive<K, VR>(node, joined.keySerde ?? this.state.keySerde, undefined, false);
  }

  private joinTable<VT, VR>(table: KTable<K, VT>, joiner: (v: V, t: VT | null) => VR, joined: Joined<K, V, VT>, left: boolean): KStream<K, VR> {
    const g = this.state.graph;
    if (table.state.graph !== g) throw new StreamsError(StreamsErrorCode.TOPOLOGY, 'cannot join a table of another StreamsBuilder');
    const input = this.repartitionIfRequired(joined.name, joined.keySerde, joined.valueSerde);
    const name = g.name(left ? 'KSTREAM-LEFTJOIN' : 'KSTREAM-JOIN');
    const getter = table.state.getter;
    g.processor(name, streamTableJoin<K, V, VT, VR>(getter, joiner, left), [input.state.node], getter.stores);
    g.topology.addCopartitionedNode(name);
    return this.derive<K, VR>(name, input.state.keySerde, undefined, false);
  }

  /** @internal This stream, or its copy through a repartition topic if its key may have changed. */
  repartitionIfRequired(name: string | undefined, keySerde?: Serde<K>, valueSerde?: Serde<V>): KStream<K, V> {
    if (!this.state.repartitionRequired) return this;
    const g = this.state.graph;
    const ks = keySerde ?? this.state.keySerde;
    const vs = valueSerde ?? this.state.valueSerde;
    const source = g.repartition(this.state.node, name ?? this.state.node, { keySerde: ks, valueSerde: vs } as never);
    return this.derive<K, V>(source, ks, vs, false);
  }

  private same(prefix: string, named: boolean, step: StatelessStep): KStream<K, V> {
    return this.derive<K, V>(this.add(prefix, named, step), this.state.keySerde, this.state.valueSerde, this.state.repartitionRequired);
  }

  /** Adds the node of a stateless operator doing what `step` describes, under the name given or one generated from the prefix. */
  private add(prefixOrName: string, named: boolean, step: StatelessStep): string {
    const g = this.state.graph;
    return g.stateless(named ? prefixOrName : g.name(prefixOrName), step, [this.state.node]);
  }

  private derive<K2, V2>(node: string, keySerde: Serde<K2> | undefined, valueSerde: Serde<V2> | undefined, repartitionRequired: boolean): KStream<K2, V2> {
    return new KStream<K2, V2>({ graph: this.state.graph, node, keySerde, valueSerde, repartitionRequired });
  }
}

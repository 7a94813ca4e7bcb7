/**
 * Stream-stream windowed joins with Kafka 3.x semantics (Kafka's
 * `KStreamKStreamJoin`). Each side keeps its records in a join window
 * buffer; a record of one side joins every record of the other side of the
 * same key within the window (left at t: right in [t - before, t + after])
 * and is stamped with the later of the two timestamps. Both sides share one
 * stream time. A record whose own window has closed (its time + the window
 * on its far side + grace is before stream time) is dropped as late.
 *
 * Left and outer joins do not emit `[value, null]` at once: a record that
 * found no partner waits in the shared outer buffer until its window closes
 * and is emitted then, unless a partner arrived meanwhile (then only the
 * joined result is emitted). An out-of-order record whose window has already
 * ended (but within grace) and has no partner is emitted at once.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { StreamRecord } from '../processor/record.js';
import type { Serde } from '../serdes.js';
import { JoinWindowBuffer, OuterJoinBuffer } from '../state/join-buffer-store.js';
import type { StateStore, StoreBuilder } from '../state/store.js';
import { Stores } from '../state/stores.js';
import type { JoinMode } from './join-processors.js';
import type { JoinWindows } from './join-windows.js';
import type { KStream } from './kstream.js';
import { PASS_ON } from './graph.js';

/** Serdes and names of a stream-stream join (Kafka's `StreamJoined`). */
export interface StreamJoined<K, V, VO> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  otherValueSerde?: Serde<VO>;
  /** Names the repartition topics, if either side needs one. */
  name?: string;
  /** Base name of the join stores (`<name>-this-join-store`, `-other-join-store`, `-outer-shared-join-store`). */
  storeName?: string;
  /** Whether the join stores have changelog topics (default true). */
  loggingEnabled?: boolean;
}

interface SideSpec<K> {
  isLeft: boolean;
  thisStore: string;
  otherStore: string;
  outerStore: string | null;
  /** Whether this side's unmatched records are emitted (left side of a left join; both sides of an outer join). */
  emitsUnmatched: boolean;
  /** How far before / after this side's record the other side's records may be. */
  beforeMs: number;
  afterMs: number;
  windows: JoinWindows;
  /** The stream time both sides share, per task. */
  clock: Map<string, { streamTimeMs: number }>;
  joiner: (key: K, left: unknown, right: unknown) => unknown;
}

function joinSide<K>(spec: SideSpec<K>): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext;
    let thisBuffer: JoinWindowBuffer<K, unknown>;
    let otherBuffer: JoinWindowBuffer<K, unknown>;
    let outer: OuterJoinBuffer<K, unknown, unknown> | null = null;
    let clock: { streamTimeMs: number };
    const side = spec.isLeft ? 'left' : 'right';
    const pair = (mine: unknown, other: unknown): unknown => (spec.isLeft ? [mine, other] : [other, mine]);
    return {
      init(c) {
        context = c;
        thisBuffer = c.getStateStore(spec.thisStore);
        otherBuffer = c.getStateStore(spec.otherStore);
        if (spec.outerStore !== null) outer = c.getStateStore<OuterJoinBuffer<K, unknown, unknown>>(spec.outerStore);
        clock = spec.clock.get(c.taskId) ?? { streamTimeMs: -1 };
        spec.clock.set(c.taskId, clock);
      },
      process(record) {
        if (record.key === null || record.key === undefined || record.value === null || record.value === undefined) return;
        const key = record.key as K;
        const ts = record.timestamp;
        clock.streamTimeMs = Math.max(clock.streamTimeMs, ts);
        if (ts + spec.afterMs + spec.windows.graceMs < clock.streamTimeMs) return; // its window is closed: late
        if (outer !== null) emitClosed(outer, record, clock.streamTimeMs);
        thisBuffer.put(key, ts, record.value);
        let matched = false;
        const timeTo = Math.max(0, ts + spec.afterMs);
        for (const other of otherBuffer.fetch(key, ts - spec.beforeMs, timeTo)) {
          matched = true;
          const [l, r] = pair(record.value, other.value) as [unknown, unknown];
          context.forward(record.withValue(spec.joiner(key, l, r)).withTimestamp(Math.max(ts, other.timestamp)));
          outer?.remove(spec.isLeft ? 'right' : 'left', key, other.timestamp);
        }
        if (matched || !spec.emitsUnmatched || outer === null) return;
        if (timeTo < clock.streamTimeMs) {
          const [l, r] = pair(record.value, null) as [unknown, unknown];
          context.forward(record.withValue(spec.joiner(key, l, r)));
        } else outer.put(side, key, ts, record.value);
      },
    };

    function emitClosed(buffer: OuterJoinBuffer<K, unknown, unknown>, current: StreamRecord<unknown, unknown>, streamTimeMs: number): void {
      // A left record waits for right records up to `after` later; a right one for left records up to `before` later.
      const lookBack = (s: 'left' | 'right'): number => (s === 'left' ? spec.windows.afterMs : spec.windows.beforeMs);
      for (const r of buffer.takeClosed((u) => u.timestamp + lookBack(u.side) + spec.windows.graceMs < streamTimeMs)) {
        const value = r.side === 'left' ? spec.joiner(r.key, r.value, null) : spec.joiner(r.key, null, r.value);
        context.forward(current.withKey<unknown>(r.key).withValue(value).withTimestamp(r.timestamp));
      }
    }
  };
}

/** Adds the join of `left` and `right` to their graph; returns the name of the node that merges both sides' results. */
export function addStreamStreamJoin<K, V, VO, VR>(left: KStream<K, V>, right: KStream<K, VO>, joiner: (key: K, left: V | null, right: VO | null) => VR, windows: JoinWindows, mode: JoinMode, joined: StreamJoined<K, V, VO>): string {
  const g = left.state.graph;
  const l = left.repartitionIfRequired(joined.name === undefined ? undefined : `${joined.name}-left`, joined.keySerde, joined.valueSerde);
  const r = right.repartitionIfRequired(joined.name === undefined ? undefined : `${joined.name}-right`, joined.keySerde, joined.otherValueSerde);
  const keySerde = joined.keySerde ?? l.state.keySerde ?? r.state.keySerde;
  const [thisPrefix, otherPrefix] = mode === 'outer' ? ['KSTREAM-OUTERTHIS', 'KSTREAM-OUTEROTHER'] : ['KSTREAM-JOINTHIS', 'KSTREAM-JOINOTHER'];
  const thisName = g.name(thisPrefix);
  const otherName = g.name(otherPrefix);
  const base = joined.storeName;
  const logging = joined.loggingEnabled !== false;
  const thisStore = base ? `${base}-this-join-store` : `${thisName}-store`;
  const otherStore = base ? `${base}-other-join-store` : `${otherName}-store`;
  const outerStore = mode === 'inner' ? null : base ? `${base}-outer-shared-join-store` : g.name('KSTREAM-OUTERSHARED-JOIN-STORE');
  // A record can still join one up to before + after + grace older than the latest (Kafka's join store retention).
  const retentionMs = windows.beforeMs + windows.afterMs + windows.graceMs;
  g.topology.addStateStore(bufferBuilder(thisStore, (log) => new JoinWindowBuffer(Stores.inMemoryKeyValueStore(thisStore), keySerde, joined.valueSerde ?? l.state.valueSerde, log, retentionMs), logging));
  g.topology.addStateStore(bufferBuilder(otherStore, (log) => new JoinWindowBuffer(Stores.inMemoryKeyValueStore(otherStore), keySerde, joined.otherValueSerde ?? r.state.valueSerde, log, retentionMs), logging));
  if (outerStore !== null) g.topology.addStateStore(bufferBuilder(outerStore, (log) => new OuterJoinBuffer(Stores.inMemoryKeyValueStore(outerStore), keySerde, joined.valueSerde ?? l.state.valueSerde, joined.otherValueSerde ?? r.state.valueSerde, log), logging));
  const clock = new Map<string, { streamTimeMs: number }>();
  const common = { outerStore, windows, clock, joiner: joiner as (key: K, l: unknown, r: unknown) => unknown };
  const stores = outerStore === null ? [thisStore, otherStore] : [thisStore, otherStore, outerStore];
  g.processor(thisName, joinSide<K>({ ...common, isLeft: true, thisStore, otherStore, emitsUnmatched: mode !== 'inner', beforeMs: windows.beforeMs, afterMs: windows.afterMs }), [l.state.node], stores);
  g.processor(otherName, joinSide<K>({ ...common, isLeft: false, thisStore: otherStore, otherStore: thisStore, emitsUnmatched: mode === 'outer', beforeMs: windows.afterMs, afterMs: windows.beforeMs }), [r.state.node], stores);
  g.topology.addCopartitionedNode(thisName);
  return g.stateless(g.name('KSTREAM-MERGE'), PASS_ON, [thisName, otherName]);
}

function bufferBuilder<S extends StateStore>(name: string, build: (logging: boolean) => S, logging: boolean): StoreBuilder<S> {
  const make = (log: boolean, cfg: Record<string, string>): StoreBuilder<S> => ({
    name,
    loggingEnabled: log,
    changelogConfig: cfg,
    build: () => build(log),
    withLoggingDisabled: () => make(false, {}),
    withLoggingEnabled: (c = {}) => make(true, { ...c }),
  });
  return make(logging, {});
}

/**
 * A Topology: the graph of source, processor and sink nodes and the stores
 * they use (Kafka Streams' `Topology`), built by hand (the Processor API) or
 * by `StreamsBuilder` (the DSL). Nodes may name parents added later; the graph
 * is checked as a whole by `validate()` (unknown parent or store, cycle,
 * duplicate name), which `StreamsBuilder.build()`, the test driver and
 * `KafkaStreams` call. Internal topics (repartition) are kept by their short
 * name and prefixed with the application id at run time.
 */
import { StreamsError, StreamsErrorCode } from './errors.js';
import type { ProcessorSupplier } from './processor/processor.js';
import type { Serde } from './serdes.js';
import type { StateStore, StoreBuilder } from './state/store.js';
import { describeTopology, type TopologyDescription } from './topology-description.js';

/** Picks a record's timestamp when it is read from a topic (default: the record's own). */
export type TimestampExtractor = (record: { topic: string; key: unknown; value: unknown; timestamp: number }, partitionTime: number) => number;

/** Picks the topic of each record a sink writes (Kafka's `TopicNameExtractor`). */
export type TopicNameExtractor<K = unknown, V = unknown> = (key: K, value: V, context: { sourceTopic: string | null }) => string;

/** Picks the partition of a record a sink writes; undefined falls back to the default (murmur2 of the key). */
export type StreamPartitioner<K = unknown, V = unknown> = (topic: string, key: K, value: V, numPartitions: number) => number | undefined;

/** Options of `addSource`. */
export interface SourceOptions<K = unknown, V = unknown> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  timestampExtractor?: TimestampExtractor;
}

/** Options of `addSink`. */
export interface SinkOptions<K = unknown, V = unknown> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  partitioner?: StreamPartitioner<K, V>;
}

/** A node of the graph (internal). */
export type TopologyNode =
  | { kind: 'source'; name: string; topics: string[]; options: SourceOptions; index: number }
  | { kind: 'processor'; name: string; supplier: ProcessorSupplier; parents: string[]; stores: string[]; index: number }
  | { kind: 'sink'; name: string; topic: string | TopicNameExtractor; options: SinkOptions; parents: string[]; index: number };

/** A connected part of the graph that runs as one task per partition (internal). */
export interface Subtopology {
  id: number;
  nodes: TopologyNode[];
  /** Topics read, as named in the topology (internal ones unprefixed). */
  sourceTopics: string[];
  /** Topics written by name (extractor sinks excluded). */
  sinkTopics: string[];
  stores: string[];
}

/** How an internal topic is sized (internal). */
export interface InternalTopicSpec {
  partitions: number | null;
  /** Size it like the other inputs of the sub-topology holding this node. */
  sizedLikeReaderOf?: string;
}

/** The user's processor that maintains a global store (`addGlobalStore`), with the names of its two nodes. */
export interface GlobalStoreProcessor {
  sourceName: string;
  processorName: string;
  supplier: ProcessorSupplier;
}

/**
 * A store fed by every partition of a topic in every instance, outside the
 * task graph (internal): a GlobalKTable's (records put as they are) or one
 * added by `addGlobalStore` (records handed to the user's processor).
 */
export interface GlobalStoreSpec {
  builder: StoreBuilder;
  topic: string;
  options: SourceOptions;
  processor: GlobalStoreProcessor | null;
}

/** The graph of a stream processing application. */
export class Topology {
  private readonly globals = new Map<string, GlobalStoreSpec>();
  private readonly nodeMap = new Map<string, TopologyNode>();
  private readonly storeMap = new Map<string, StoreBuilder>();
  private readonly internal = new Map<string, InternalTopicSpec>();
  private readonly copartitionedNodes: string[] = [];
  private counter = 0;

  /** Adds a source node reading `topics`. */
  addSource<K, V>(name: string, topics: string | readonly string[], options: SourceOptions<K, V> = {}): this {
    const list = typeof topics === 'string' ? [topics] : [...topics];
    if (list.length === 0) throw topologyError(`source '${name}' reads no topic`);
    for (const node of this.nodeMap.values()) {
      const shared = node.kind === 'source' ? list.find((t) => node.topics.includes(t)) : undefined;
      if (shared !== undefined) throw topologyError(`topic '${shared}' is read by both '${node.name}' and '${name}'`);
    }
    for (const [store, spec] of this.globals) if (list.includes(spec.topic)) throw topologyError(`topic '${spec.topic}' is read by both the global store '${store}' and '${name}'`);
    return this.add({ kind: 'source', name, topics: list, options: options as SourceOptions, index: this.counter++ });
  }

  /** Adds a processor node fed by `parentNames`. */
  addProcessor<KIn, VIn, KOut, VOut>(name: string, supplier: ProcessorSupplier<KIn, VIn, KOut, VOut>, ...parentNames: string[]): this {
    if (parentNames.length === 0) throw topologyError(`processor '${name}' has no parent`);
    return this.add({ kind: 'processor', name, supplier: supplier as ProcessorSupplier, parents: parentNames, stores: [], index: this.counter++ });
  }

  /** Adds a sink node writing what `parentNames` forward to `topic` (or the topic the extractor picks). */
  addSink<K, V>(name: string, topic: string | TopicNameExtractor<K, V>, ...parents: [SinkOptions<K, V>, ...string[]] | string[]): this {
    const options = typeof parents[0] === 'object' ? (parents.shift() as SinkOptions) : {};
    const parentNames = parents as string[];
    if (parentNames.length === 0) throw topologyError(`sink '${name}' has no parent`);
    return this.add({ kind: 'sink', name, topic: topic as string | TopicNameExtractor, options, parents: parentNames, index: this.counter++ });
  }

  /**
   * Adds a global store (Kafka's `Topology.addGlobalStore`): every instance
   * holds all partitions of `topic` in it, and `supplier`'s processor, the
   * only writer, decides what each record of the topic puts there. Every
   * processor of the topology reads it (read-only) without being connected.
   * As in Kafka since 3.8 (KAFKA-7663), restoring at start-up replays the
   * topic through the processor too; the topic is the store's only
   * changelog, so the builder must have logging disabled. The processor
   * forwards nothing (it has no children) and cannot schedule punctuations.
   */
  addGlobalStore<K, V>(builder: StoreBuilder, sourceName: string, options: SourceOptions<K, V>, topic: string, processorName: string, supplier: ProcessorSupplier<K, V, void, void>): this {
    if (builder.loggingEnabled) throw topologyError(`global store '${builder.name}' must not have logging enabled (its topic '${topic}' is its changelog): use withLoggingDisabled()`);
    if (sourceName === processorName) throw topologyError(`global store '${builder.name}': the source and the processor need different names (both '${sourceName}')`);
    for (const name of [sourceName, processorName]) if (name === '' || this.nodeMap.has(name) || this.globalNodeNames().has(name)) throw topologyError(`a node named '${name}' already exists`);
    this.addGlobal(builder, topic, options as SourceOptions, { sourceName, processorName, supplier: supplier as ProcessorSupplier });
    return this;
  }

  /** Adds a store and connects it to the named processors. */
  addStateStore(builder: StoreBuilder, ...processorNames: string[]): this {
    if (this.storeMap.has(builder.name)) throw topologyError(`store '${builder.name}' is already added`);
    this.storeMap.set(builder.name, builder);
    return this.connectAll(processorNames, [builder.name]);
  }

  /** Gives a processor access to stores added before or after it. */
  connectProcessorAndStateStores(processorName: string, ...storeNames: string[]): this {
    return this.connectAll([processorName], storeNames);
  }

  /**
   * Checks the whole graph: every parent exists and can have children,
   * every store a processor names was added, and there is no cycle.
   * Throws ERR_STREAMS_TOPOLOGY naming the node at fault.
   */
  validate(): this {
    if (this.nodeMap.size === 0) throw topologyError('the topology has no node: add a source');
    for (const node of this.nodeMap.values()) {
      if (node.kind === 'source') continue;
      for (const parent of node.parents) {
        const p = this.nodeMap.get(parent);
        if (p === undefined && this.globalNodeNames().has(parent)) throw topologyError(`${node.kind} '${node.name}' names '${parent}', a node of a global store, as its parent (a global store's nodes have no children)`);
        if (p === undefined) throw topologyError(`${node.kind} '${node.name}' names an unknown parent '${parent}'`);
        if (p.kind === 'sink') throw topologyError(`${node.kind} '${node.name}' names the sink '${parent}' as its parent (a sink has no children)`);
      }
      if (node.kind === 'processor') {
        for (const store of node.stores) if (!this.storeMap.has(store) && !this.globals.has(store)) throw topologyError(`processor '${node.name}' uses the unknown store '${store}'`);
      }
    }
    this.checkCycles();
    return this;
  }

  /** The sub-topologies, stores and topics, printable as Kafka prints them. */
  describe(): TopologyDescription {
    this.validate();
    return describeTopology(this.subtopologies(), [...this.globals].flatMap(([store, g]) => (g.processor === null ? [] : [{ store, topic: g.topic, sourceName: g.processor.sourceName, processorName: g.processor.processorName }])), (name) => this.children(name), (name) => this.nodeMap.get(name));
  }

  // ---- used by the DSL and the runtimes (not part of the public API) ----

  /**
   * @internal Marks a topic as internal (named `<applicationId>-<name>` at run
   * time). Null partitions: as many as the inputs of the sub-topology that
   * writes it or, with `sizedLikeReaderOf`, of the sub-topology holding that
   * node (the foreign-key join's topics, co-partitioned with their reader).
   */
  addInternalTopic(name: string, partitions: number | null = null, sizedLikeReaderOf?: string): void {
    this.internal.set(name, sizedLikeReaderOf === undefined ? { partitions } : { partitions, sizedLikeReaderOf });
  }

  /** @internal Adds the store of a GlobalKTable: it reads all of `topic` in every instance; its topic is its changelog. */
  addGlobalTableStore(builder: StoreBuilder, topic: string, options: SourceOptions): void {
    this.addGlobal(builder, topic, options, null);
  }

  /** @internal The global stores, by name. */
  get globalStores(): ReadonlyMap<string, GlobalStoreSpec> {
    return this.globals;
  }

  /** @internal Marks a join node: the source topics of its sub-topology must have equal partition counts. */
  addCopartitionedNode(name: string): void {
    this.copartitionedNodes.push(name);
  }

  /** @internal The groups of topics that must be co-partitioned, each with the join node that needs it. */
  copartitionGroups(): { node: string; topics: string[] }[] {
    const subs = this.subtopologies();
    return this.copartitionedNodes.map((node) => ({ node, topics: subs.find((s) => s.nodes.some((n) => n.name === node))?.sourceTopics ?? [] }));
  }

  /** @internal */
  isInternalTopic(name: string): boolean {
    return this.internal.has(name);
  }

  /** @internal */
  get internalTopics(): ReadonlyMap<string, InternalTopicSpec> {
    return this.internal;
  }

  /** @internal */
  node(name: string): TopologyNode | undefined {
    return this.nodeMap.get(name);
  }

  /** @internal */
  store(name: string): StoreBuilder<StateStore> | undefined {
    return this.storeMap.get(name);
  }

  /** @internal Children of a node, in the order they were added. */
  children(name: string): TopologyNode[] {
    return [...this.nodeMap.values()].filter((n) => n.kind !== 'source' && n.parents.includes(name)).sort((a, b) => a.index - b.index);
  }

  /** @internal Connected components (nodes linked by edges or by a shared store), numbered by their first node. */
  subtopologies(): Subtopology[] {
    const parent = new Map<string, string>();
    const find = (x: string): string => {
      let root = x;
      while (parent.get(root) !== root) root = parent.get(root) as string;
      parent.set(x, root);
      return root;
    };
    const union = (a: string, b: string): void => void parent.set(find(a), find(b));
    for (const name of this.nodeMap.keys()) parent.set(name, name);
    const storeOwner = new Map<string, string>();
    for (const node of this.nodeMap.values()) {
      if (node.kind !== 'source') for (const p of node.parents) union(node.name, p);
      if (node.kind !== 'processor') continue;
      for (const s of node.stores) {
        if (this.globals.has(s)) continue; // every task has the global stores: sharing one does not tie sub-topologies
        const owner = storeOwner.get(s);
        if (owner === undefined) storeOwner.set(s, node.name);
        else union(node.name, owner);
      }
    }
    const groups = new Map<string, TopologyNode[]>();
    for (const node of [...this.nodeMap.values()].sort((a, b) => a.index - b.index)) {
      const root = find(node.name);
      groups.set(root, [...(groups.get(root) ?? []), node]);
    }
    return [...groups.values()].map((nodes, id) => ({
      id,
      nodes,
      sourceTopics: nodes.flatMap((n) => (n.kind === 'source' ? n.topics : [])),
      sinkTopics: nodes.flatMap((n) => (n.kind === 'sink' && typeof n.topic === 'string' ? [n.topic] : [])),
      stores: [...new Set(nodes.flatMap((n) => (n.kind === 'processor' ? n.stores.filter((st) => !this.globals.has(st)) : [])))],
    }));
  }

  private addGlobal(builder: StoreBuilder, topic: string, options: SourceOptions, processor: GlobalStoreProcessor | null): void {
    if (this.storeMap.has(builder.name) || this.globals.has(builder.name)) throw topologyError(`store '${builder.name}' is already added`);
    for (const node of this.nodeMap.values()) if (node.kind === 'source' && node.topics.includes(topic)) throw topologyError(`topic '${topic}' is read by both '${node.name}' and the global store '${builder.name}'`);
    if ([...this.globals.values()].some((g) => g.topic === topic)) throw topologyError(`topic '${topic}' feeds two global stores`);
    this.globals.set(builder.name, { builder, topic, options, processor });
  }

  /** The source and processor names of the global stores added with a processor. */
  private globalNodeNames(): Set<string> {
    const names = new Set<string>();
    for (const g of this.globals.values()) if (g.processor !== null) names.add(g.processor.sourceName).add(g.processor.processorName);
    return names;
  }

  private connectAll(processorNames: string[], storeNames: string[]): this {
    for (const p of processorNames) {
      const node = this.nodeMap.get(p);
      if (node === undefined || node.kind !== 'processor') throw topologyError(`cannot connect stores [${storeNames.join(', ')}] to '${p}': no processor of that name`);
      for (const s of storeNames) if (!node.stores.includes(s)) node.stores.push(s);
    }
    return this;
  }

  private add(node: TopologyNode): this {
    if (node.name === '') throw topologyError('a node name must not be empty');
    if (this.nodeMap.has(node.name) || this.globalNodeNames().has(node.name)) throw topologyError(`a node named '${node.name}' already exists`);
    this.nodeMap.set(node.name, node);
    return this;
  }

  /** Depth-first search over parent links; a node met again on the current path closes a cycle. */
  private checkCycles(): void {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') throw topologyError(`the topology has a cycle through '${name}' (parent chain: ${[...path.slice(path.indexOf(name)), name].join(' <- ')})`);
      state.set(name, 'visiting');
      const node = this.nodeMap.get(name);
      if (node !== undefined && node.kind !== 'source') for (const p of node.parents) visit(p, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of this.nodeMap.keys()) visit(name, []);
  }
}

function topologyError(message: string): StreamsError {
  return new StreamsError(StreamsErrorCode.TOPOLOGY, `invalid topology: ${message}`);
}

/**
 * A task: one instance of a sub-topology (or, in the test driver, of the
 * whole topology) for one partition. It owns processor instances and
 * stores, deserializes what sources read, serializes what sinks write,
 * keeps stream time (the largest record timestamp seen) and fires
 * punctuations. Single-threaded: one record is processed to completion
 * (depth first through the graph) before the next.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Cancellable, Processor, ProcessorContext, PunctuationType, RecordMetadata } from '../processor/processor.js';
import { StreamRecord, type StreamHeaders } from '../processor/record.js';
import { runStatelessStep, statelessStepOf, type StatelessStep, type StepOutput } from '../processor/stateless-step.js';
import { writesUtf8, type Serde } from '../serdes.js';
import type { RecordCache } from '../state/record-cache.js';
import { changelogTopic, type StateStore, type StateStoreContext } from '../state/store.js';
import type { StreamPartitioner, TopicNameExtractor, Topology, TopologyNode } from '../topology.js';
import type { FetchedRecord, RawRecord, RecordCollector, SinkRecord } from './collector.js';
import { Punctuations } from './punctuation.js';

/** Topic names remembered by `resolve` (a topic extractor may name unboundedly many topics). */
const RESOLVED_TOPICS_MAX = 10_000;

/** What a deserialization exception handler decides (Kafka's DeserializationHandlerResponse). */
export type DeserializationHandlerResponse = 'CONTINUE' | 'FAIL';

/** Called with a record that does not deserialize. */
export type DeserializationExceptionHandler = (error: unknown, record: RawRecord) => DeserializationHandlerResponse;

/** What a task needs from its runtime. */
export interface TaskOptions {
  applicationId: string;
  taskId: string;
  partition: number;
  topology: Topology;
  nodes: readonly TopologyNode[];
  stateDir: string | null;
  defaultKeySerde: Serde<unknown>;
  defaultValueSerde: Serde<unknown>;
  collector: RecordCollector;
  wallClockMs: () => number;
  onDeserializationError: DeserializationExceptionHandler;
  requestCommit?: () => void;
  /** The instance's global stores (GlobalKTables), shared by all its tasks. */
  globalStores?: ReadonlyMap<string, StateStore>;
  /** The record cache of the thread running the task (caching stores write into it). */
  cache?: RecordCache;
  /** Whether the thread's Consumer deserializes records of this (resolved) source topic itself (`FetchDeserializers`). */
  decodedAtFetch?: (topic: string) => boolean;
}

type SourceNode = Extract<TopologyNode, { kind: 'source' }>;
type SinkNode = Extract<TopologyNode, { kind: 'sink' }>;

interface NodeInstance {
  node: TopologyNode;
  children: NodeInstance[];
  byName: Map<string, NodeInstance>;
  processor: Processor | null;
  /** Set for a sink: what it resolves once rather than per record. */
  sink: SinkPlan | null;
  /** Set for a DSL stateless operator: what its processor does, run on the record's fields instead. */
  step: StatelessStep | null;
}

/** A source topic's deserialization, resolved once. */
interface SourcePlan {
  node: SourceNode;
  children: NodeInstance[];
  keySerde: Serde<unknown>;
  valueSerde: Serde<unknown>;
  /** The Consumer has deserialized the records already (with these serdes, which cannot fail). */
  decodedAtFetch: boolean;
}

/** A sink's serdes and, for a fixed topic, its resolved name. */
interface SinkPlan {
  node: SinkNode;
  topic: string | null;
  keySerde: Serde<unknown>;
  valueSerde: Serde<unknown>;
  keyUtf8: boolean;
  valueUtf8: boolean;
}

/** One instance of (part of) a topology for one partition. */
export class StreamTask implements StepOutput<readonly NodeInstance[]> {
  readonly id: string;
  private readonly instances = new Map<string, NodeInstance>();
  private readonly sources = new Map<string, SourcePlan>();
  private readonly stores = new Map<string, StateStore>();
  private readonly restorers = new Map<string, (key: Buffer, value: Buffer | null) => void>();
  private readonly changelogs = new Map<string, string | null>();
  private readonly resolved = new Map<string, string>();
  /** Persistent stores that started empty because their files were unreadable. */
  readonly wipedStores = new Set<string>();
  private readonly punctuations = new Punctuations();
  private streamTimeMs = -1;
  private current: RecordMetadata | null = null;
  private currentTimestampMs = -1;
  private currentNode = '';

  constructor(private readonly options: TaskOptions) {
    this.id = options.taskId;
    for (const node of options.nodes) {
      const sink = node.kind === 'sink' ? this.sinkPlan(node) : null;
      const step = node.kind === 'processor' ? statelessStepOf(node.supplier) : null;
      this.instances.set(node.name, { node, children: [], byName: new Map(), processor: null, sink, step });
    }
    for (const inst of this.instances.values()) {
      for (const child of options.topology.children(inst.node.name)) {
        const c = this.instances.get(child.name);
        if (c === undefined) continue;
        inst.children.push(c);
        inst.byName.set(child.name, c);
      }
      const node = inst.node;
      if (node.kind !== 'source') continue;
      const keySerde = node.options.keySerde ?? options.defaultKeySerde;
      const valueSerde = node.options.valueSerde ?? options.defaultValueSerde;
      for (const t of node.topics) {
        const topic = this.resolve(t);
        this.sources.set(topic, { node, children: inst.children, keySerde, valueSerde, decodedAtFetch: options.decodedAtFetch?.(topic) === true });
      }
    }
  }

  private sinkPlan(node: SinkNode): SinkPlan {
    const keySerde = node.options.keySerde ?? this.options.defaultKeySerde;
    const valueSerde = node.options.valueSerde ?? this.options.defaultValueSerde;
    const topic = typeof node.topic === 'string' ? this.resolve(node.topic) : null;
    return { node, topic, keySerde, valueSerde, keyUtf8: writesUtf8(keySerde), valueUtf8: writesUtf8(valueSerde) };
  }

  /** The partition of this task. */
  get partition(): number {
    return this.options.partition;
  }

  /** The topics (resolved names) this task reads. */
  get sourceTopics(): string[] {
    return [...this.sources.keys()];
  }

  /** The store instances of this task, by name. */
  get stateStores(): ReadonlyMap<string, StateStore> {
    return this.stores;
  }

  /** Opens the stores, then the processors (parents first). */
  init(): void {
    this.initStores();
    this.initProcessors();
  }

  /** Opens the stores only: a standby task (kept warm from the changelogs, no processing) stops here. */
  initStores(): void {
    const storeContext = this.storeContext();
    for (const inst of this.instances.values()) {
      if (inst.node.kind !== 'processor') continue;
      for (const name of inst.node.stores) {
        if (this.stores.has(name) || this.options.globalStores?.has(name)) continue;
        const builder = this.options.topology.store(name);
        if (builder === undefined) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `processor '${inst.node.name}' uses the unknown store '${name}'`);
        const store = builder.build();
        store.init(storeContext);
        this.stores.set(name, store);
      }
    }
  }

  /** Creates and initialises the processors (a standby promoted to active calls this on its warm stores). */
  initProcessors(): void {
    for (const inst of this.instances.values()) {
      if (inst.node.kind !== 'processor') continue;
      inst.processor = inst.node.supplier();
      this.currentNode = inst.node.name;
      inst.processor.init?.(this.processorContext(inst));
    }
  }

  /** Replays one changelog record into a store (restoration). */
  restore(storeName: string, key: Buffer, value: Buffer | null): void {
    const restore = this.restorers.get(storeName);
    if (restore === undefined) throw new StreamsError(StreamsErrorCode.STORE, `task ${this.id} has no store '${storeName}' to restore`);
    restore(key, value);
  }

  /** Processes one record read from `record.topic` (a resolved source topic of this task), its key and value as bytes. */
  process(record: RawRecord): void {
    this.processFrom(this.sourceOf(record.topic), record);
  }

  /**
   * Processes the records of one consumer batch (one topic-partition), in
   * order, firing the stream-time punctuations due after each. Records of a
   * topic the Consumer deserializes (`decodedAtFetch`) carry their values.
   */
  processBatch(records: readonly FetchedRecord[]): void {
    if (records.length === 0) return;
    const source = this.sourceOf((records[0] as FetchedRecord).topic);
    for (let i = 0; i < records.length; i++) {
      this.processFrom(source, records[i] as FetchedRecord);
      if (this.punctuations.hasStreamTime) this.punctuateStreamTime();
    }
  }

  private sourceOf(topic: string): SourcePlan {
    const source = this.sources.get(topic);
    if (source === undefined) throw new StreamsError(StreamsErrorCode.STATE, `task ${this.id} does not read topic '${topic}'`);
    return source;
  }

  private processFrom(source: SourcePlan, record: FetchedRecord): void {
    let key: unknown;
    let value: unknown;
    if (source.decodedAtFetch) {
      key = record.key;
      value = record.value;
    } else {
      // Not deserialized at fetch time: the Consumer handed out bytes.
      const raw = record as RawRecord;
      try {
        key = source.keySerde.deserialize(raw.topic, raw.key);
        value = source.valueSerde.deserialize(raw.topic, raw.value);
      } catch (err) {
        if (this.options.onDeserializationError(err, raw) === 'CONTINUE') return;
        throw new StreamsError(StreamsErrorCode.SERDE, `source '${source.node.name}' cannot deserialize the record at ${raw.topic}-${raw.partition}@${raw.offset}`, { cause: err });
      }
    }
    const extractor = source.node.options.timestampExtractor;
    const timestamp = extractor === undefined ? record.timestamp : extractor({ topic: record.topic, key, value, timestamp: record.timestamp }, this.streamTimeMs);
    if (timestamp < 0) return; // as Kafka's LogAndSkipOnInvalidTimestamp: a record without a valid time cannot be placed
    this.current = record; // a consumer record is a RecordMetadata: no copy per record
    this.currentTimestampMs = timestamp;
    if (timestamp > this.streamTimeMs) this.streamTimeMs = timestamp;
    try {
      // No StreamRecord yet: the first node that takes one makes it (DSL stateless steps and sinks take the fields).
      this.forwardFields(source.children, key, value, timestamp, record.headers, null);
    } finally {
      this.current = null;
      this.currentTimestampMs = -1;
    }
  }

  /** Fires the stream-time punctuations due now (call after each record). */
  punctuateStreamTime(): boolean {
    return this.streamTimeMs >= 0 && this.punctuations.hasStreamTime && this.guard('punctuation', () => this.punctuations.streamTimeAdvanced(this.streamTimeMs));
  }

  /** Fires the wall-clock punctuations due at `nowMs`. */
  punctuateWallClock(nowMs: number): boolean {
    return this.guard('punctuation', () => this.punctuations.wallClockAdvanced(nowMs));
  }

  /** The largest record timestamp processed (-1 before the first). */
  get streamTime(): number {
    return this.streamTimeMs;
  }

  /** Flushes the stores (before a commit): their caches forward downstream, then they write to disk. */
  flush(): void {
    this.flushCaches();
    for (const store of this.stores.values()) store.flush();
  }

  /** Writes the caching stores' caches through (forwarding downstream), in store order: an upstream store's flush may fill a downstream cache, flushed after it. */
  flushCaches(): void {
    for (const store of this.stores.values()) {
      const cached = store as StateStore & { flushCache?: () => void };
      if (cached.flushCache !== undefined) this.guard('cache flush', () => cached.flushCache?.());
    }
  }

  /** Closes the processors, then the stores. */
  close(): void {
    for (const inst of this.instances.values()) {
      this.currentNode = inst.node.name;
      inst.processor?.close?.();
    }
    for (const store of this.stores.values()) store.close();
  }

  /** Sends a processor's record to `children` (ProcessorContext.forward). */
  private forwardTo(children: readonly NodeInstance[], record: StreamRecord<unknown, unknown>): void {
    this.forwardFields(children, record.key, record.value, record.timestamp, record.headers, record);
  }

  /**
   * The hot path: sends a record, as its fields, to `children`. `record` is
   * the StreamRecord of these fields when one exists; otherwise one is made
   * only for a child that takes a StreamRecord (a processor that is not a
   * DSL stateless step), at most once, shared by the children as one record
   * was before. No closure or object per hop beyond that and what the
   * processors make. Public only as the task's StepOutput: a DSL stateless
   * step run by the task (runStatelessStep) forwards its output here.
   */
  forwardFields(children: readonly NodeInstance[], key: unknown, value: unknown, timestamp: number, headers: StreamHeaders, record: StreamRecord<unknown, unknown> | null): void {
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as NodeInstance;
      const previous = this.currentNode;
      this.currentNode = child.node.name;
      if (child.sink !== null) this.sink(child.sink, key, value, timestamp, headers);
      else {
        try {
          if (child.step !== null) runStatelessStep(child.step, this, child.children, key, value, timestamp, headers, record);
          else (child.processor as Processor).process((record ??= new StreamRecord(key, value, timestamp, headers)));
        } catch (err) {
          throw this.wrap('process', err);
        }
      }
      this.currentNode = previous;
    }
  }

  private sink(plan: SinkPlan, recordKey: unknown, recordValue: unknown, timestamp: number, headers: StreamHeaders): void {
    const node = plan.node;
    const topic = plan.topic ?? this.resolve((node.topic as TopicNameExtractor)(recordKey, recordValue, { sourceTopic: this.current?.topic ?? null }));
    const key = plan.keyUtf8 && typeof recordKey === 'string' ? recordKey : plan.keySerde.serialize(topic, recordKey);
    const value = plan.valueUtf8 && typeof recordValue === 'string' ? recordValue : plan.valueSerde.serialize(topic, recordValue);
    const partitioner = node.options.partitioner;
    const out: SinkRecord = { topic, key, value, timestamp };
    if (headers.length > 0) out.headers = headers;
    // The partitioner's closure is made in another function: one here would allocate a context for every record.
    this.options.collector.send(out, partitioner === undefined ? undefined : choosePartition(partitioner, topic, recordKey, recordValue));
  }

  /** Runs processor code; wraps what it throws with the node's name (once, at the innermost node). */
  private guard<T>(what: string, run: () => T): T {
    try {
      return run();
    } catch (err) {
      throw this.wrap(what, err);
    }
  }

  private wrap(what: string, err: unknown): unknown {
    if (err instanceof StreamsError) return err;
    const where = this.current === null ? '' : ` on the record at ${this.current.topic}-${this.current.partition}@${this.current.offset}`;
    return new StreamsError(StreamsErrorCode.PROCESSING, `task ${this.id}: processor '${this.currentNode}' failed in ${what}${where}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  }

  /**
   * The full name of a topic as the topology names it. Remembered per name:
   * a sink asks for every record, and a fresh `<applicationId>-<topic>`
   * string per record also made every later map lookup of it hash it again.
   */
  private resolve(topic: string): string {
    let full = this.resolved.get(topic);
    if (full === undefined) {
      full = this.options.topology.isInternalTopic(topic) ? `${this.options.applicationId}-${topic}` : topic;
      if (this.resolved.size < RESOLVED_TOPICS_MAX) this.resolved.set(topic, full);
    }
    return full;
  }

  private processorContext(inst: NodeInstance): ProcessorContext {
    const task = this;
    const allowed = new Set(inst.node.kind === 'processor' ? inst.node.stores : []);
    return {
      applicationId: this.options.applicationId,
      taskId: this.id,
      forward(record, childName) {
        if (childName === undefined) return task.forwardTo(inst.children, record);
        const child = inst.byName.get(childName);
        if (child === undefined) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `processor '${inst.node.name}' has no child '${childName}'`);
        task.forwardTo([child], record);
      },
      getStateStore<S extends StateStore>(name: string): S {
        // Global stores are readable by every processor without being connected (as in Kafka).
        const global = task.options.globalStores?.get(name);
        if (global !== undefined) return global as S;
        const store = task.stores.get(name);
        if (store === undefined || !allowed.has(name)) throw new StreamsError(StreamsErrorCode.STORE, `processor '${inst.node.name}' is not connected to a store '${name}' (connect it with addStateStore or connectProcessorAndStateStores)`);
        return store as S;
      },
      schedule(intervalMs: number, type: PunctuationType, punctuator: (timestamp: number) => void): Cancellable {
        const start = type === 'STREAM_TIME' ? 0 : task.options.wallClockMs() + intervalMs;
        return task.punctuations.add(type, intervalMs, start, (timestamp) => {
          const previous = task.currentNode;
          task.currentNode = inst.node.name;
          try {
            punctuator(timestamp);
          } finally {
            task.currentNode = previous;
          }
        });
      },
      recordMetadata: () => task.current,
      currentStreamTimeMs: () => task.streamTimeMs,
      currentSystemTimeMs: () => task.options.wallClockMs(),
      commit: () => task.options.requestCommit?.(),
    };
  }

  /** The changelog topic of a store, or null when it logs nothing (looked up once per store: every change asks). */
  private changelogOf(store: string): string | null {
    let topic = this.changelogs.get(store);
    if (topic === undefined) {
      topic = this.options.topology.store(store)?.loggingEnabled === true ? changelogTopic(this.options.applicationId, store) : null;
      this.changelogs.set(store, topic);
    }
    return topic;
  }

  private storeContext(): StateStoreContext {
    const o = this.options;
    return {
      applicationId: o.applicationId,
      taskId: o.taskId,
      partition: o.partition,
      stateDir: o.stateDir,
      defaultKeySerde: o.defaultKeySerde,
      defaultValueSerde: o.defaultValueSerde,
      cache: o.cache ?? null,
      recordTimestampMs: () => (this.currentTimestampMs >= 0 ? this.currentTimestampMs : Math.max(this.streamTimeMs, 0)),
      logChange: (store, key, value, timestampMs) => {
        const topic = this.changelogOf(store);
        if (topic === null) return;
        const timestamp = timestampMs ?? (this.currentTimestampMs >= 0 ? this.currentTimestampMs : Math.max(this.streamTimeMs, 0));
        o.collector.logChange(topic, o.partition, key, value, timestamp);
      },
      registerRestore: (store, restore) => void this.restorers.set(store, restore),
      reportWiped: (store) => void this.wipedStores.add(store),
    };
  }
}

/** A sink partitioner applied to a record's key and value once the topic's partition count is known. */
function choosePartition(partitioner: StreamPartitioner<unknown, unknown>, topic: string, key: unknown, value: unknown): (numPartitions: number) => number | undefined {
  return (n) => partitioner(topic, key, value, n);
}

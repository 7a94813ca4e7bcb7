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
import { StreamRecord } from '../processor/record.js';
import { writesUtf8, type Serde } from '../serdes.js';
import type { RecordCache } from '../state/record-cache.js';
import { changelogTopic, type StateStore, type StateStoreContext } from '../state/store.js';
import type { Topology, TopologyNode } from '../topology.js';
import type { RawRecord, RecordCollector, SinkRecord } from './collector.js';
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
}

interface NodeInstance {
  node: TopologyNode;
  children: NodeInstance[];
  byName: Map<string, NodeInstance>;
  processor: Processor | null;
}

/** One instance of (part of) a topology for one partition. */
export class StreamTask {
  readonly id: string;
  private readonly instances = new Map<string, NodeInstance>();
  private readonly sources = new Map<string, NodeInstance>();
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
    for (const node of options.nodes) this.instances.set(node.name, { node, children: [], byName: new Map(), processor: null });
    for (const inst of this.instances.values()) {
      for (const child of options.topology.children(inst.node.name)) {
        const c = this.instances.get(child.name);
        if (c === undefined) continue;
        inst.children.push(c);
        inst.byName.set(child.name, c);
      }
      if (inst.node.kind === 'source') for (const t of inst.node.topics) this.sources.set(this.resolve(t), inst);
    }
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

  /** Processes one record read from `record.topic` (a resolved source topic of this task). */
  process(record: RawRecord): void {
    const source = this.sources.get(record.topic);
    if (source === undefined || source.node.kind !== 'source') throw new StreamsError(StreamsErrorCode.STATE, `task ${this.id} does not read topic '${record.topic}'`);
    const options = source.node.options;
    let key: unknown;
    let value: unknown;
    try {
      key = (options.keySerde ?? this.options.defaultKeySerde).deserialize(record.topic, record.key);
      value = (options.valueSerde ?? this.options.defaultValueSerde).deserialize(record.topic, record.value);
    } catch (err) {
      if (this.options.onDeserializationError(err, record) === 'CONTINUE') return;
      throw new StreamsError(StreamsErrorCode.SERDE, `source '${source.node.name}' cannot deserialize the record at ${record.topic}-${record.partition}@${record.offset}`, { cause: err });
    }
    const timestamp = options.timestampExtractor === undefined ? record.timestamp : options.timestampExtractor({ topic: record.topic, key, value, timestamp: record.timestamp }, this.streamTimeMs);
    if (timestamp < 0) return; // as Kafka's LogAndSkipOnInvalidTimestamp: a record without a valid time cannot be placed
    this.current = record; // a RawRecord is a RecordMetadata: no copy per record
    this.currentTimestampMs = timestamp;
    if (timestamp > this.streamTimeMs) this.streamTimeMs = timestamp;
    try {
      this.forwardTo(source.children, new StreamRecord(key, value, timestamp, record.headers));
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

  /** The hot path: no closure or object per hop beyond what the processors make. */
  private forwardTo(children: readonly NodeInstance[], record: StreamRecord<unknown, unknown>): void {
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as NodeInstance;
      const previous = this.currentNode;
      this.currentNode = child.node.name;
      if (child.node.kind === 'sink') this.sink(child.node, record);
      else {
        try {
          (child.processor as Processor).process(record);
        } catch (err) {
          throw this.wrap('process', err);
        }
      }
      this.currentNode = previous;
    }
  }

  private sink(node: Extract<TopologyNode, { kind: 'sink' }>, record: StreamRecord<unknown, unknown>): void {
    const name = typeof node.topic === 'string' ? node.topic : node.topic(record.key, record.value, { sourceTopic: this.current?.topic ?? null });
    const topic = this.resolve(name);
    const key = serializeForSink(node.options.keySerde ?? this.options.defaultKeySerde, topic, record.key);
    const value = serializeForSink(node.options.valueSerde ?? this.options.defaultValueSerde, topic, record.value);
    const partitioner = node.options.partitioner;
    const choose = partitioner === undefined ? undefined : (n: number) => partitioner(topic, record.key, record.value, n);
    const out: SinkRecord = { topic, key, value, timestamp: record.timestamp };
    if (record.headers.length > 0) out.headers = record.headers;
    this.options.collector.send(out, choose);
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

/** A sink's key or value: a string under Serdes.String is handed on as it is (the Producer writes it as UTF-8). */
function serializeForSink(serde: Serde<unknown>, topic: string, data: unknown): Buffer | string | null {
  return typeof data === 'string' && writesUtf8(serde) ? data : serde.serialize(topic, data);
}

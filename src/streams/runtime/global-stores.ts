/**
 * The global stores of one instance (Kafka's GlobalStateManager and
 * GlobalStateUpdateTask). A global store holds every partition of its topic,
 * is shared read-only by all the instance's tasks, has no changelog (the
 * topic is one) and is rebuilt from the topic's start whenever the instance
 * starts. Records are applied in offset order per partition:
 *
 * - a GlobalKTable's store takes each record as it is (a value puts, a null
 *   value deletes);
 * - a store added by `addGlobalStore` gets each record through the user's
 *   processor, its only writer. Rebuilding at start-up replays the topic
 *   through the processor as well, as Kafka does since 3.8 (KAFKA-7663,
 *   `reprocessOnRestore`), so the store never holds raw topic records the
 *   processor would have transformed.
 *
 * Persistent global stores live under `<stateDir>/global`, which is wiped
 * at start: there is no global checkpoint, and replaying the topic through a
 * processor on top of old contents could count records twice.
 */
import { rmSync } from 'node:fs';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Processor, ProcessorContext, RecordMetadata } from '../processor/processor.js';
import { StreamRecord } from '../processor/record.js';
import type { Serde } from '../serdes.js';
import type { KeyValueStore, StateStore, StateStoreContext } from '../state/store.js';
import type { GlobalStoreSpec, Topology } from '../topology.js';
import type { RawRecord } from './collector.js';
import type { DeserializationExceptionHandler } from './stream-task.js';

/** What the global stores need from their runtime. */
export interface GlobalStoresOptions {
  applicationId: string;
  defaultKeySerde: Serde<unknown>;
  defaultValueSerde: Serde<unknown>;
  /** Directory of persistent global stores (wiped here), or null when there is none. */
  stateDir: string | null;
  wallClockMs: () => number;
  /** What to do with a record that does not deserialize (default: fail). */
  onDeserializationError?: DeserializationExceptionHandler;
}

interface GlobalEntry {
  spec: GlobalStoreSpec;
  store: StateStore;
  processor: Processor | null;
}

/** The task id Kafka gives the global processors' context. */
const GLOBAL_TASK_ID = '-1_-1';

/** The global stores of an instance and how topic records update them. */
export class GlobalStores {
  /** The stores, writable (the owners' view, and the test driver's). */
  readonly stores = new Map<string, StateStore>();
  /** The same stores as the tasks and interactive queries see them: writes throw. */
  readonly readOnlyStores = new Map<string, StateStore>();
  private readonly byTopic = new Map<string, GlobalEntry>();
  private current: RawRecord | null = null;
  private currentTimestampMs = -1;
  private latestTimestampMs = -1;

  constructor(
    topology: Topology,
    private readonly options: GlobalStoresOptions,
  ) {
    if (options.stateDir !== null) rmSync(options.stateDir, { recursive: true, force: true });
    const context: StateStoreContext = {
      applicationId: options.applicationId,
      taskId: 'global',
      partition: -1,
      stateDir: options.stateDir,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      logChange: () => {},
      recordTimestampMs: () => Math.max(this.currentTimestampMs, 0),
      cache: null,
      reportWiped: () => {},
      registerRestore: () => {},
    };
    for (const [name, spec] of topology.globalStores) {
      const store = spec.builder.withLoggingDisabled().build();
      store.init(context);
      this.stores.set(name, store);
      this.readOnlyStores.set(name, readOnlyView(store));
      this.byTopic.set(spec.topic, { spec, store, processor: null });
    }
    // Processors start once every store is open: init() may look any of them up.
    for (const entry of this.byTopic.values()) {
      if (entry.spec.processor === null) continue;
      entry.processor = entry.spec.processor.supplier();
      entry.processor.init?.(this.processorContext(entry.spec.processor.processorName));
    }
  }

  /** The topics that feed global stores. */
  topics(): string[] {
    return [...this.byTopic.keys()];
  }

  /** Whether `topic` feeds a global store. */
  reads(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  /** Applies one record of a global topic to its store (through its processor, if it has one). */
  apply(record: RawRecord): void {
    const entry = this.byTopic.get(record.topic);
    if (entry === undefined) return;
    if (entry.processor === null && record.key === null) return; // a table row needs a key
    const { options } = entry.spec;
    let key: unknown;
    let value: unknown;
    try {
      key = record.key === null ? null : (options.keySerde ?? this.options.defaultKeySerde).deserialize(record.topic, record.key);
      value = record.value === null ? null : (options.valueSerde ?? this.options.defaultValueSerde).deserialize(record.topic, record.value);
    } catch (err) {
      if (this.options.onDeserializationError?.(err, record) === 'CONTINUE') return;
      throw new StreamsError(StreamsErrorCode.SERDE, `global store '${entry.spec.builder.name}' cannot deserialize the record at ${record.topic}-${record.partition}@${record.offset}`, { cause: err });
    }
    if (entry.processor === null) {
      if (key !== null && key !== undefined) (entry.store as KeyValueStore<unknown, unknown>).put(key, value ?? null);
      return;
    }
    const timestamp = options.timestampExtractor === undefined ? record.timestamp : options.timestampExtractor({ topic: record.topic, key, value, timestamp: record.timestamp }, this.latestTimestampMs);
    if (timestamp < 0) return; // as a task does: a record without a valid time is skipped
    this.current = record;
    this.currentTimestampMs = timestamp;
    if (timestamp > this.latestTimestampMs) this.latestTimestampMs = timestamp;
    try {
      entry.processor.process(new StreamRecord(key, value, timestamp, record.headers));
    } catch (err) {
      if (err instanceof StreamsError) throw err;
      const name = entry.spec.processor?.processorName ?? '';
      throw new StreamsError(StreamsErrorCode.PROCESSING, `global processor '${name}' failed on the record at ${record.topic}-${record.partition}@${record.offset}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    } finally {
      this.current = null;
      this.currentTimestampMs = -1;
    }
  }

  /** Writes persistent global stores to disk. */
  flush(): void {
    for (const store of this.stores.values()) store.flush();
  }

  /** Closes the processors, then the stores. */
  close(): void {
    for (const entry of this.byTopic.values()) entry.processor?.close?.();
    for (const store of this.stores.values()) store.close();
  }

  /** Kafka's GlobalProcessorContextImpl: every global store, no children, no punctuation, commit is automatic. */
  private processorContext(processorName: string): ProcessorContext {
    const globals = this;
    return {
      applicationId: this.options.applicationId,
      taskId: GLOBAL_TASK_ID,
      // A global store's processor has no children: as in Kafka, forwarding reaches nobody.
      forward() {},
      getStateStore<S extends StateStore>(name: string): S {
        const store = globals.stores.get(name);
        if (store === undefined) throw new StreamsError(StreamsErrorCode.STORE, `global processor '${processorName}' asked for '${name}', which is not a global store`);
        return store as S;
      },
      schedule(): never {
        throw new StreamsError(StreamsErrorCode.TOPOLOGY, `global processor '${processorName}' cannot schedule punctuations (Kafka's global processor context does not support schedule())`);
      },
      recordMetadata: (): RecordMetadata | null => globals.current,
      currentStreamTimeMs: () => globals.latestTimestampMs,
      currentSystemTimeMs: () => globals.options.wallClockMs(),
      commit: () => {},
    };
  }
}

/** The writes of the store interfaces: a read-only view refuses them. */
const WRITE_METHODS = new Set(['put', 'putIfAbsent', 'delete', 'putAll', 'remove', 'flushCache', 'setFlushListener']);

/** A view of `store` whose writes throw (Kafka's read-only decorator of global stores for ordinary processors). */
function readOnlyView(store: StateStore): StateStore {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const cached = bound.get(prop);
      if (cached !== undefined) return cached;
      let result: unknown = Reflect.get(target, prop, target);
      if (typeof prop === 'string' && WRITE_METHODS.has(prop) && typeof result === 'function') {
        result = () => {
          throw new StreamsError(StreamsErrorCode.STORE, `global store '${target.name}' is read-only here: only its own processor writes it`);
        };
      } else if (typeof result === 'function') result = (result as (...args: unknown[]) => unknown).bind(target);
      else return result;
      bound.set(prop, result);
      return result;
    },
  });
}

/**
 * The DSL's view of the topology under construction (Kafka's
 * InternalStreamsBuilder): generated node names (`KSTREAM-FILTER-0000000003`,
 * one counter for nodes and stores, as Kafka numbers them), stores made from
 * `Materialized`, and repartition steps.
 */
import type { ProcessorSupplier } from '../processor/processor.js';
import { statelessProcessor, type StatelessStep } from '../processor/stateless-step.js';
import type { Serde } from '../serdes.js';
import { Stores } from '../state/stores.js';
import { Topology, type StreamPartitioner } from '../topology.js';
import type { Materialized } from './options.js';
import type { DslNodeFactory } from './node-factory.js';

/** Records without a key cannot be placed by key: a repartition drops them. */
const HAS_KEY: StatelessStep = { kind: 'filter', keep: (key) => key !== null && key !== undefined };

/** merge's and a split branch's step: every record passes on as it is. */
export const PASS_ON: StatelessStep = { kind: 'filter', keep: () => true };

/** The topology being built and the names handed out. */
export class DslGraph {
  readonly topology = new Topology();
  private index = 0;

  /** `make` builds the DSL's stream and table objects, so that they need not import one another. */
  constructor(readonly make: DslNodeFactory) {}

  /** A generated name `<PREFIX>-<10-digit index>`. */
  name(prefix: string): string {
    return `${prefix}-${String(this.index++).padStart(10, '0')}`;
  }

  /** Adds a processor; returns its name. */
  processor(name: string, supplier: ProcessorSupplier, parents: readonly string[], stores: readonly string[] = []): string {
    this.topology.addProcessor(name, supplier, ...parents);
    if (stores.length > 0) this.topology.connectProcessorAndStateStores(name, ...stores);
    return name;
  }

  /** Adds the node of a DSL stateless operator, which does what `step` describes; returns its name. */
  stateless(name: string, step: StatelessStep, parents: readonly string[]): string {
    return this.processor(name, statelessProcessor(step), parents);
  }

  /** Adds the key-value store a `Materialized` describes (name generated with `prefix` if absent); returns its name. */
  keyValueStore<K, V>(materialized: Materialized<K, V>, prefix: string, keySerde: Serde<K> | undefined, valueSerde: Serde<V> | undefined): string {
    const name = materialized.storeName ?? this.name(prefix);
    const supplier = materialized.storeType === 'persistent' ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name);
    const plain = Stores.keyValueStoreBuilder(supplier, materialized.keySerde ?? keySerde, materialized.valueSerde ?? valueSerde);
    const builder = materialized.cachingEnabled === false ? plain : plain.withCachingEnabled();
    const logged = materialized.loggingEnabled === false ? builder.withLoggingDisabled() : builder.withLoggingEnabled(materialized.changelogConfig ?? {});
    this.topology.addStateStore(logged);
    return name;
  }

  /**
   * Sends what `parent` forwards through the internal topic `<base>-repartition`
   * (records without a key are dropped first, as they cannot be placed) and
   * returns the name of the source node reading it back.
   */
  repartition(parent: string, base: string, serdes: { keySerde?: Serde<unknown> | undefined; valueSerde?: Serde<unknown> | undefined }, partitions: number | null = null, partitioner?: StreamPartitioner): string {
    const topic = `${base}-repartition`;
    this.topology.addInternalTopic(topic, partitions);
    const filter = this.stateless(`${topic}-filter`, HAS_KEY, [parent]);
    const sinkOptions = { ...(serdes.keySerde ? { keySerde: serdes.keySerde } : {}), ...(serdes.valueSerde ? { valueSerde: serdes.valueSerde } : {}), ...(partitioner ? { partitioner } : {}) };
    this.topology.addSink(`${topic}-sink`, topic, sinkOptions, filter);
    const source = `${topic}-source`;
    this.topology.addSource(source, topic, { ...(serdes.keySerde ? { keySerde: serdes.keySerde } : {}), ...(serdes.valueSerde ? { valueSerde: serdes.valueSerde } : {}) });
    return source;
  }
}

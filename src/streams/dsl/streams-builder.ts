/**
 * StreamsBuilder: the entry of the DSL (Kafka Streams' `StreamsBuilder`).
 * `build()` checks the topology and returns it; the builder should not be
 * used afterwards.
 */
import { storeGetter } from './change.js';
import { Stores } from '../state/stores.js';
import { GlobalKTable } from './global-ktable.js';
import { DslGraph } from './graph.js';
import { KStream } from './kstream.js';
import { KTable } from './ktable.js';
import { KGroupedStream } from './kgrouped-stream.js';
import { BranchedKStream } from './branched-kstream.js';
import type { DslNodeFactory } from './node-factory.js';
import type { Consumed, Materialized } from './options.js';
import { tableSource } from './table-processors.js';
import type { SourceOptions, Topology } from '../topology.js';
import type { ProcessorSupplier } from '../processor/processor.js';
import type { StoreBuilder } from '../state/store.js';

/** The one place that knows every DSL class: they build one another through it. */
const dslNodeFactory: DslNodeFactory = {
  stream: (state) => new KStream(state),
  table: (state) => new KTable(state),
  grouped: (state, name) => new KGroupedStream(state, name),
  split: (state, node, prefix) => new BranchedKStream(state, node, prefix),
};

/** Builds a topology with the DSL. */
export class StreamsBuilder {
  private readonly graph = new DslGraph(dslNodeFactory);

  /** A stream of the records of `topics`. */
  stream<K = Buffer, V = Buffer>(topics: string | readonly string[], consumed: Consumed<K, V> = {}): KStream<K, V> {
    const g = this.graph;
    const name = consumed.name ?? g.name('KSTREAM-SOURCE');
    g.topology.addSource(name, topics, sourceOptions(consumed));
    return new KStream<K, V>({ graph: g, node: name, keySerde: consumed.keySerde, valueSerde: consumed.valueSerde, repartitionRequired: false });
  }

  /** A table of the latest value per key of `topic` (kept in a store, named by `materialized.storeName` or generated). */
  table<K = Buffer, V = Buffer>(topic: string, consumed: Consumed<K, V> = {}, materialized: Materialized<K, V> = {}): KTable<K, V> {
    const g = this.graph;
    const source = consumed.name ?? g.name('KSTREAM-SOURCE');
    g.topology.addSource(source, topic, sourceOptions(consumed));
    const store = g.keyValueStore<K, V>(materialized, `${topic}-STATE-STORE`, consumed.keySerde, consumed.valueSerde);
    const node = g.processor(g.name('KTABLE-SOURCE'), tableSource<K, V>(store), [source], [store]);
    return new KTable<K, V>({
      graph: g,
      node,
      keySerde: materialized.keySerde ?? consumed.keySerde,
      valueSerde: materialized.valueSerde ?? consumed.valueSerde,
      getter: storeGetter(store),
      storeName: store,
    });
  }

  /**
   * A table of all partitions of `topic`, held whole by every instance
   * (restored from the topic's start when the instance starts; the topic is
   * its changelog, so none is created). Joined with `stream.join(globalTable, keySelector, joiner)`.
   */
  globalTable<K = Buffer, V = Buffer>(topic: string, consumed: Consumed<K, V> = {}, materialized: Pick<Materialized<K, V>, 'storeName' | 'keySerde' | 'valueSerde'> = {}): GlobalKTable<K, V> {
    const g = this.graph;
    const name = materialized.storeName ?? g.name(`${topic}-STATE-STORE`);
    const builder = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), materialized.keySerde ?? consumed.keySerde, materialized.valueSerde ?? consumed.valueSerde).withLoggingDisabled();
    g.topology.addGlobalTableStore(builder, topic, sourceOptions(consumed));
    return new GlobalKTable<K, V>(name);
  }

  /**
   * Adds a global store maintained by your processor (Kafka's
   * `StreamsBuilder.addGlobalStore`): see `Topology.addGlobalStore`. The
   * source and processor are named as Kafka names them (`KSTREAM-SOURCE-<n>`,
   * `KTABLE-SOURCE-<n>`), or `consumed.name` for the source.
   */
  addGlobalStore<K, V>(storeBuilder: StoreBuilder, topic: string, consumed: Consumed<K, V>, stateUpdateSupplier: ProcessorSupplier<K, V, void, void>): this {
    const g = this.graph;
    const source = consumed.name ?? g.name('KSTREAM-SOURCE');
    g.topology.addGlobalStore(storeBuilder, source, sourceOptions(consumed), topic, g.name('KTABLE-SOURCE'), stateUpdateSupplier);
    return this;
  }

  /** The topology built so far, checked (ERR_STREAMS_TOPOLOGY names the node at fault). */
  build(): Topology {
    return this.graph.topology.validate();
  }
}

function sourceOptions<K, V>(consumed: Consumed<K, V>): SourceOptions<K, V> {
  return {
    ...(consumed.keySerde ? { keySerde: consumed.keySerde } : {}),
    ...(consumed.valueSerde ? { valueSerde: consumed.valueSerde } : {}),
    ...(consumed.timestampExtractor ? { timestampExtractor: consumed.timestampExtractor } : {}),
  };
}

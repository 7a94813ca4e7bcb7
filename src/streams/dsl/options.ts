/**
 * The option objects of the DSL operators (Kafka Streams' `Consumed`,
 * `Produced`, `Grouped`, `Materialized`, `Repartitioned`, `Joined`) as plain
 * TypeScript objects.
 */
import type { Serde } from '../serdes.js';
import type { ChangelogConfig } from '../state/store.js';
import type { StreamPartitioner, TimestampExtractor, TopicNameExtractor } from '../topology.js';

/** How `builder.stream()` / `builder.table()` read a topic. */
export interface Consumed<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  timestampExtractor?: TimestampExtractor;
  /** Name of the source node. */
  name?: string;
}

/** How `to()` writes a topic. */
export interface Produced<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  partitioner?: StreamPartitioner<K, V>;
  /** Name of the sink node. */
  name?: string;
}

/** The serdes of a grouping (used by its repartition topic and store). */
export interface Grouped<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /** Names the repartition topic (`<applicationId>-<name>-repartition`). */
  name?: string;
}

/** How an aggregation or table keeps its state. */
export interface Materialized<K, V> {
  /** The store name (queryable with `streams.store(name)`); generated when absent. */
  storeName?: string;
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /** Whether the store has a changelog topic (default true). */
  loggingEnabled?: boolean;
  changelogConfig?: ChangelogConfig;
  /** 'in-memory' (default) or 'persistent' (LMDB under stateDir). */
  storeType?: 'in-memory' | 'persistent';
  /**
   * Whether updates wait in the record cache until a commit (default true, as
   * Kafka's DSL): consecutive updates of a key are then stored, logged and
   * forwarded once. Key-value stores only.
   */
  cachingEnabled?: boolean;
  /** How long a window store keeps windows (default: window size + grace, at least that). Window stores only. */
  retentionMs?: number;
}

/** Options of `repartition()`. */
export interface Repartitioned<K, V> {
  /** Names the topic `<applicationId>-<name>-repartition`. */
  name?: string;
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  numberOfPartitions?: number;
  partitioner?: StreamPartitioner<K, V>;
}

/** Serdes of a join's inputs (for the repartition topics it may need). */
export interface Joined<K, V, VO> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  otherValueSerde?: Serde<VO>;
  name?: string;
}

/** Where `to()` writes: a topic name or a function of each record. */
export type SinkTopic<K, V> = string | TopicNameExtractor<K, V>;

/** The Producer's options, record type, serializers and defaults (see producer.ts). */
import type { RecordHeaderInput } from '../protocol/record-batch/record.js';
import type { Cluster, ClusterOptions } from './cluster.js';
import type { SaslOptions } from '../net/sasl-client.js';
import type { TlsOptions } from '../net/connection-options.js';
import type { PartitionerOption, RandomSource } from './producer-partitioners.js';
import type { Acks, CompressionName } from './records.js';

export const BATCH_SIZE_DEFAULT = 16_384;
export const LINGER_MS_DEFAULT = 5;
export const BUFFER_MEMORY_DEFAULT = 32 * 1024 * 1024;
/** Retries of a batch: unbounded as Java's `retries` (Int32 max); `deliveryTimeoutMs` is what bounds a batch's life. */
export const PRODUCER_RETRIES_DEFAULT = 2_147_483_647;
/** How long a send waits for its topic's metadata (Java's max.block.ms). */
export const MAX_BLOCK_MS_DEFAULT = 60_000;
export const PRODUCER_RETRY_BACKOFF_MS_DEFAULT = 100;
export const PRODUCER_RETRY_BACKOFF_MS_MAX = 1_000;
export const DELIVERY_TIMEOUT_MS_DEFAULT = 120_000;
export const PRODUCE_REQUEST_TIMEOUT_MS_DEFAULT = 30_000;
export const MAX_REQUEST_BYTES_DEFAULT = 1024 * 1024;
/** Batches in flight per partition with idempotence (Java's max.in.flight.requests.per.connection default); also its maximum. */
export const IDEMPOTENT_MAX_IN_FLIGHT = 5;
/**
 * Batches in flight per partition without idempotence: 5 too, as Java's
 * max.in.flight.requests.per.connection default. Without idempotence a
 * retried batch can then land after a later one (as in Java); set
 * `maxInFlight: 1` to keep order at the cost of throughput.
 */
export const MAX_IN_FLIGHT_DEFAULT = 5;

/** Turns a key or value into bytes (a string is written as UTF-8 by the batch builder). */
export type Serializer<T> = (data: T, topic: string) => Buffer | string | null;

export const Serializers = {
  /** Buffers and strings as they are; null stays null. */
  buffer: ((data: Buffer | string | null) => data) as Serializer<Buffer | string | null>,
  string: ((data: string | null) => data) as Serializer<string | null>,
  json: ((data: unknown) => (data === undefined ? null : JSON.stringify(data))) as Serializer<unknown>,
} as const;

/** Record headers: an object of name to value, or a list of `{ key, value }` (names may repeat). */
export type ProducerHeaders = Readonly<Record<string, Buffer | string | null>> | readonly RecordHeaderInput[];

/** A record to send: topic, key, value, headers, and optionally partition and timestamp. */
export interface ProducerRecord<K, V> {
  topic: string;
  key?: K | null;
  value: V;
  headers?: ProducerHeaders;
  /** Explicit partition; skips the partitioner. */
  partition?: number;
  /** Epoch ms (CreateTime); defaults to the time the record's batch was opened. */
  timestamp?: number | bigint;
}

/** Options of `Producer.connect` (the table in docs/client.md lists each with its default). */
export interface ProducerOptions<K, V> {
  /** Use this cluster client (not closed by close()) instead of connecting one. */
  cluster?: Cluster;
  /** Options for the cluster client the producer connects (when `cluster` is not given). */
  clusterOptions?: ClusterOptions;
  /** SASL credentials of the cluster client the producer connects; wins over clusterOptions.sasl. */
  sasl?: SaslOptions;
  /** TLS of the cluster client the producer connects (node tls options: ca, cert, key, servername, rejectUnauthorized); wins over clusterOptions.tls. */
  tls?: TlsOptions;
  keySerializer?: Serializer<K>;
  valueSerializer?: Serializer<V>;
  /** 0: fire and forget; 1: the leader appended; -1: all in-sync replicas (default -1). */
  acks?: Acks;
  compression?: CompressionName;
  /** Bytes per partition batch before it is sent (default 16384). */
  batchSize?: number;
  /** How long a batch waits for more records (default 5, as Java since 3.x); 0 sends on the next tick. */
  lingerMs?: number;
  /** Bytes of records accepted but not yet acknowledged; send() waits for room (default 32 MiB). */
  bufferMemory?: number;
  /**
   * Retries of a batch after a retriable error (default Int32 max, as Java:
   * a batch is retried, across leader moves, until `deliveryTimeoutMs`); 0
   * disables. Also bounds the metadata lookups of a topic a send waits for.
   */
  retries?: number;
  /** How long a send waits for its topic's metadata (a missing topic) before it fails (default 60000, Java's max.block.ms). */
  maxBlockMs?: number;
  /** First retry backoff, doubled per attempt up to PRODUCER_RETRY_BACKOFF_MS_MAX (default 100). */
  retryBackoffMs?: number;
  /** A record fails when not acknowledged this long after its batch opened (default 120000). */
  deliveryTimeoutMs?: number;
  /** Produce request timeout, also sent to the broker as timeoutMs (default 30000). */
  requestTimeoutMs?: number;
  /** Produce requests are split to stay under this many bytes (default 1 MiB). */
  maxRequestBytes?: number;
  /**
   * Idempotence (default true, as the Java client since 3.0): the broker
   * drops a retried batch it already appended, so retries write no duplicates
   * and keep order with up to 5 batches in flight per partition. Needs
   * `acks: -1`, `retries` > 0 and `maxInFlight` <= 5: left unset, it is turned
   * off when those options say otherwise (or when the broker lacks
   * InitProducerId); set to true, a conflict throws ERR_TRIB_INVALID_CONFIG.
   */
  idempotent?: boolean;
  /**
   * Batches per partition sent and not yet acknowledged (default 5, with or
   * without idempotence, as Java). Above 1 without idempotence, a retry can
   * reorder records (set 1 to keep order).
   */
  maxInFlight?: number;
  partitioner?: PartitionerOption;
  /**
   * Ask the broker to create a topic the producer sends to when it does not
   * exist (Metadata allowAutoTopicCreation, as the Java producer's
   * `allow.auto.create.topics`; default true). The broker creates it only
   * when its `auto.create.topics.enable` is on; false: sending to a missing
   * topic fails with UNKNOWN_TOPIC_OR_PARTITION after the retries (or `maxBlockMs`).
   */
  allowAutoTopicCreation?: boolean;
  /**
   * Makes the producer transactional (KIP-98): `producer.transaction(fn)` or
   * begin/commit/abortTransaction. Implies idempotence. One live producer per
   * id: a newer one with the same id fences this one (ERR_TRIB_PRODUCER_FENCED).
   */
  transactionalId?: string;
  /** How long a transaction may stay open before the coordinator aborts it (default 60000, as Java). */
  transactionTimeoutMs?: number;
  /** Randomness for the sticky partitioner (tests). */
  random?: RandomSource;
}

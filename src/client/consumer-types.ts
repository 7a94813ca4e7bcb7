/** The Consumer's options (and the check of its numeric ones), record and batch types, listeners and defaults (see consumer.ts). */
import type { Assignor } from './assignors.js';
import type { ClusterOptions } from './cluster.js';
import type { SaslOptions } from '../net/sasl-client.js';
import type { TlsOptions } from '../net/connection-options.js';
import type { ConsumerRecord } from './consumer-decode.js';
import { invalidArgument } from '../net/errors.js';
import type { Deserializer } from './serde.js';
import type { ConsumerLogger } from './consumer-validate.js';

export type { ConsumerRecord } from './consumer-decode.js';

export const AUTO_COMMIT_INTERVAL_MS_DEFAULT = 5_000;
export const MAX_POLL_RECORDS_DEFAULT = 500;
export const CONSUMER_FETCH_MIN_BYTES_DEFAULT = 1;
export const CONSUMER_FETCH_MAX_WAIT_MS_DEFAULT = 500;
export const CONSUMER_FETCH_MAX_BYTES_DEFAULT = 50 * 1024 * 1024;
export const MAX_PARTITION_FETCH_BYTES_DEFAULT = 1024 * 1024;
/** Decoded fetches buffered per partition before it is fetched again (one handed out, one more ready). */
export const PREFETCH_FETCHES_MAX = 2;

/** A partition of a topic. */
export interface TopicPartition {
  topic: string;
  partition: number;
}

/** An assignor by protocol name, or your own `Assignor`. */
export type AssignorOption = 'cooperative-sticky' | 'range' | 'roundrobin' | Assignor;

/** Callbacks around rebalances (may be async: the rebalance waits for them). */
export interface RebalanceListeners {
  /** New partitions, after their starting offsets are known (cooperative: only the added ones). */
  onPartitionsAssigned?: (partitions: TopicPartition[]) => void | Promise<void>;
  /** Partitions given up (before their new owner starts); positions are committed first with autoCommit. */
  onPartitionsRevoked?: (partitions: TopicPartition[]) => void | Promise<void>;
  /** Partitions lost with the generation (cooperative; session expired): nothing is committed. Default: onPartitionsRevoked. */
  onPartitionsLost?: (partitions: TopicPartition[]) => void | Promise<void>;
}

/** Options of `new Consumer(options)` (the table in docs/client.md lists each with its default). */
export interface ConsumerOptions<K, V> {
  /** 'host:port[,host:port]'. */
  bootstrap: string;
  clientId?: string;
  /** Options of the cluster client the consumer opens (bootstrap and clientId above win). */
  clusterOptions?: Omit<ClusterOptions, 'bootstrap'>;
  /** SASL credentials for every connection (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); wins over clusterOptions.sasl. */
  sasl?: SaslOptions;
  /** TLS for every connection (an SSL or SASL_SSL listener): node tls options such as ca, cert, key, servername, rejectUnauthorized; wins over clusterOptions.tls. */
  tls?: TlsOptions;
  /** Consumer group; without one only assign() works and nothing is committed. */
  groupId?: string;
  keyDeserializer?: Deserializer<K>;
  valueDeserializer?: Deserializer<V>;
  /** Offered in order of preference (default ['cooperative-sticky']); cooperative only when all are. */
  assignors?: readonly AssignorOption[];
  /** Static membership (KIP-345): no LeaveGroup on close; a restart with the same id keeps the assignment. */
  groupInstanceId?: string;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Commit the consumed positions every autoCommitIntervalMs, on revoke and on close (default true). */
  autoCommit?: boolean;
  autoCommitIntervalMs?: number;
  /** Where to start without a committed offset, or after OFFSET_OUT_OF_RANGE (default 'latest', as Java). */
  autoOffsetReset?: 'earliest' | 'latest' | 'none';
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  /** Records per batch handed out (default 500). */
  maxPollRecords?: number;
  fetchMinBytes?: number;
  fetchMaxWaitMs?: number;
  fetchMaxBytes?: number;
  maxPartitionFetchBytes?: number;
  listeners?: RebalanceListeners;
  /** The consumer's rack, sent in Fetch (v11+): a broker with a rack-aware replica selector may name a replica in it to read from (KIP-392). */
  rackId?: string;
  /** Where warnings go (a truncated log found after a leader change, KIP-320); default: process.emitWarning. `console` fits. */
  logger?: ConsumerLogger;
}

/** What `batches()` yields and `run({ eachBatch })` gets: records of one partition, in offset order. */
export interface ConsumerBatch<K, V> {
  topic: string;
  partition: number;
  records: ConsumerRecord<K, V>[];
  /** The partition's high watermark in the fetch response. */
  highWatermark: bigint;
}

/** The callback of `Consumer.run`: `eachBatch` (one partition's records) or `eachRecord`. */
export interface RunOptions<K, V> {
  /** Called with each batch (one partition's records, in offset order). */
  eachBatch?: (batch: ConsumerBatch<K, V>) => void | Promise<void>;
  /** Called with each record, in offset order per partition. */
  eachRecord?: (record: ConsumerRecord<K, V>) => void | Promise<void>;
}

/** Where `seek` moves a partition: an offset, 'earliest' or 'latest'. */
export type OffsetSpecifier = bigint | number | 'earliest' | 'latest';

/** A consumer option that must be a positive integer. */
export function positiveIntegerOption(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw invalidArgument(`${name} must be a positive integer, got ${value}`);
  return value;
}

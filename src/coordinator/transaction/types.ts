/**
 * The transaction coordinator's contract with the world around it: where its
 * records go (__transaction_state), where producer ids come from, and who
 * writes the COMMIT/ABORT markers to the transaction's partitions. The
 * broker passes real implementations (transaction-service.ts); the unit
 * tests and the simulation (test/chaos/transactions/) pass their own.
 */
import type { Clock } from '../../util/clock.js';
import type { TxnLogEntry } from './records.js';
import type { TopicPartition } from './state.js';

export interface TxnPersistence {
  /**
   * Appends the record of `transactionalId` (null = tombstone) to partition
   * `partition` of __transaction_state. Appends land in call order. Resolves
   * with a wire error code: NONE once committed (high watermark), else the
   * append's error (NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT...).
   */
  write(partition: number, transactionalId: string, entry: TxnLogEntry | null): Promise<number>;
}

export interface ProducerIdSource {
  /** A fresh producer id, or the wire error to answer (COORDINATOR_LOAD_IN_PROGRESS while none is available). */
  newProducerId(): Promise<bigint | { errorCode: number }>;
}

export interface MarkerRequest {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly committed: boolean;
  /** The __transaction_state partition's leader epoch when this coordinator loaded it (Kafka's coordinator epoch). */
  readonly coordinatorEpoch: number;
  readonly partitions: readonly TopicPartition[];
}

export interface TxnMarkerSink {
  /**
   * Writes the marker to every partition (WriteTxnMarkers to each leader),
   * retrying retriable errors until `isCurrent()` turns false. Resolves
   * 'done' when every partition has its marker (or its topic is gone),
   * 'stopped' when it gave up because the coordinator moved or was fenced.
   */
  writeMarkers(request: MarkerRequest, isCurrent: () => boolean): Promise<'done' | 'stopped'>;
}

export interface TxnCoordinatorConfig {
  /** transaction.state.log.num.partitions */
  readonly numPartitions: number;
  /** transaction.max.timeout.ms */
  readonly maxTimeoutMs: number;
  /** transactional.id.expiration.ms */
  readonly idExpirationMs: number;
}

export interface TxnCoordinatorDeps {
  readonly clock: Clock;
  readonly persistence: TxnPersistence;
  readonly producerIds: ProducerIdSource;
  readonly markers: TxnMarkerSink;
  readonly config: TxnCoordinatorConfig;
  /** Called when a transaction completes (metrics, tests); optional. */
  readonly onCompleted?: (transactionalId: string, committed: boolean, producerId: bigint, producerEpoch: number) => void;
}

export interface InitProducerIdInput {
  readonly transactionalId: string;
  readonly transactionTimeoutMs: number;
  /** KIP-360 (v3+): the producer's current id and epoch, or -1/-1. */
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

export interface ProducerIdAndEpoch {
  readonly errorCode: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

export interface TxnRef {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

export interface EndTxnInput extends TxnRef {
  readonly committed: boolean;
  /** 2 for EndTxn v5+ (KIP-890 part 2: epoch bump at every end), else 1. */
  readonly transactionVersion: number;
}

export interface DescribedTxn {
  readonly transactionalId: string;
  readonly errorCode: number;
  readonly state: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly transactionTimeoutMs: number;
  readonly transactionStartTimeMs: number;
  readonly partitions: readonly TopicPartition[];
}

export interface ListedTxn {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly state: string;
  readonly durationMs: number;
}

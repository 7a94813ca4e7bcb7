/**
 * Transactions on a broker: the TransactionCoordinator wired to
 * __transaction_state through the coordinator runtime (load when this node
 * becomes a partition's leader, with the partition's leader epoch as the
 * coordinator epoch; unload when leadership leaves), to the marker sender,
 * to producer ids, and to FindCoordinator (key type 1), which creates the
 * topic on first use: transaction.state.log.num.partitions partitions,
 * replication factor transaction.state.log.replication.factor lowered to the
 * live brokers, min.insync.replicas transaction.state.log.min.isr (capped by
 * the replication factor), compacted.
 *
 * Two periodic jobs, as Kafka: abort transactions past their timeout (and
 * resume stalled marker phases) every
 * transaction.abort.timed.out.transaction.cleanup.interval.ms; remove ids
 * unused for transactional.id.expiration.ms every
 * transaction.remove.expired.transaction.cleanup.interval.ms.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../util/clock.js';
import { systemTimer, type PeriodicTimer } from '../../util/timer.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ReplicaManager } from '../../replication/replica-manager.js';
import { CoordinatorRuntime } from '../runtime/coordinator-runtime.js';
import type { CoordinatorLocation, OffsetsTopicMetadata } from '../group/group-service.js';
import { TransactionCoordinator } from './coordinator.js';
import { loadTxnPartition, TRANSACTION_STATE_TOPIC, TxnLogStore, type TxnLoadResult } from './log-store.js';
import type { ProducerIdSource, TxnMarkerSink } from './types.js';

export interface TransactionSettings {
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly minIsr: number;
  readonly segmentBytes: number;
  readonly maxTimeoutMs: number;
  readonly idExpirationMs: number;
  readonly abortTimedOutIntervalMs: number;
  readonly removeExpiredIntervalMs: number;
  /** How long a __transaction_state write waits for the in-sync replicas. */
  readonly writeTimeoutMs: number;
  /** transaction.partition.verification.enable: partition leaders check with the coordinator before a transaction's first append (KIP-890 part 1). */
  readonly partitionVerification?: boolean;
  /** transaction.hanging.abort.enable: partition leaders abort hanging transactions (hanging.ts). */
  readonly hangingAbort?: boolean;
  /** transaction.hanging.check.interval.ms */
  readonly hangingCheckIntervalMs?: number;
}

const NOT_FOUND = { nodeId: -1, host: '', port: -1 };

export class TransactionService {
  readonly coordinator: TransactionCoordinator;
  private readonly runtime: CoordinatorRuntime<{ epoch: number; loaded: TxnLoadResult }>;
  private creatingTopic: Promise<string | null> | null = null;
  private stopTimers: (() => void)[] = [];

  constructor(
    private readonly settings: TransactionSettings,
    private readonly metadata: OffsetsTopicMetadata,
    replicaManager: ReplicaManager,
    clock: Clock,
    producerIds: ProducerIdSource,
    markers: TxnMarkerSink,
    private readonly logger: Logger,
    private readonly timer: PeriodicTimer = systemTimer,
  ) {
    this.runtime = new CoordinatorRuntime({
      topic: TRANSACTION_STATE_TOPIC,
      numPartitions: settings.numPartitions,
      replicaManager,
      writeTimeoutMs: settings.writeTimeoutMs,
      logger,
      shards: {
        load: async (p) => {
          this.coordinator.beginLoad(p.partition);
          const epoch = p.leaderEpoch;
          const loaded = await loadTxnPartition(p);
          logger.info({ partition: p.partition, ids: loaded.entries.size, coordinatorEpoch: epoch, skipped: loaded.skippedRecords }, 'loaded __transaction_state partition');
          return { epoch, loaded };
        },
        activate: (n, { epoch, loaded }) => this.coordinator.loadPartition(n, epoch, loaded.entries),
        deactivate: (n) => this.coordinator.unloadPartition(n),
      },
    });
    this.coordinator = new TransactionCoordinator({
      clock,
      persistence: new TxnLogStore(this.runtime, clock),
      producerIds,
      markers,
      config: { numPartitions: settings.numPartitions, maxTimeoutMs: settings.maxTimeoutMs, idExpirationMs: settings.idExpirationMs },
      onCompleted: (id, committed, producerId, producerEpoch) => logger.debug({ transactionalId: id, committed, producerId, producerEpoch }, 'transaction completed'),
    });
  }

  /** FindCoordinator key type 1: the leader of the id's __transaction_state partition. */
  async findTransactionCoordinator(transactionalId: string, listenerName: string): Promise<CoordinatorLocation> {
    if (!this.metadata.topicExists(TRANSACTION_STATE_TOPIC)) {
      const problem = await this.createTopic();
      if (problem !== null) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: problem, ...NOT_FOUND };
    }
    const n = this.coordinator.partitionFor(transactionalId);
    const partition = this.metadata.topic(TRANSACTION_STATE_TOPIC)?.partitions.find((p) => p.partition === n);
    const leader = partition && partition.leader >= 0 ? this.metadata.brokers(listenerName).find((b) => b.nodeId === partition.leader) : undefined;
    if (!leader) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'the transaction coordinator has no leader yet', ...NOT_FOUND };
    return { errorCode: ErrorCode.NONE, errorMessage: null, nodeId: leader.nodeId, host: leader.host, port: leader.port };
  }

  private createTopic(): Promise<string | null> {
    this.creatingTopic ??= (async () => {
      const brokers = this.metadata.brokers('').length || 1;
      const replicationFactor = Math.min(this.settings.replicationFactor, brokers);
      const [result] = await this.metadata.createTopics(
        [{
          name: TRANSACTION_STATE_TOPIC,
          numPartitions: this.settings.numPartitions,
          replicationFactor,
          assignments: [],
          configs: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'compression.type', value: 'uncompressed' },
            { name: 'min.insync.replicas', value: String(Math.min(this.settings.minIsr, replicationFactor)) },
            { name: 'segment.bytes', value: String(this.settings.segmentBytes) },
            { name: 'unclean.leader.election.enable', value: 'false' },
          ],
        }],
        false,
      );
      if (result && result.errorCode !== ErrorCode.NONE && result.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) return result.errorMessage ?? `error ${result.errorCode}`;
      this.logger.info({ partitions: this.settings.numPartitions, replicationFactor }, 'created __transaction_state');
      return null;
    })()
      .catch((err: unknown) => (err instanceof Error ? err.message : String(err)))
      .finally(() => {
        this.creatingTopic = null;
      });
    return this.creatingTopic;
  }

  loadHostedPartitions(): void {
    this.runtime.loadHosted();
  }

  start(): void {
    const abort = this.timer.every(this.settings.abortTimedOutIntervalMs, () => {
      const n = this.coordinator.abortTimedOut();
      if (n > 0) this.logger.info({ transactions: n }, 'aborting transactions past their timeout');
    });
    const expire = this.timer.every(this.settings.removeExpiredIntervalMs, () => {
      this.coordinator.expireTransactionalIds().then(
        (n) => n > 0 && this.logger.info({ transactionalIds: n }, 'removed expired transactional ids'),
        (err: unknown) => this.logger.warn({ err }, 'transactional id expiry failed'),
      );
    });
    this.stopTimers = [abort, expire];
  }

  stop(): void {
    for (const stop of this.stopTimers) stop();
    this.runtime.stop();
    for (let n = 0; n < this.settings.numPartitions; n++) this.coordinator.unloadPartition(n);
  }
}

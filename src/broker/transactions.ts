/**
 * Builds the broker's TransactionService: the coordinator on
 * __transaction_state, producer ids from the broker's ProducerIdManager, and
 * markers sent with WriteTxnMarkers to the leaders the metadata image names,
 * on the inter-broker listener (written directly for partitions led here);
 * and the partition leaders' TransactionVerifier
 * (KIP-890 part 1), which asks the id's coordinator with AddPartitionsToTxn
 * v4 verifyOnly (directly when the coordinator is this broker); and the
 * hanging transaction detector of the partitions led here.
 */
import type { ConnectionSecurity } from '../net/connection-options.js';
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { MarkerSender, type MarkerTransport, type WireMarker } from '../coordinator/transaction/marker-sender.js';
import { tpKey } from '../coordinator/transaction/state.js';
import { TransactionService, type TransactionSettings } from '../coordinator/transaction/transaction-service.js';
import type { OffsetsTopicMetadata } from '../coordinator/group/group-service.js';
import type { ProducerIdManager } from './producer-ids.js';
import { TxnBrokerChannel } from './txn-channel.js';
import { ErrorCode } from '../protocol/errors.js';
import { TRANSACTION_STATE_TOPIC } from '../coordinator/transaction/log-store.js';
import type { TransactionVerifier, TxnVerificationOutcome } from '../replication/txn-verification.js';
import { HangingTransactionDetector } from './hanging-transactions.js';

export interface BrokerTransactionsOptions {
  readonly nodeId: number;
  readonly settings: TransactionSettings;
  readonly interBrokerListenerName: string;
  readonly metadata: OffsetsTopicMetadata;
  /** Where broker `id` listens, by listener name (the metadata image's registrations). */
  readonly endpointsOf: (id: number) => readonly { name: string; host: string; port: number }[] | undefined;
  readonly hosted: ReplicaManager;
  readonly producerIds: ProducerIdManager;
  readonly clock: Clock;
  readonly logger: Logger;
  /** TLS/SASL of the inter-broker listener (ClusterSettings.links). */
  readonly security?: ConnectionSecurity | undefined;
}

export interface BrokerTransactions {
  readonly service: TransactionService;
  /** Hanging transactions on the partitions led here (hanging-transactions.ts). */
  readonly hanging: HangingTransactionDetector;
  close(): void;
}

/** transaction.hanging.check.interval.ms's default. */
const HANGING_CHECK_INTERVAL_MS_DEFAULT = 60_000;

export function createTransactions(opts: BrokerTransactionsOptions): BrokerTransactions {
  const transport = new TxnBrokerChannel((id) => {
    const eps = opts.endpointsOf(id);
    const ep = eps?.find((e) => e.name === opts.interBrokerListenerName) ?? eps?.[0];
    return ep === undefined ? undefined : { host: ep.host, port: ep.port };
  }, `broker-${opts.nodeId}-txn-markers`, opts.security);
  const markers = new MarkerSender({
    transport: localFirst(opts, transport),
    leaderOf: (tp) => {
      const topic = opts.metadata.topic(tp.topic);
      if (topic === undefined) return null;
      return topic.partitions.find((p) => p.partition === tp.partition)?.leader ?? null;
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
    onRetry: (tp, errorCode) => opts.logger.debug({ topic: tp.topic, partition: tp.partition, errorCode }, 'transaction marker write failed; retrying'),
  });
  const service = new TransactionService(
    opts.settings,
    opts.metadata,
    opts.hosted,
    opts.clock,
    { newProducerId: () => opts.producerIds.allocateProducerId() },
    markers,
    opts.logger,
  );
  // Without verification (Kafka's transaction.partition.verification.enable=false) leaders append transactional batches unchecked.
  if (opts.settings.partitionVerification !== false) opts.hosted.txnVerification.setVerifier(verifierFor(opts, service, transport));
  const hanging = new HangingTransactionDetector({
    hosted: opts.hosted,
    clock: opts.clock,
    logger: opts.logger,
    maxTimeoutMs: opts.settings.maxTimeoutMs,
    abortEnabled: opts.settings.hangingAbort !== false,
    brokerIds: () => opts.metadata.brokers(opts.interBrokerListenerName).map((b) => b.nodeId),
    coordinatorViews: (id, producerIds) => transport.coordinatorViews(id, producerIds),
  });
  const hangingTimer = setInterval(() => {
    hanging.check().catch((err: unknown) => opts.logger.warn({ err }, 'hanging transaction check failed'));
  }, opts.settings.hangingCheckIntervalMs ?? HANGING_CHECK_INTERVAL_MS_DEFAULT);
  hangingTimer.unref();
  return {
    service,
    hanging,
    close: () => {
      clearInterval(hangingTimer);
      opts.hosted.txnVerification.setVerifier(null);
      service.stop();
      transport.close();
    },
  };
}

/**
 * Markers for partitions led by this broker are written straight through
 * its ReplicaManager (what the WriteTxnMarkers handler does with a request),
 * not sent to itself over loopback: the next transaction of the producer
 * waits for its previous markers (AddPartitionsToTxn), so that round trip
 * was on every transaction's path. Other leaders get WriteTxnMarkers.
 */
function localFirst(opts: BrokerTransactionsOptions, remote: MarkerTransport): MarkerTransport {
  return {
    async writeTxnMarkers(leaderId: number, marker: WireMarker): Promise<Map<string, number>> {
      if (leaderId !== opts.nodeId) return remote.writeTxnMarkers(leaderId, marker);
      const results = await opts.hosted.txnMarkers.write({
        producerId: marker.producerId,
        producerEpoch: marker.producerEpoch,
        coordinatorEpoch: marker.coordinatorEpoch,
        commit: marker.committed,
        partitions: marker.partitions,
      });
      const codes = new Map<string, number>();
      marker.partitions.forEach((tp, i) => codes.set(tpKey(tp), (results[i] as (typeof results)[number]).errorCode));
      return codes;
    },
  };
}

function verifierFor(opts: BrokerTransactionsOptions, service: TransactionService, channel: TxnBrokerChannel): TransactionVerifier {
  return {
    async verify(req): Promise<TxnVerificationOutcome> {
      const ref = { transactionalId: req.transactionalId, producerId: req.producerId, producerEpoch: req.producerEpoch };
      const tp = { topic: req.topic, partition: req.partition };
      const n = service.coordinator.partitionFor(req.transactionalId);
      const leader = opts.metadata.topic(TRANSACTION_STATE_TOPIC)?.partitions.find((p) => p.partition === n)?.leader ?? -1;
      let code: number;
      if (leader === opts.nodeId) code = service.coordinator.verifyPartitions(ref, [tp]).partitions.values().next().value ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      else if (leader < 0) code = ErrorCode.COORDINATOR_NOT_AVAILABLE;
      else code = await channel.verify(leader, ref, req.topic, req.partition);
      if (code === ErrorCode.NONE) return { kind: 'verified' };
      // An old epoch is INVALID_PRODUCER_EPOCH on Produce (every Produce version knows it; PRODUCER_FENCED is for the coordinator APIs).
      const errorCode = code === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : code;
      return { kind: 'refused', errorCode, message: `the transaction coordinator answered ${code}` };
    },
  };
}

/**
 * The transaction traffic between brokers, over one connection per broker
 * to the endpoint it registered for `inter.broker.listener.name`:
 * - coordinator to partition leaders: WriteTxnMarkers v1 (the coordinator's
 *   own partitions too, as Kafka does: one path for every marker); the
 *   marker sender (src/coordinator/transaction/marker-sender.ts) owns the
 *   retries;
 * - partition leader to coordinator: AddPartitionsToTxn v4 with verifyOnly
 *   (KIP-890 part 1), for the leader's TransactionVerifier;
 * - partition leader to every coordinator: ListTransactions and
 *   DescribeTransactions for the producers of transactions that may be
 *   hanging (hanging-transactions.ts).
 * A connection that fails is dropped, so the next attempt reconnects to the
 * endpoint the metadata has then.
 */
import type { ConnectionSecurity } from '../net/connection-options.js';
import { BrokerConnections, type BrokerEndpointLookup } from './broker-connections.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol/messages/27-write-txn-markers.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../protocol/messages/24-add-partitions-to-txn.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../protocol/messages/66-list-transactions.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../protocol/messages/65-describe-transactions.js';
import { ErrorCode } from '../protocol/errors.js';
import type { CoordinatorTxnView } from '../coordinator/transaction/hanging.js';
import { tpKey } from '../coordinator/transaction/state.js';
import type { MarkerTransport, WireMarker } from '../coordinator/transaction/marker-sender.js';

const WRITE_TXN_MARKERS_VERSION = 1;
const VERIFY_VERSION = 4;
const CONNECT_TIMEOUT_MS = 2_000;
/** A marker write waits for acks=all on the leader (Kafka's request.timeout.ms is 30 s). */
const REQUEST_TIMEOUT_MS = 30_000;
const RESPONSE_BYTES_MAX = 16 * 1024 * 1024;

export class TxnBrokerChannel implements MarkerTransport {
  private readonly brokers: BrokerConnections;

  constructor(endpointOf: BrokerEndpointLookup, clientId: string, security?: ConnectionSecurity) {
    this.brokers = new BrokerConnections(endpointOf, { clientId, purpose: 'transaction', connectTimeoutMs: CONNECT_TIMEOUT_MS, maxResponseBytes: RESPONSE_BYTES_MAX, security });
  }

  writeTxnMarkers(leaderId: number, marker: WireMarker): Promise<Map<string, number>> {
    const byTopic = new Map<string, number[]>();
    for (const tp of marker.partitions) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
    const request = {
      markers: [{
        producerId: marker.producerId,
        producerEpoch: marker.producerEpoch,
        transactionResult: marker.committed,
        topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
        coordinatorEpoch: marker.coordinatorEpoch,
      }],
    };
    return this.brokers.use(leaderId, async (connection) => {
      const response = await connection.send({ request: WriteTxnMarkersRequest, response: WriteTxnMarkersResponse }, WRITE_TXN_MARKERS_VERSION, request, { timeoutMs: REQUEST_TIMEOUT_MS });
      const codes = new Map<string, number>();
      for (const m of response.markers) {
        if (m.producerId !== marker.producerId) continue;
        for (const t of m.topics) for (const p of t.partitions) codes.set(tpKey({ topic: t.name, partition: p.partitionIndex }), p.errorCode);
      }
      return codes;
    });
  }

  /** AddPartitionsToTxn v4 verifyOnly for one partition to coordinator `coordinatorId`: the partition's error code. */
  verify(coordinatorId: number, ref: { transactionalId: string; producerId: bigint; producerEpoch: number }, topic: string, partition: number): Promise<number> {
    const request = { transactions: [{ ...ref, verifyOnly: true, topics: [{ name: topic, partitions: [partition] }] }] };
    return this.brokers.use(coordinatorId, async (connection) => {
      const response = await connection.send({ request: AddPartitionsToTxnRequest, response: AddPartitionsToTxnResponse }, VERIFY_VERSION, request, { timeoutMs: REQUEST_TIMEOUT_MS });
      if (response.errorCode !== ErrorCode.NONE) return response.errorCode;
      const result = response.resultsByTransaction.find((t) => t.transactionalId === ref.transactionalId)?.topicResults.find((t) => t.name === topic)?.results.find((r) => r.partitionIndex === partition);
      return result?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    });
  }

  /**
   * What coordinator `brokerId` knows of these producer ids: ListTransactions
   * filtered by them, then DescribeTransactions of the ids it lists. Throws
   * when the broker cannot answer (the caller then concludes nothing).
   */
  coordinatorViews(brokerId: number, producerIds: readonly bigint[]): Promise<CoordinatorTxnView[]> {
    return this.brokers.use(brokerId, async (connection) => {
      const listed = await connection.send({ request: ListTransactionsRequest, response: ListTransactionsResponse }, 0, { stateFilters: [], producerIdFilters: [...producerIds], durationFilter: -1n }, { timeoutMs: REQUEST_TIMEOUT_MS });
      if (listed.errorCode !== ErrorCode.NONE) throw new Error(`ListTransactions on broker ${brokerId}: error ${listed.errorCode}`);
      if (listed.transactionStates.length === 0) return [];
      const ids = listed.transactionStates.map((t) => t.transactionalId);
      const described = await connection.send({ request: DescribeTransactionsRequest, response: DescribeTransactionsResponse }, 0, { transactionalIds: ids }, { timeoutMs: REQUEST_TIMEOUT_MS });
      return described.transactionStates.map((t) => {
        // Moved or loading meanwhile: nothing can be concluded this round.
        if (t.errorCode !== ErrorCode.NONE) throw new Error(`DescribeTransactions ${t.transactionalId} on broker ${brokerId}: error ${t.errorCode}`);
        return {
          transactionalId: t.transactionalId,
          state: t.transactionState,
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          partitions: t.topics.flatMap((x) => x.partitions.map((partition) => ({ topic: x.topic, partition }))),
        };
      });
    });
  }

  close(): void {
    this.brokers.close();
  }
}

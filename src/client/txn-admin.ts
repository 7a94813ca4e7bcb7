/**
 * KIP-664's admin operations over the Kafka protocol, for `tributary txn`
 * and `tributary producer` (and any Kafka-compatible cluster):
 * - listTransactions: ListTransactions (66) to every broker, merged;
 * - describeTransactions: DescribeTransactions (65) to each id's
 *   transaction coordinator (FindCoordinator key type 1);
 * - describeProducers: DescribeProducers (61) to each partition's leader;
 * - abortTransaction: WriteTxnMarkers (27) with an ABORT marker to the
 *   partition's leader, for a hanging transaction no coordinator will end
 *   (Kafka's Admin.abortTransaction).
 */
import { ErrorCode } from '../protocol/errors.js';
import { DescribeProducersRequest, DescribeProducersResponse } from '../protocol/messages/61-describe-producers.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../protocol/messages/65-describe-transactions.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../protocol/messages/66-list-transactions.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol/messages/27-write-txn-markers.js';
import { KafkaProtocolError } from '../net/errors.js';
import { api, request } from './apis.js';
import type { Cluster } from './cluster.js';
import { findCoordinatorOnce } from './group-apis.js';

const AdminTxnApis = {
  DescribeProducers: api(DescribeProducersRequest, DescribeProducersResponse, 0, 0),
  DescribeTransactions: api(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, 0),
  ListTransactions: api(ListTransactionsRequest, ListTransactionsResponse, 0, 1),
  WriteTxnMarkers: api(WriteTxnMarkersRequest, WriteTxnMarkersResponse, 1, 1),
} as const;

export interface ListedTransaction {
  transactionalId: string;
  producerId: bigint;
  state: string;
  coordinatorId: number;
}

export async function listTransactions(cluster: Cluster, filters: { states?: string[]; producerIds?: bigint[]; durationMs?: number } = {}): Promise<ListedTransaction[]> {
  await cluster.refreshMetadata([]);
  const out: ListedTransaction[] = [];
  for (const nodeId of [...cluster.metadata.brokers.keys()].sort((a, b) => a - b)) {
    const { response } = await request(await cluster.connectionTo(nodeId), AdminTxnApis.ListTransactions, () => ({
      stateFilters: filters.states ?? [], producerIdFilters: filters.producerIds ?? [], durationFilter: BigInt(filters.durationMs ?? -1),
    }));
    if (response.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(response.errorCode, { api: 'ListTransactions' });
    for (const t of response.transactionStates) out.push({ transactionalId: t.transactionalId, producerId: t.producerId, state: t.transactionState, coordinatorId: nodeId });
  }
  return out.sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
}

export interface DescribedTransaction {
  transactionalId: string;
  coordinatorId: number;
  state: string;
  producerId: bigint;
  producerEpoch: number;
  transactionTimeoutMs: number;
  transactionStartTimeMs: bigint;
  partitions: { topic: string; partition: number }[];
}

export async function describeTransaction(cluster: Cluster, transactionalId: string): Promise<DescribedTransaction> {
  for (let attempt = 0; ; attempt++) {
    const node = await findCoordinatorOnce(await cluster.anyConnection(), transactionalId, 1);
    if (!cluster.metadata.brokers.has(node.nodeId)) await cluster.refreshMetadata([]);
    const { response } = await request(await cluster.connectionTo(node.nodeId), AdminTxnApis.DescribeTransactions, () => ({ transactionalIds: [transactionalId] }));
    const t = response.transactionStates[0];
    const code = t?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    if (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
      if (attempt < cluster.retries) {
        await cluster.backoff(attempt);
        continue;
      }
    }
    if (t === undefined || code !== ErrorCode.NONE) throw new KafkaProtocolError(code, { api: 'DescribeTransactions', serverMessage: transactionalId });
    return {
      transactionalId,
      coordinatorId: node.nodeId,
      state: t.transactionState,
      producerId: t.producerId,
      producerEpoch: t.producerEpoch,
      transactionTimeoutMs: t.transactionTimeoutMs,
      transactionStartTimeMs: t.transactionStartTimeMs,
      partitions: t.topics.flatMap((x) => x.partitions.map((partition) => ({ topic: x.topic, partition }))),
    };
  }
}

export interface ActiveProducer {
  partition: number;
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: bigint;
  coordinatorEpoch: number;
  currentTxnStartOffset: bigint;
}

/** The active producers of every partition of `topic` (or of `partitions`), from each leader. */
export async function describeProducers(cluster: Cluster, topic: string, partitions?: readonly number[]): Promise<ActiveProducer[]> {
  const t = await cluster.topic(topic);
  const byLeader = new Map<number, number[]>();
  for (const p of t.partitions) {
    if (partitions !== undefined && !partitions.includes(p.partition)) continue;
    byLeader.set(p.leaderId, [...(byLeader.get(p.leaderId) ?? []), p.partition]);
  }
  const out: ActiveProducer[] = [];
  for (const [leader, indexes] of byLeader) {
    const { response } = await request(await cluster.connectionTo(leader), AdminTxnApis.DescribeProducers, () => ({ topics: [{ name: topic, partitionIndexes: indexes }] }));
    for (const rt of response.topics) {
      for (const rp of rt.partitions) {
        if (rp.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(rp.errorCode, { api: 'DescribeProducers', serverMessage: rp.errorMessage });
        for (const a of rp.activeProducers) out.push({ partition: rp.partitionIndex, ...a });
      }
    }
  }
  return out.sort((a, b) => a.partition - b.partition || (a.producerId < b.producerId ? -1 : 1));
}

export interface AbortSpec {
  topic: string;
  partition: number;
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
}

/** Writes an ABORT marker for the producer's open transaction on one partition (a hanging transaction). */
export async function abortTransaction(cluster: Cluster, spec: AbortSpec): Promise<void> {
  const t = await cluster.topic(spec.topic);
  const leader = t.partitions.find((p) => p.partition === spec.partition)?.leaderId ?? -1;
  if (leader < 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, { api: 'WriteTxnMarkers', serverMessage: `${spec.topic}-${spec.partition}` });
  const { response } = await request(await cluster.connectionTo(leader), AdminTxnApis.WriteTxnMarkers, () => ({
    markers: [{
      producerId: spec.producerId, producerEpoch: spec.producerEpoch, transactionResult: false,
      topics: [{ name: spec.topic, partitionIndexes: [spec.partition] }], coordinatorEpoch: spec.coordinatorEpoch,
    }],
  }));
  const code = response.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
  if (code !== ErrorCode.NONE) throw new KafkaProtocolError(code, { api: 'WriteTxnMarkers' });
}

/**
 * `tributary txn list --hanging`: Kafka's `kafka-transactions.sh
 * find-hanging` over the Kafka protocol. DescribeProducers on every
 * partition (or those of --topic) gives the open transactions; those whose
 * producer wrote last more than the maximum transaction timeout ago are
 * looked up at every coordinator (ListTransactions by producer id, then
 * DescribeTransactions), and the rule of
 * src/coordinator/transaction/hanging.ts says which are hanging. Partition
 * leaders run the same rule on their own (and abort what they find with
 * transaction.hanging.abort.enable); this is the operator's view.
 */
import type { Cluster } from '../../client/cluster.js';
import { describeProducers, describeTransaction, listTransactions } from '../../client/txn-admin.js';
import { findHanging, type CoordinatorTxnView, type OpenPartitionTxn } from '../../coordinator/transaction/hanging.js';

export interface HangingCandidate extends OpenPartitionTxn {
  /** Time since the producer's last write to the partition (its batches' timestamp). */
  readonly openForMs: number;
  readonly lastTimestamp: bigint;
}

/** The hanging transactions of `topics` (default: every topic). */
export async function findHangingTransactions(cluster: Cluster, options: { maxTimeoutMs: number; topics?: readonly string[]; nowMs?: number }): Promise<HangingCandidate[]> {
  const now = options.nowMs ?? Date.now();
  // Every topic (null), internal ones included: a hanging transaction on __consumer_offsets holds offsets back.
  const topics = options.topics ?? [...(await cluster.refreshMetadata(null)).topics.keys()].sort();
  const open: HangingCandidate[] = [];
  for (const topic of topics) {
    for (const p of await describeProducers(cluster, topic)) {
      if (p.currentTxnStartOffset < 0n) continue;
      open.push({
        topic, partition: p.partition, producerId: p.producerId, producerEpoch: p.producerEpoch, coordinatorEpoch: p.coordinatorEpoch,
        firstOffset: p.currentTxnStartOffset, lastTimestamp: p.lastTimestamp, openForMs: now - Number(p.lastTimestamp),
      });
    }
  }
  const candidates = open.filter((t) => t.openForMs >= options.maxTimeoutMs);
  if (candidates.length === 0) return [];
  const listed = await listTransactions(cluster, { producerIds: [...new Set(candidates.map((t) => t.producerId))] });
  const views: CoordinatorTxnView[] = [];
  for (const l of listed) {
    const d = await describeTransaction(cluster, l.transactionalId);
    views.push({ transactionalId: d.transactionalId, state: d.state, producerId: d.producerId, producerEpoch: d.producerEpoch, partitions: d.partitions });
  }
  return findHanging(candidates, (t) => t.openForMs, options.maxTimeoutMs, views);
}

/**
 * Hanging transactions: a transaction open on a partition (its producer has
 * a first offset there, holding the LSO back) that no transaction
 * coordinator will ever end, e.g. a late write that opened a transaction
 * after its coordinator had already completed it (the case KIP-890 part 1
 * closes for new writes), or data left by a coordinator's lost state.
 * Kafka's `kafka-transactions.sh find-hanging` finds them by hand; the
 * broker here looks for them on its own partitions (src/broker/
 * hanging-transactions.ts), and `tributary txn list --hanging` asks the
 * same question from outside.
 *
 * The rule (Kafka's FindHangingTransactionsCommand): an open transaction is
 * hanging when it has been open longer than `transaction.max.timeout.ms`
 * (no transaction may legally last that long: its coordinator aborts it
 * after its timeout) and no coordinator knows it: no coordinator lists its
 * producer id in Ongoing or a Prepare* state, or the one that does is in
 * Ongoing without this partition.
 */

/** A transaction open on one partition, as its leader's producer state shows it. */
export interface OpenPartitionTxn {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** Coordinator epoch of the producer's last marker on this partition (-1: none). */
  readonly coordinatorEpoch: number;
  readonly firstOffset: bigint;
}

/** A coordinator's view of one transactional id (DescribeTransactions). */
export interface CoordinatorTxnView {
  readonly transactionalId: string;
  readonly state: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
}

const ENDING = new Set(['PrepareCommit', 'PrepareAbort', 'PrepareEpochFence']);

/** Whether some coordinator will still end this open transaction (views: every coordinator's ids with this producer id). */
export function coordinatorKnows(open: OpenPartitionTxn, views: readonly CoordinatorTxnView[]): boolean {
  return views.some((v) => {
    if (v.producerId !== open.producerId) return false;
    // Markers still to come, with an epoch at least the open one's: they close it.
    if (ENDING.has(v.state)) return true;
    return v.state === 'Ongoing' && v.partitions.some((p) => p.topic === open.topic && p.partition === open.partition);
  });
}

/** The open transactions that are hanging: open longer than `maxTimeoutMs` (openForMs) and unknown to every coordinator. */
export function findHanging<T extends OpenPartitionTxn>(open: readonly T[], openForMs: (t: T) => number, maxTimeoutMs: number, views: readonly CoordinatorTxnView[]): T[] {
  return open.filter((t) => openForMs(t) >= maxTimeoutMs && !coordinatorKnows(t, views));
}

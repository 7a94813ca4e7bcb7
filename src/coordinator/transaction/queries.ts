/**
 * DescribeTransactions (65) and ListTransactions (66) over the loaded shards
 * (KIP-664). Read-only; a transition being written shows the state before it.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { Shard } from './coordinator.js';
import { tpOf } from './state.js';
import type { DescribedTxn, ListedTxn, TxnCoordinatorDeps } from './types.js';

export class TxnQueries {
  constructor(
    private readonly deps: TxnCoordinatorDeps,
    private readonly shards: () => Iterable<Shard>,
  ) {}

  describe(transactionalId: string, shard: Shard | number): DescribedTxn {
    const none = { transactionalId, state: '', producerId: -1n, producerEpoch: -1, transactionTimeoutMs: -1, transactionStartTimeMs: -1, partitions: [] };
    if (typeof shard === 'number') return { ...none, errorCode: shard };
    const md = shard.txns.get(transactionalId);
    if (md === undefined) return { ...none, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
    return {
      transactionalId,
      errorCode: ErrorCode.NONE,
      state: md.state,
      producerId: md.producerId,
      producerEpoch: md.producerEpoch,
      transactionTimeoutMs: md.txnTimeoutMs,
      transactionStartTimeMs: md.txnStartTimestampMs,
      partitions: [...md.partitions].map(tpOf),
    };
  }

  /**
   * Ids matching the filters (empty = any): states by Kafka's names, producer
   * ids, and (KIP-994) transactions running longer than `durationFilterMs`
   * (-1 = any).
   */
  list(stateFilters: readonly string[], producerIdFilters: readonly bigint[], durationFilterMs = -1): ListedTxn[] {
    const now = this.deps.clock.nowMs();
    const out: ListedTxn[] = [];
    for (const shard of this.shards()) {
      for (const md of shard.txns.values()) {
        if (stateFilters.length > 0 && !stateFilters.includes(md.state)) continue;
        if (producerIdFilters.length > 0 && !producerIdFilters.includes(md.producerId)) continue;
        const durationMs = md.state === 'Ongoing' && md.txnStartTimestampMs >= 0 ? now - md.txnStartTimestampMs : 0;
        if (durationFilterMs >= 0 && (md.state !== 'Ongoing' || durationMs < durationFilterMs)) continue;
        out.push({ transactionalId: md.transactionalId, producerId: md.producerId, state: md.state, durationMs });
      }
    }
    return out.sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
  }

  /** Transactional ids of the loaded shards by state (for the metrics). */
  countByState(): Map<string, number> {
    const out = new Map<string, number>();
    for (const shard of this.shards()) for (const md of shard.txns.values()) out.set(md.state, (out.get(md.state) ?? 0) + 1);
    return out;
  }
}

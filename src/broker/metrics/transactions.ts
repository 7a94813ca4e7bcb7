/**
 * Transaction metrics (issue 13 part 9), read at scrape time: the
 * coordinator's open transactions by state and its commits and aborts by
 * cause, and the hanging transactions found on the partitions led here
 * (hanging-transactions.ts). The per-partition LSO lag is with the other
 * partition gauges (collectors.ts); the leaders' marker write latency is
 * `tributary_request_latency_seconds{api="WriteTxnMarkers"}`.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { TxnOutcomes } from '../../coordinator/transaction/completion.js';
import type { HangingStats } from '../hanging-transactions.js';

export interface TransactionMetricsSource {
  /** Transactional ids of the coordinator's loaded partitions, by state. */
  states(): ReadonlyMap<string, number>;
  outcomes(): TxnOutcomes;
  hanging(): HangingStats;
}

/** States in which a transaction is not finished (Kafka's ongoing, preparing). */
const OPEN_STATES = ['Ongoing', 'PrepareCommit', 'PrepareAbort'] as const;

export function registerTransactionMetrics(registers: Registry[], prefix: string, s: TransactionMetricsSource): void {
  new Gauge({
    name: `${prefix}transactions_ongoing`,
    help: 'Transactions this broker coordinates that are not finished, by state (Ongoing, PrepareCommit, PrepareAbort).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const states = s.states();
      for (const state of OPEN_STATES) this.set({ state }, states.get(state) ?? 0);
    },
  });
  new Counter({
    name: `${prefix}transactions_committed_total`,
    help: 'Transactions this broker coordinated to a commit (PrepareCommit written) since start.',
    registers,
    collect() {
      this.reset();
      this.inc(s.outcomes().commits);
    },
  });
  new Counter({
    name: `${prefix}transactions_aborted_total`,
    help: 'Transactions aborted since start, by cause: client (EndTxn abort), timeout (open past its timeout), fenced (a new producer instance), hanging (aborted by this partition leader: no coordinator knew it).',
    labelNames: ['cause'] as const,
    registers,
    collect() {
      this.reset();
      const { aborts } = s.outcomes();
      this.inc({ cause: 'client' }, aborts.client);
      this.inc({ cause: 'timeout' }, aborts.timeout);
      this.inc({ cause: 'fenced' }, aborts.fenced);
      this.inc({ cause: 'hanging' }, s.hanging().aborted);
    },
  });
  new Gauge({
    name: `${prefix}transactions_hanging`,
    help: 'Hanging transactions on partitions led here, as the last check found them (open past transaction.max.timeout.ms, unknown to every coordinator).',
    registers,
    collect() {
      this.set(s.hanging().current.length);
    },
  });
}

/**
 * Hanging transactions on the partitions this broker leads (issue 13 part
 * 6, beyond Kafka): every `transaction.hanging.check.interval.ms` it lists
 * the transactions open in its partitions' producer state, notes when each
 * was first seen open, and for those open longer than
 * `transaction.max.timeout.ms` asks every broker's transaction coordinator
 * (ListTransactions + DescribeTransactions by producer id) whether it will
 * end them. One that no coordinator knows is hanging (the rule:
 * src/coordinator/transaction/hanging.ts): it is counted in the metrics,
 * logged, and with `transaction.hanging.abort.enable` aborted with an ABORT
 * marker, as `kafka-transactions.sh abort` would do by hand.
 *
 * Conservative on purpose: a broker that does not answer makes the round
 * conclude nothing, a broker restart starts the clocks again (first seen,
 * not first written), and the marker goes through the same checks as a
 * coordinator's (producer epoch, coordinator epoch).
 */
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { findHanging, type CoordinatorTxnView, type OpenPartitionTxn } from '../coordinator/transaction/hanging.js';
import { ErrorCode } from '../protocol/errors.js';

export interface HangingDetectorOptions {
  readonly hosted: ReplicaManager;
  readonly clock: Clock;
  readonly logger: Logger;
  /** transaction.max.timeout.ms: open longer than this, a transaction is a candidate. */
  readonly maxTimeoutMs: number;
  readonly abortEnabled: boolean;
  /** The live brokers (every one may coordinate some transactional ids). */
  brokerIds(): readonly number[];
  /** One coordinator's transactions for these producer ids (throws when it cannot answer). */
  coordinatorViews(brokerId: number, producerIds: readonly bigint[]): Promise<CoordinatorTxnView[]>;
}

export interface HangingTxn extends OpenPartitionTxn {
  readonly openForMs: number;
}

export interface HangingStats {
  /** Hanging transactions found by the last round that concluded. */
  readonly current: readonly HangingTxn[];
  /** ABORT markers written for hanging transactions since start. */
  readonly aborted: number;
  /** Rounds that could not conclude (a broker did not answer). */
  readonly inconclusive: number;
}

const keyOf = (t: OpenPartitionTxn): string => `${t.topic}\u0000${t.partition}\u0000${t.producerId}\u0000${t.firstOffset}`;

export class HangingTransactionDetector {
  private readonly firstSeenMs = new Map<string, number>();
  private current: HangingTxn[] = [];
  private aborted = 0;
  private inconclusive = 0;
  private running = false;

  constructor(private readonly o: HangingDetectorOptions) {}

  get stats(): HangingStats {
    return { current: this.current, aborted: this.aborted, inconclusive: this.inconclusive };
  }

  /** Transactions open now in the partitions led here. */
  private openTransactions(): OpenPartitionTxn[] {
    const out: OpenPartitionTxn[] = [];
    for (const p of this.o.hosted.all()) {
      // A log deferred since a clean restart (not used yet) is not loaded for this: its open
      // transactions, if any, are looked at once something uses it (src/storage/README.md, "Recovery").
      if (!p.isLeader || !p.log.isLoaded) continue;
      for (const e of p.log.producerState.entries()) {
        if (e.currentTxnFirstOffset < 0n) continue;
        out.push({ topic: p.topic, partition: p.partition, producerId: e.producerId, producerEpoch: e.epoch, coordinatorEpoch: e.coordinatorEpoch, firstOffset: e.currentTxnFirstOffset });
      }
    }
    return out;
  }

  /** One round; the hanging transactions it found (empty when it could not conclude). */
  async check(): Promise<HangingTxn[]> {
    if (this.running) return [];
    this.running = true;
    try {
      return await this.round();
    } finally {
      this.running = false;
    }
  }

  private async round(): Promise<HangingTxn[]> {
    const now = this.o.clock.nowMs();
    const open = this.openTransactions();
    const seen = new Set(open.map(keyOf));
    for (const k of this.firstSeenMs.keys()) if (!seen.has(k)) this.firstSeenMs.delete(k);
    for (const k of seen) if (!this.firstSeenMs.has(k)) this.firstSeenMs.set(k, now);
    const openFor = (t: OpenPartitionTxn): number => now - (this.firstSeenMs.get(keyOf(t)) ?? now);
    const candidates = open.filter((t) => openFor(t) >= this.o.maxTimeoutMs);
    if (candidates.length === 0) {
      this.current = [];
      return [];
    }
    const views = await this.views([...new Set(candidates.map((t) => t.producerId))]);
    if (views === null) return [];
    const hanging = findHanging(candidates, openFor, this.o.maxTimeoutMs, views).map((t) => ({ ...t, openForMs: openFor(t) }));
    this.current = hanging;
    for (const t of hanging) {
      this.o.logger.warn({ topic: t.topic, partition: t.partition, producerId: String(t.producerId), producerEpoch: t.producerEpoch, firstOffset: String(t.firstOffset), openForMs: t.openForMs },
        this.o.abortEnabled ? 'hanging transaction: no coordinator knows it; aborting it' : 'hanging transaction: no coordinator knows it (transaction.hanging.abort.enable=false: left open)');
      if (this.o.abortEnabled) await this.abort(t);
    }
    return hanging;
  }

  /** Every coordinator's view of these producers; null when some live broker did not answer. */
  private async views(producerIds: bigint[]): Promise<CoordinatorTxnView[] | null> {
    try {
      const all = await Promise.all(this.o.brokerIds().map((id) => this.o.coordinatorViews(id, producerIds)));
      return all.flat();
    } catch (err) {
      this.inconclusive++;
      this.o.logger.debug({ err }, 'hanging transaction check: a coordinator did not answer; nothing concluded this round');
      return null;
    }
  }

  private async abort(t: HangingTxn): Promise<void> {
    const [result] = await this.o.hosted.txnMarkers.write({
      producerId: t.producerId,
      producerEpoch: t.producerEpoch,
      // At least the epoch of the producer's last marker here, so the leader's coordinator-epoch check accepts it.
      coordinatorEpoch: Math.max(t.coordinatorEpoch, 0),
      commit: false,
      partitions: [{ topic: t.topic, partition: t.partition }],
    });
    if (result?.errorCode === ErrorCode.NONE) {
      this.aborted++;
      this.firstSeenMs.delete(keyOf(t));
      this.current = this.current.filter((x) => keyOf(x) !== keyOf(t));
      this.o.logger.warn({ topic: t.topic, partition: t.partition, producerId: String(t.producerId) }, 'hanging transaction aborted');
    } else {
      this.o.logger.warn({ topic: t.topic, partition: t.partition, producerId: String(t.producerId), errorCode: result?.errorCode }, 'hanging transaction: the ABORT marker was refused; trying again next round');
    }
  }
}

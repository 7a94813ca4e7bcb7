/**
 * One transactional id's state (Kafka's TransactionMetadata): the producer id
 * and epoch, the transaction's partitions, its state, and the one transition
 * that may be in flight (written to __transaction_state, not yet durable).
 *
 * Kafka's transition rules (TransactionState.validPreviousStates):
 *
 *   Empty             <- Empty, CompleteCommit, CompleteAbort
 *   Ongoing           <- Ongoing, Empty, CompleteCommit, CompleteAbort
 *   PrepareCommit     <- Ongoing
 *   PrepareAbort      <- Ongoing, PrepareEpochFence,
 *                        and (transaction version 2, KIP-890: abort of an
 *                        empty transaction with an epoch bump) Empty,
 *                        CompleteCommit, CompleteAbort
 *   CompleteCommit    <- PrepareCommit
 *   CompleteAbort     <- PrepareAbort
 *   PrepareEpochFence <- Ongoing        (memory only: InitProducerId fencing
 *                                        a producer with a transaction open)
 *   Dead              <- Empty, CompleteCommit, CompleteAbort (id expired)
 *
 * A transition is prepared (pendingState set: concurrent requests answer
 * CONCURRENT_TRANSACTIONS), written, then completed or rolled back.
 */
import { invariant } from '../../util/assert.js';
import type { TxnLogEntry } from './records.js';

export type TxnState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort' | 'PrepareEpochFence' | 'Dead';

const VALID_PREVIOUS: Readonly<Record<TxnState, readonly TxnState[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  PrepareEpochFence: ['Ongoing'],
  Dead: ['Empty', 'CompleteCommit', 'CompleteAbort'],
};

export function isValidTransition(from: TxnState, to: TxnState, clientTransactionVersion: number): boolean {
  if (to === 'PrepareAbort' && (from === 'Empty' || from === 'CompleteCommit' || from === 'CompleteAbort')) return clientTransactionVersion >= 2;
  return VALID_PREVIOUS[to].includes(from);
}

/** Kafka's "epoch exhausted" point (Short.MaxValue - 1): the producer then moves to a new id. */
export const PRODUCER_EPOCH_MAX = 0x7fff - 1;

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export function tpKey(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`;
}

export function tpOf(key: string): TopicPartition {
  const at = key.lastIndexOf('\u0000');
  return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
}

export class TxnMetadata {
  producerId: bigint;
  previousProducerId: bigint;
  nextProducerId: bigint;
  producerEpoch: number;
  /** The epoch before the last bump (-1 when none): retries of the request that bumped it are recognised (KIP-890). */
  lastProducerEpoch: number;
  nextProducerEpoch: number;
  txnTimeoutMs: number;
  state: TxnState;
  readonly partitions = new Set<string>();
  txnStartTimestampMs: number;
  txnLastUpdateTimestampMs: number;
  clientTransactionVersion: number;
  /** The transition being written, if any. */
  pending: TxnLogEntry | null = null;

  constructor(readonly transactionalId: string, e: TxnLogEntry) {
    this.producerId = e.producerId;
    this.previousProducerId = e.previousProducerId;
    this.nextProducerId = e.nextProducerId;
    this.producerEpoch = e.producerEpoch;
    this.lastProducerEpoch = -1;
    this.nextProducerEpoch = e.nextProducerEpoch;
    this.txnTimeoutMs = e.txnTimeoutMs;
    this.state = e.state;
    for (const tp of e.partitions) this.partitions.add(tpKey(tp));
    this.txnStartTimestampMs = e.txnStartTimestampMs;
    this.txnLastUpdateTimestampMs = e.txnLastUpdateTimestampMs;
    this.clientTransactionVersion = e.clientTransactionVersion;
  }

  /** The current state as a log entry (the base of the next transition). */
  entry(): TxnLogEntry {
    return {
      producerId: this.producerId,
      previousProducerId: this.previousProducerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      nextProducerEpoch: this.nextProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      state: this.state,
      partitions: [...this.partitions].map(tpOf),
      txnLastUpdateTimestampMs: this.txnLastUpdateTimestampMs,
      txnStartTimestampMs: this.txnStartTimestampMs,
      clientTransactionVersion: this.clientTransactionVersion,
    };
  }

  get inFlight(): boolean {
    return this.pending !== null;
  }

  /** Marks `target` as the transition being written. */
  prepare(target: TxnLogEntry): void {
    invariant(this.pending === null, `${this.transactionalId}: one transition at a time (pending ${this.pending?.state})`);
    invariant(isValidTransition(this.state, target.state, target.clientTransactionVersion), `${this.transactionalId}: ${this.state} -> ${target.state} is not a valid transition`);
    this.pending = target;
  }

  /** The prepared transition is durable: it becomes the state. */
  complete(target: TxnLogEntry): void {
    invariant(this.pending === target, `${this.transactionalId}: completing the prepared transition`);
    if (target.producerId !== this.producerId || target.producerEpoch !== this.producerEpoch) this.lastProducerEpoch = target.producerId === this.producerId ? this.producerEpoch : -1;
    this.producerId = target.producerId;
    this.previousProducerId = target.previousProducerId;
    this.nextProducerId = target.nextProducerId;
    this.producerEpoch = target.producerEpoch;
    this.nextProducerEpoch = target.nextProducerEpoch;
    this.txnTimeoutMs = target.txnTimeoutMs;
    this.state = target.state;
    this.partitions.clear();
    for (const tp of target.partitions) this.partitions.add(tpKey(tp));
    this.txnStartTimestampMs = target.txnStartTimestampMs;
    this.txnLastUpdateTimestampMs = target.txnLastUpdateTimestampMs;
    this.clientTransactionVersion = target.clientTransactionVersion;
    this.pending = null;
  }

  /** The write failed: nothing changes. */
  rollback(): void {
    this.pending = null;
  }
}

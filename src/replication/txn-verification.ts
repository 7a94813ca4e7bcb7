/**
 * KIP-890 part 1 on the partition leader: before the first transactional
 * append of a producer's transaction to a partition, the leader asks the
 * transaction coordinator whether the partition was added to that
 * transaction (AddPartitionsToTxn v4+ with verifyOnly). A late or zombie
 * batch of a transaction that already ended (the "hanging transaction" of
 * KIP-890) is then refused with INVALID_TXN_STATE instead of opening a
 * transaction no coordinator will ever close.
 *
 * The question goes through an injected `TransactionVerifier` (the
 * transaction coordinator's side provides it); with none set, nothing is
 * verified (Kafka's transaction.partition.verification.enable=false).
 * A verification is valid only if no marker for that producer was written to
 * the partition while it was in flight (Kafka's VerificationGuard): a marker
 * invalidates the producer's guards in flight. Only guards in flight are
 * kept, so memory is bounded by the appends waiting.
 */
import { ErrorCode } from '../protocol/errors.js';
import { isTransactionalBatch, type BatchHeader } from '../protocol/record-batch/header.js';
import { appendFailure, type AppendFailure } from './append-validator.js';
import type { Partition } from './partition.js';

/** What the leader asks the coordinator (one partition of one producer's transaction). */
export interface TxnVerificationRequest {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly topic: string;
  readonly partition: number;
}

/**
 * The coordinator's answer: verified, or the error it gave for the
 * partition (INVALID_TXN_STATE when the partition is not in the
 * transaction, INVALID_PRODUCER_EPOCH / PRODUCER_FENCED, coordinator errors).
 */
export type TxnVerificationOutcome = { readonly kind: 'verified' } | { readonly kind: 'refused'; readonly errorCode: number; readonly message: string };

/** The injection point the transaction coordinator implements (AddPartitionsToTxn v4+, verifyOnly). */
export interface TransactionVerifier {
  verify(request: TxnVerificationRequest): Promise<TxnVerificationOutcome>;
}

/** A verification that succeeded; a marker for its producer written meanwhile makes it invalid. */
export interface VerificationGuard {
  readonly ok: true;
  readonly producerId: bigint;
  valid: boolean;
}

/**
 * Coordinator errors a Produce v0-7 client cannot handle are answered
 * NOT_ENOUGH_REPLICAS, retriable for every client (Kafka does the same for
 * produce versions before TRANSACTION_ABORTABLE existed).
 */
const RETRIABLE_AS_NOT_ENOUGH_REPLICAS = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.CONCURRENT_TRANSACTIONS,
  ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NETWORK_EXCEPTION,
]);

export class TxnVerificationGate {
  private verifier: TransactionVerifier | null = null;
  /** Per partition, per producer: the guards of verifications not yet consumed by an append. */
  private readonly inFlight = new WeakMap<Partition, Map<bigint, Set<VerificationGuard>>>();

  /** Sets (or, with null, removes) the verifier; the transaction coordinator calls this at start-up. */
  setVerifier(verifier: TransactionVerifier | null): void {
    this.verifier = verifier;
  }

  /**
   * The synchronous check of a client batch: null when it may be appended
   * at once, 'verify' when the coordinator must be asked first, or a
   * failure. A transactional batch needs the request's transactionalId
   * (Kafka answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED without one), and is
   * verified when its producer has no open transaction here yet.
   */
  precheck(p: Partition, header: BatchHeader, transactionalId: string | null): AppendFailure | 'verify' | null {
    if (header.producerId < 0n || !isTransactionalBatch(header.attributes)) return null;
    if (transactionalId === null) return appendFailure(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 'a transactional batch needs the request\'s transactionalId');
    if (this.verifier === null) return null;
    const entry = p.log.producerState.get(header.producerId);
    const open = entry !== undefined && entry.currentTxnFirstOffset >= 0n && entry.epoch === header.producerEpoch;
    return open ? null : 'verify';
  }

  /** Asks the coordinator; a refusal comes back as the append failure to answer. */
  async verify(p: Partition, header: BatchHeader, transactionalId: string): Promise<VerificationGuard | AppendFailure> {
    const guard: VerificationGuard = { ok: true, producerId: header.producerId, valid: true };
    const verifier = this.verifier;
    if (verifier === null) return guard;
    this.track(p, guard);
    let outcome: TxnVerificationOutcome;
    try {
      outcome = await verifier.verify({ transactionalId, producerId: header.producerId, producerEpoch: header.producerEpoch, topic: p.topic, partition: p.partition });
    } catch (err) {
      outcome = { kind: 'refused', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, message: `verification failed: ${(err as Error).message}` };
    }
    if (outcome.kind === 'verified') return guard;
    this.consume(p, guard);
    const code = RETRIABLE_AS_NOT_ENOUGH_REPLICAS.has(outcome.errorCode) ? ErrorCode.NOT_ENOUGH_REPLICAS : outcome.errorCode;
    return appendFailure(code, `transaction verification refused ${p.topic}-${p.partition}: ${outcome.message}`);
  }

  /** Just before the append: whether no marker for the producer was written since the verification started. */
  consume(p: Partition, guard: VerificationGuard): boolean {
    const byProducer = this.inFlight.get(p);
    const set = byProducer?.get(guard.producerId);
    if (set !== undefined) {
      set.delete(guard);
      if (set.size === 0) byProducer?.delete(guard.producerId);
    }
    return guard.valid;
  }

  /** A marker for `producerId` was written to `p`: its verifications in flight no longer hold. */
  onMarker(p: Partition, producerId: bigint): void {
    const byProducer = this.inFlight.get(p);
    const set = byProducer?.get(producerId);
    if (set === undefined) return;
    for (const g of set) g.valid = false;
    byProducer?.delete(producerId);
  }

  private track(p: Partition, guard: VerificationGuard): void {
    let byProducer = this.inFlight.get(p);
    if (byProducer === undefined) {
      byProducer = new Map();
      this.inFlight.set(p, byProducer);
    }
    let set = byProducer.get(guard.producerId);
    if (set === undefined) {
      set = new Set();
      byProducer.set(guard.producerId, set);
    }
    set.add(guard);
  }
}

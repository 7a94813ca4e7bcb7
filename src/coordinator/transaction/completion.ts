/**
 * Ending transactions: EndTxn's rules for transaction versions 1 and 2
 * (KIP-98; KIP-890 part 2), the abort that fences a producer (InitProducerId
 * of a new instance, or the transaction timeout), and the marker phase that
 * takes Prepare* to Complete* (Kafka's TransactionMarkerChannelManager
 * completion).
 *
 * Markers carry the epoch written in the Prepare* record: the current one
 * (version 1), or the bumped one (version 2 and fencing), so the partition
 * leaders fence the old epoch once the marker is there.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { Shard } from './coordinator.js';
import type { TxnLogEntry } from './records.js';
import { PRODUCER_EPOCH_MAX, tpOf, type TxnMetadata } from './state.js';
import type { EndTxnInput, ProducerIdAndEpoch, TxnCoordinatorDeps } from './types.js';

/** Kafka's TransactionStateManager mapping of a failed __transaction_state append to what the client is told. */
export function writeErrorCode(code: number): number {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.NOT_COORDINATOR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return code;
  }
}

type Persist = (shard: Shard, md: TxnMetadata, target: TxnLogEntry) => Promise<number>;
type Decision = { kind: 'error'; code: number } | { kind: 'answered' } | { kind: 'prepare'; committed: boolean; bump: boolean };

const failed = (errorCode: number): ProducerIdAndEpoch => ({ errorCode, producerId: -1n, producerEpoch: -1 });

/** Transactions this coordinator ended since start: commits, and aborts by who asked (for the broker's metrics). */
export interface TxnOutcomes {
  commits: number;
  readonly aborts: { client: number; timeout: number; fenced: number };
}

export class TxnCompletion {
  readonly outcomes: TxnOutcomes = { commits: 0, aborts: { client: 0, timeout: 0, fenced: 0 } };
  /** Transactions whose markers are being written (not sent twice), and when that phase ends. */
  private readonly markersInFlight = new Map<TxnMetadata, Promise<void>>();

  constructor(
    private readonly deps: TxnCoordinatorDeps,
    private readonly isCurrent: (shard: Shard) => boolean,
    private readonly persist: Persist,
  ) {}

  async endTxn(input: EndTxnInput, shard: Shard | number): Promise<ProducerIdAndEpoch> {
    if (typeof shard === 'number') return failed(shard);
    const md = shard.txns.get(input.transactionalId);
    if (md === undefined || md.producerId !== input.producerId) return failed(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (md.inFlight) return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
    const decision = input.transactionVersion >= 2 ? decideV2(md, input) : decideV1(md, input);
    if (decision.kind === 'error') return failed(decision.code);
    if (decision.kind === 'answered') return { errorCode: ErrorCode.NONE, producerId: md.producerId, producerEpoch: md.producerEpoch };
    const target = await this.prepareTarget(md, decision.committed, decision.bump, input.transactionVersion);
    if (typeof target === 'number') return failed(target);
    if (!this.isCurrent(shard) || md.inFlight) return failed(ErrorCode.CONCURRENT_TRANSACTIONS);
    const code = await this.persist(shard, md, target);
    if (code !== ErrorCode.NONE) return failed(code);
    if (decision.committed) this.outcomes.commits++;
    else this.outcomes.aborts.client++;
    this.sendMarkers(shard, md);
    // Version 2 answers the producer id and epoch the client continues with (EndTxn v5).
    const next = target.nextProducerId >= 0n ? { producerId: target.nextProducerId, producerEpoch: 0 } : { producerId: md.producerId, producerEpoch: md.producerEpoch };
    return { errorCode: ErrorCode.NONE, ...next };
  }

  /** The Prepare* record; with `bump`, the epoch goes up (a new producer id comes next when it is exhausted). */
  private async prepareTarget(md: TxnMetadata, committed: boolean, bump: boolean, transactionVersion: number): Promise<TxnLogEntry | number> {
    let producerEpoch = md.producerEpoch;
    let nextProducerId = -1n;
    if (bump) {
      producerEpoch = md.producerEpoch + 1;
      if (producerEpoch >= PRODUCER_EPOCH_MAX) {
        const pid = await this.deps.producerIds.newProducerId();
        if (typeof pid !== 'bigint') return pid.errorCode;
        nextProducerId = pid;
      }
    }
    const now = this.deps.clock.nowMs();
    return {
      ...md.entry(), state: committed ? 'PrepareCommit' : 'PrepareAbort', producerEpoch, nextProducerId,
      txnLastUpdateTimestampMs: now, clientTransactionVersion: Math.max(transactionVersion, 1),
      txnStartTimestampMs: md.state === 'Ongoing' ? md.txnStartTimestampMs : now,
    };
  }

  /**
   * Aborts an open transaction with the epoch bumped (Kafka's
   * PrepareEpochFence then PrepareAbort): the old producer is fenced by the
   * markers and by the coordinator. Used by InitProducerId of a new
   * instance and by the timeout scan; neither waits for it.
   */
  fenceAndAbort(shard: Shard, md: TxnMetadata, cause: 'timeout' | 'fenced'): void {
    if (md.inFlight || md.state !== 'Ongoing') return;
    const producerEpoch = Math.min(md.producerEpoch + 1, 0x7fff);
    const target: TxnLogEntry = { ...md.entry(), state: 'PrepareAbort', producerEpoch, txnLastUpdateTimestampMs: this.deps.clock.nowMs() };
    void this.persist(shard, md, target).then((code) => {
      if (code !== ErrorCode.NONE) return;
      this.outcomes.aborts[cause]++;
      this.sendMarkers(shard, md);
    });
  }

  /** Writes the markers of a Prepare* transaction, then its Complete* record. */
  sendMarkers(shard: Shard, md: TxnMetadata): void {
    const prepared = md.state;
    if ((prepared !== 'PrepareCommit' && prepared !== 'PrepareAbort') || this.markersInFlight.has(md)) return;
    this.markersInFlight.set(md, Promise.resolve()); // replaced below, once the phase's promise exists
    const still = (): boolean => this.isCurrent(shard) && shard.txns.get(md.transactionalId) === md && md.state === prepared;
    const request = {
      transactionalId: md.transactionalId,
      producerId: md.producerId,
      producerEpoch: md.producerEpoch,
      committed: prepared === 'PrepareCommit',
      coordinatorEpoch: shard.coordinatorEpoch,
      partitions: [...md.partitions].map(tpOf),
    };
    const phase = this.deps.markers
      .writeMarkers(request, still)
      .then(async (outcome) => {
        if (outcome !== 'done' || !still() || md.inFlight) return;
        const code = await this.persist(shard, md, this.completeTarget(md, request.committed));
        if (code === ErrorCode.NONE) this.deps.onCompleted?.(md.transactionalId, request.committed, request.producerId, request.producerEpoch);
      })
      .finally(() => this.markersInFlight.delete(md));
    this.markersInFlight.set(md, phase.then(() => undefined, () => undefined));
  }

  /**
   * Settles when the marker phase of `md` under way ends (its Complete*
   * record written, or the phase stopped); null when none is. A request
   * that would meet CONCURRENT_TRANSACTIONS can wait for it instead.
   */
  markerPhaseOf(md: TxnMetadata): Promise<void> | null {
    return this.markersInFlight.get(md) ?? null;
  }

  private completeTarget(md: TxnMetadata, committed: boolean): TxnLogEntry {
    const next = md.nextProducerId >= 0n;
    return {
      ...md.entry(),
      state: committed ? 'CompleteCommit' : 'CompleteAbort',
      producerId: next ? md.nextProducerId : md.producerId,
      previousProducerId: next ? md.producerId : md.previousProducerId,
      producerEpoch: next ? 0 : md.producerEpoch,
      nextProducerId: -1n,
      partitions: [],
      txnLastUpdateTimestampMs: this.deps.clock.nowMs(),
    };
  }

  /** Periodic: resumes Prepare* transactions whose marker phase stopped (a failed Complete* write). */
  resumeStalled(shards: Iterable<Shard>): void {
    for (const shard of shards) for (const md of shard.txns.values()) if (!md.inFlight) this.sendMarkers(shard, md);
  }
}

/** Transaction version 1 (EndTxn v0-4): the epoch stays; retries of a completed end succeed. */
function decideV1(md: TxnMetadata, input: EndTxnInput): Decision {
  if (input.producerEpoch !== md.producerEpoch) return { kind: 'error', code: ErrorCode.PRODUCER_FENCED };
  const c = input.committed;
  switch (md.state) {
    case 'Ongoing':
      return { kind: 'prepare', committed: c, bump: false };
    case 'CompleteCommit':
      return c ? { kind: 'answered' } : { kind: 'error', code: ErrorCode.INVALID_TXN_STATE };
    case 'CompleteAbort':
      return c ? { kind: 'error', code: ErrorCode.INVALID_TXN_STATE } : { kind: 'answered' };
    case 'PrepareCommit':
      return { kind: 'error', code: c ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE };
    case 'PrepareAbort':
      return { kind: 'error', code: c ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS };
    case 'Empty':
    case 'Dead':
    case 'PrepareEpochFence':
      return { kind: 'error', code: ErrorCode.INVALID_TXN_STATE };
  }
}

/**
 * Transaction version 2 (EndTxn v5, KIP-890 part 2): every end bumps the
 * epoch. A request with the epoch just before the current one is a retry of
 * the end that bumped it: answered if that end is what it asked for, fenced
 * otherwise, so a delayed EndTxn never ends the next transaction.
 */
function decideV2(md: TxnMetadata, input: EndTxnInput): Decision {
  const isRetry = md.lastProducerEpoch >= 0 && input.producerEpoch === md.lastProducerEpoch && input.producerEpoch !== md.producerEpoch;
  if (input.producerEpoch !== md.producerEpoch && !isRetry) return { kind: 'error', code: ErrorCode.PRODUCER_FENCED };
  const c = input.committed;
  switch (md.state) {
    case 'Ongoing':
      return isRetry ? { kind: 'error', code: ErrorCode.PRODUCER_FENCED } : { kind: 'prepare', committed: c, bump: true };
    case 'CompleteCommit':
    case 'CompleteAbort':
    case 'Empty': {
      const sameOutcome = md.state === (c ? 'CompleteCommit' : 'CompleteAbort');
      if (isRetry) return sameOutcome ? { kind: 'answered' } : { kind: 'error', code: ErrorCode.PRODUCER_FENCED };
      // Aborting with nothing open is allowed and bumps the epoch (the client may not know whether anything was added).
      return c ? { kind: 'error', code: ErrorCode.INVALID_TXN_STATE } : { kind: 'prepare', committed: false, bump: true };
    }
    case 'PrepareCommit':
    case 'PrepareAbort': {
      const sameOutcome = md.state === (c ? 'PrepareCommit' : 'PrepareAbort');
      return { kind: 'error', code: isRetry && sameOutcome ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE };
    }
    case 'Dead':
    case 'PrepareEpochFence':
      return { kind: 'error', code: ErrorCode.INVALID_TXN_STATE };
  }
}

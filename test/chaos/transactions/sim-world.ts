/**
 * The world of the transaction simulation: virtual time and an event queue
 * (every message is an event with a random delay, so messages are delayed
 * and reordered), __transaction_state as a log with ambiguous writes and
 * truncation at failover, the coordinator (rebuilt from that log at every
 * failover, with the next coordinator epoch; the old instance keeps running
 * as a zombie for a while before it notices, answering from memory, its log
 * writes refused), and the partition leaders
 * (a model of their producer state: epoch fencing, coordinator-epoch fencing
 * of markers, KIP-890 part 1 verification before a transaction's first
 * append).
 */
import { TransactionCoordinator } from '../../../src/coordinator/transaction/coordinator.js';
import type { TxnLogEntry } from '../../../src/coordinator/transaction/records.js';
import { tpKey, type TopicPartition } from '../../../src/coordinator/transaction/state.js';
import { MarkerSender, type WireMarker } from '../../../src/coordinator/transaction/marker-sender.js';
import type { TxnPersistence } from '../../../src/coordinator/transaction/types.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';

export class SimFailure extends Error {}

export type LogItem =
  | { kind: 'data'; producerId: bigint; epoch: number; txn: number }
  | { kind: 'marker'; producerId: bigint; epoch: number; committed: boolean; coordinatorEpoch: number };

/** A partition leader's view of one producer (Kafka's ProducerStateEntry, reduced). */
interface SimProducer {
  epoch: number;
  coordinatorEpoch: number;
  open: boolean;
}

export class SimPartition {
  readonly log: LogItem[] = [];
  private readonly producers = new Map<bigint, SimProducer>();

  constructor(readonly tp: TopicPartition) {}

  produce(world: SimWorld, transactionalId: string, producerId: bigint, epoch: number, txn: number): number {
    const p = this.producers.get(producerId);
    if (p !== undefined && epoch < p.epoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (p === undefined || !p.open) {
      // KIP-890 part 1: the first append of a transaction asks the coordinator.
      const v = world.coordinator.verifyPartitions({ transactionalId, producerId, producerEpoch: epoch }, [this.tp]);
      const code = v.partitions.get(tpKey(this.tp)) ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      if (code !== ErrorCode.NONE) return code;
    }
    this.log.push({ kind: 'data', producerId, epoch, txn });
    this.producers.set(producerId, { epoch, coordinatorEpoch: p?.coordinatorEpoch ?? -1, open: true });
    return ErrorCode.NONE;
  }

  marker(m: WireMarker): number {
    const p = this.producers.get(m.producerId) ?? { epoch: -1, coordinatorEpoch: -1, open: false };
    if (m.coordinatorEpoch < p.coordinatorEpoch) return ErrorCode.TRANSACTION_COORDINATOR_FENCED;
    if (m.producerEpoch < p.epoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    this.log.push({ kind: 'marker', producerId: m.producerId, epoch: m.producerEpoch, committed: m.committed, coordinatorEpoch: m.coordinatorEpoch });
    this.producers.set(m.producerId, { epoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch, open: false });
    return ErrorCode.NONE;
  }
}

interface Event {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

export const TXN_PARTITIONS = 2;
export const MAX_TIMEOUT_MS = 60_000;

export class SimWorld {
  readonly random: SeededRandom;
  readonly clock = new ManualClock();
  private readonly queue: Event[] = [];
  private seq = 0;
  /** __transaction_state: one log per partition; `committed` = the prefix known replicated. */
  private readonly txnLog = Array.from({ length: TXN_PARTITIONS }, () => ({ entries: [] as { id: string; entry: TxnLogEntry | null }[], committed: 0 }));
  readonly partitions = new Map<string, SimPartition>();
  coordinator: TransactionCoordinator;
  coordinatorEpoch = 0;
  failovers = 0;
  private nextProducerId = 1000n;
  /** False once faults stop (the quiet period). */
  faults = true;
  readonly trace: string[] = [];

  constructor(readonly seed: number, topics: readonly TopicPartition[]) {
    this.random = new SeededRandom(seed);
    for (const tp of topics) this.partitions.set(tpKey(tp), new SimPartition(tp));
    this.coordinator = this.newCoordinator();
    for (let n = 0; n < TXN_PARTITIONS; n++) this.coordinator.loadPartition(n, 0, new Map());
  }

  note(line: string): void {
    this.trace.push(`${this.clock.nowMs() - 1_700_000_000_000} ${line}`);
  }

  chance(p: number): boolean {
    return this.random.next() < p;
  }

  /** A message delay: mostly short, sometimes long (reordering). */
  delay(): number {
    return this.chance(0.1) ? 50 + this.random.int(2000) : 1 + this.random.int(20);
  }

  schedule(afterMs: number, fn: () => void): void {
    this.queue.push({ at: this.clock.nowMs() + afterMs, seq: this.seq++, fn });
  }

  /** Sends `fn`'s call after a delay and its answer back after another. */
  rpc<T>(fn: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.schedule(this.delay(), () => {
        Promise.resolve()
          .then(fn)
          .then((r) => this.schedule(this.delay(), () => resolve(r)), (e: unknown) => reject(e));
      });
    });
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.schedule(ms, resolve));
  }

  /** Runs events until the queue is empty or `untilMs` (virtual) passes; microtasks drain after each. */
  async run(untilMs: number): Promise<void> {
    const end = this.clock.nowMs() + untilMs;
    for (let steps = 0; steps < 200_000; steps++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.queue.length === 0) return;
      let best = 0;
      for (let i = 1; i < this.queue.length; i++) {
        const e = this.queue[i] as Event;
        const b = this.queue[best] as Event;
        if (e.at < b.at || (e.at === b.at && e.seq < b.seq)) best = i;
      }
      const ev = this.queue[best] as Event;
      if (ev.at > end) return;
      this.queue.splice(best, 1);
      if (ev.at > this.clock.nowMs()) this.clock.advance(ev.at - this.clock.nowMs());
      ev.fn();
    }
    throw new SimFailure('the simulation did not settle within 200000 events');
  }

  get idle(): boolean {
    return this.queue.length === 0;
  }

  private newCoordinator(): TransactionCoordinator {
    const world = this;
    // The coordinator these writes come from: a zombie (an instance after a
    // failover, before it notices) is no longer the leader of
    // __transaction_state, so its appends are refused and never reach the
    // log (they would otherwise land after the new coordinator's records and
    // be read back as the latest state).
    let self: TransactionCoordinator | null = null;
    const persistence: TxnPersistence = {
      write(partition: number, id: string, entry: TxnLogEntry | null): Promise<number> {
        const owner = self;
        if (world.coordinator !== owner) return new Promise((resolve) => world.schedule(world.delay(), () => resolve(ErrorCode.NOT_LEADER_OR_FOLLOWER)));
        const log = world.txnLog[partition] as (typeof world.txnLog)[number];
        log.entries.push({ id, entry });
        const index = log.entries.length;
        return new Promise((resolve) => {
          world.schedule(world.delay(), () => {
            // Leadership moved while the write was in flight: the unreplicated tail (failover() keeps or drops it).
            if (world.coordinator !== owner) return resolve(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            // An ambiguous write: the client is told it timed out, the record stays.
            if (world.faults && world.chance(0.02)) return resolve(ErrorCode.REQUEST_TIMED_OUT);
            log.committed = Math.max(log.committed, index);
            resolve(ErrorCode.NONE);
          });
        });
      },
    };
    const markers = new MarkerSender({
      transport: { writeTxnMarkers: (_leader, m) => this.deliverMarkers(m) },
      leaderOf: () => 1,
      sleep: (ms) => this.sleep(ms),
    });
    self = new TransactionCoordinator({
      clock: this.clock,
      persistence,
      producerIds: { newProducerId: () => Promise.resolve(this.nextProducerId++) },
      markers,
      config: { numPartitions: TXN_PARTITIONS, maxTimeoutMs: MAX_TIMEOUT_MS, idExpirationMs: 7 * 24 * 3600 * 1000 },
    });
    return self;
  }

  /** A WriteTxnMarkers request: delayed, sometimes lost (the sender retries), answered per partition. */
  private deliverMarkers(m: WireMarker): Promise<Map<string, number>> {
    return new Promise((resolve, reject) => {
      this.schedule(this.delay(), () => {
        if (this.faults && this.chance(0.05)) return reject(new Error('connection lost'));
        const codes = new Map<string, number>();
        for (const tp of m.partitions) {
          const p = this.partitions.get(tpKey(tp));
          codes.set(tpKey(tp), p === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : p.marker(m));
        }
        this.schedule(this.delay(), () => resolve(codes));
      });
    });
  }

  /**
   * Coordinator failover: the next coordinator epoch loads every partition
   * from the log (the unreplicated tail survives or not); the old instance
   * keeps serving until it notices, a little later.
   */
  failover(): void {
    const old = this.coordinator;
    this.failovers++;
    this.coordinatorEpoch++;
    const epoch = this.coordinatorEpoch;
    const truncate = this.chance(0.5);
    for (const log of this.txnLog) {
      if (truncate) log.entries.length = log.committed;
      log.committed = log.entries.length;
    }
    this.note(`failover to coordinator epoch ${epoch}${truncate ? ' (unreplicated tail lost)' : ''}`);
    this.coordinator = this.newCoordinator();
    for (let n = 0; n < TXN_PARTITIONS; n++) this.coordinator.beginLoad(n);
    const loaded = this.txnLog.map((log) => {
      const latest = new Map<string, TxnLogEntry>();
      for (const { id, entry } of log.entries) {
        if (entry === null) latest.delete(id);
        else latest.set(id, entry);
      }
      return latest;
    });
    const fresh = this.coordinator;
    this.schedule(this.delay(), () => {
      if (this.coordinator !== fresh) return;
      loaded.forEach((latest, n) => fresh.loadPartition(n, epoch, latest));
    });
    this.schedule(this.delay() * 3, () => {
      for (let n = 0; n < TXN_PARTITIONS; n++) old.unloadPartition(n);
    });
  }
}

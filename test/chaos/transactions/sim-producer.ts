/**
 * A simulated transactional producer: InitProducerId, then transactions of
 * AddPartitionsToTxn, Produce (awaited, as real clients flush before they
 * commit) and EndTxn, retrying retriable errors with backoff. Transaction
 * version 2 producers (EndTxn v5) continue with the epoch EndTxn returns and
 * sometimes leave a duplicate of their EndTxn in the network, delivered long
 * after (the KAFKA-17754 schedule). Some stall past their transaction
 * timeout; some are replaced by a new instance with the same transactional
 * id while the old one keeps going (a zombie).
 */
import type { TopicPartition } from '../../../src/coordinator/transaction/state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { SimWorld } from './sim-world.js';

const RETRIABLE = new Set<number>([
  ErrorCode.CONCURRENT_TRANSACTIONS,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);
const FENCED = new Set<number>([ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
const ATTEMPTS_MAX = 400;

export interface TxnRecord {
  readonly serial: number;
  readonly transactionalId: string;
  readonly commitRequested: boolean;
  /** What the coordinator answered to this transaction's EndTxn: NONE or the final error. */
  answer: number | null;
}

class Fenced extends Error {}

export class SimProducer {
  producerId = -1n;
  epoch = -1;
  fenced = false;
  readonly txns: TxnRecord[] = [];

  constructor(
    private readonly world: SimWorld,
    readonly transactionalId: string,
    readonly transactionVersion: 1 | 2,
    private readonly partitions: readonly TopicPartition[],
    private readonly nextSerial: () => number,
    readonly timeoutMs: number,
  ) {}

  /** Calls the coordinator until a non-retriable answer. */
  private async call(what: string, fn: () => Promise<number>): Promise<number> {
    for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
      const code = await this.world.rpc(fn);
      if (!RETRIABLE.has(code)) return code;
      await this.world.sleep(10 + this.world.random.int(50));
    }
    throw new Error(`${this.transactionalId}: ${what} kept failing`);
  }

  async init(): Promise<void> {
    const code = await this.call('InitProducerId', async () => {
      const r = await this.world.coordinator.initProducerId({ transactionalId: this.transactionalId, transactionTimeoutMs: this.timeoutMs, producerId: -1n, producerEpoch: -1 });
      if (r.errorCode === ErrorCode.NONE) {
        this.producerId = r.producerId;
        this.epoch = r.producerEpoch;
      }
      return r.errorCode;
    });
    if (code !== ErrorCode.NONE) throw new Error(`${this.transactionalId}: InitProducerId answered ${code}`);
    this.world.note(`${this.transactionalId} init pid ${this.producerId} epoch ${this.epoch}`);
  }

  /** Runs `count` transactions; stops early when fenced. */
  async runTransactions(count: number): Promise<void> {
    try {
      for (let i = 0; i < count && !this.fenced; i++) await this.oneTransaction();
    } catch (e) {
      if (!(e instanceof Fenced)) throw e;
      this.fenced = true;
    }
  }

  private async oneTransaction(): Promise<void> {
    const w = this.world;
    const chosen = this.partitions.filter(() => w.chance(0.6));
    if (chosen.length === 0) chosen.push(this.partitions[0] as TopicPartition);
    const rec: TxnRecord = { serial: this.nextSerial(), transactionalId: this.transactionalId, commitRequested: w.chance(0.75), answer: null };
    this.txns.push(rec);
    const ref = () => ({ transactionalId: this.transactionalId, producerId: this.producerId, producerEpoch: this.epoch });
    this.check(await this.call('AddPartitionsToTxn', () => w.coordinator.addPartitions(ref(), chosen)));
    for (const tp of chosen) {
      const code = await this.call('Produce', () => Promise.resolve(w.partitions.get(`${tp.topic}\u0000${tp.partition}`)?.produce(w, this.transactionalId, this.producerId, this.epoch, rec.serial) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
      this.check(code);
    }
    // Stall past the transaction timeout sometimes: the coordinator aborts and fences.
    if (w.faults && w.chance(0.05)) await w.sleep(this.timeoutMs + 3000);
    const end = { ...ref(), committed: rec.commitRequested, transactionVersion: this.transactionVersion };
    if (this.transactionVersion === 2 && w.faults && w.chance(0.3)) {
      // A copy of this EndTxn, delivered long after (a retry racing the original).
      w.schedule(2000 + w.random.int(8000), () => void w.coordinator.endTxn(end).then((r) => w.note(`${this.transactionalId} delayed EndTxn serial ${rec.serial} answered ${r.errorCode}`)));
    }
    const code = await this.call('EndTxn', async () => {
      const r = await w.coordinator.endTxn(end);
      if (r.errorCode === ErrorCode.NONE && this.transactionVersion === 2) {
        this.producerId = r.producerId;
        this.epoch = r.producerEpoch;
      }
      return r.errorCode;
    });
    rec.answer = code;
    w.note(`${this.transactionalId} serial ${rec.serial} ${rec.commitRequested ? 'commit' : 'abort'} answered ${code}`);
    this.check(code);
  }

  private check(code: number): void {
    if (code === ErrorCode.NONE) return;
    if (FENCED.has(code)) throw new Fenced(`${this.transactionalId} fenced (${code})`);
    if (code === ErrorCode.INVALID_TXN_STATE) throw new Fenced(`${this.transactionalId} invalid state`);
    throw new Error(`${this.transactionalId}: unexpected error ${code}`);
  }
}

/**
 * The workload of the consume-transform-produce chaos test: one worker per
 * input partition, each a transactional Producer (transactional id
 * `<prefix>-<p>`) and a read_committed Consumer of that partition
 * (assign(), the group's committed offset as start), and a live
 * read_committed reader of the output. Everything bounded in time.
 *
 * A worker's transaction: read up to BATCH records, send each transformed
 * record to output partition (p + i) % outputPartitions (so a transaction
 * spans partitions), add the next input offset with sendOffsets, commit.
 * Every ABORT_EVERY-th transaction throws instead (an application abort).
 * On any other error the worker closes both clients and starts again (a new
 * incarnation: InitProducerId fences or aborts what the old one left open,
 * and the consumer restarts from the committed offset).
 */
import { Admin } from '../../../src/client/admin.js';
import { Cluster } from '../../../src/client/cluster.js';
import { Consumer } from '../../../src/client/consumer.js';
import { withCoordinator } from '../../../src/client/group-apis.js';
import { fetchCommittedOffsets } from '../../../src/client/group-offsets.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import type { ConsumerBatch } from '../../../src/client/consumer-types.js';
import { outputValue, type OutputRecord, type TxnRecord } from './ctp-checker.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const BATCH = 10;
/** Every this many transactions, the worker aborts on purpose. */
const ABORT_EVERY = 7;
/** Pause between transactions, so that the input lasts through the faults. */
const PAUSE_MS = 250;
const RESTART_BACKOFF_MS = 500;
/** A batch of input is waited for this long before the worker looks at its deadline again. */
const POLL_MS = 1_000;
const TRANSACTION_TIMEOUT_MS = 15_000;

class ApplicationAbort extends Error {}

export interface WorkloadOptions {
  readonly bootstrap: string;
  readonly input: string;
  readonly output: string;
  readonly outputPartitions: number;
  readonly groupId: string;
  readonly transactionalIdPrefix: string;
  readonly inputCount: number;
  readonly deadlineMs: number;
}

export interface WorkerResult {
  readonly partition: number;
  readonly transactions: TxnRecord[];
  readonly errors: string[];
  readonly done: boolean;
  readonly incarnations: number;
}

/** Reads from the consumer until a batch arrives or POLL_MS passes (null). */
async function nextBatch(it: AsyncIterator<ConsumerBatch<string, string>>, pending: { next: Promise<IteratorResult<ConsumerBatch<string, string>>> | null }): Promise<ConsumerBatch<string, string> | null> {
  pending.next ??= it.next();
  const r = await Promise.race([pending.next, sleep(POLL_MS).then(() => 'idle' as const)]);
  if (r === 'idle') return null;
  pending.next = null;
  if (r.done === true) throw new Error('consumer ended');
  return r.value;
}

class Worker {
  readonly transactions: TxnRecord[] = [];
  readonly errors: string[] = [];
  private incarnation = 0;
  private txnNo = 0;
  done = false;

  constructor(private readonly o: WorkloadOptions, readonly partition: number) {}

  status(): string {
    const last = this.transactions.at(-1);
    return `worker ${this.partition}: ${this.done ? 'done' : 'working'}, incarnation ${this.incarnation}, ${this.transactions.length} transactions, last ${last === undefined ? 'none' : `${last.label} ${last.outcome}`}, last error ${this.errors.at(-1) ?? 'none'}`;
  }

  async run(): Promise<WorkerResult> {
    while (!this.done && Date.now() < this.o.deadlineMs) {
      this.incarnation++;
      try {
        await this.incarnationLoop();
      } catch (err) {
        this.errors.push(`incarnation ${this.incarnation}: ${(err as Error).message}`);
        await sleep(RESTART_BACKOFF_MS);
      }
    }
    return { partition: this.partition, transactions: this.transactions, errors: this.errors, done: this.done, incarnations: this.incarnation };
  }

  private async incarnationLoop(): Promise<void> {
    const producer = await Producer.connect<string, string>({
      clusterOptions: { bootstrap: this.o.bootstrap },
      transactionalId: `${this.o.transactionalIdPrefix}-${this.partition}`,
      transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
      keySerializer: Serializers.string,
      valueSerializer: Serializers.string,
    });
    const consumer = new Consumer<string, string>({
      bootstrap: this.o.bootstrap,
      groupId: this.o.groupId,
      autoCommit: false,
      isolationLevel: 'read_committed',
      autoOffsetReset: 'earliest',
      maxPollRecords: BATCH,
      fetchMaxWaitMs: 200,
      keyDeserializer: (b) => b?.toString() ?? '',
      valueDeserializer: (b) => b?.toString() ?? '',
    });
    try {
      consumer.assign([{ topic: this.o.input, partition: this.partition }]);
      const it = consumer.batches()[Symbol.asyncIterator]();
      const pending: { next: Promise<IteratorResult<ConsumerBatch<string, string>>> | null } = { next: null };
      while (!this.done && Date.now() < this.o.deadlineMs) {
        const batch = await nextBatch(it, pending);
        if (batch === null || batch.records.length === 0) continue;
        await this.transaction(producer, batch);
        await sleep(PAUSE_MS);
      }
    } finally {
      await consumer.close().catch(() => undefined);
      await producer.close().catch(() => undefined);
    }
  }

  private async transaction(producer: Producer<string, string>, batch: ConsumerBatch<string, string>): Promise<void> {
    this.txnNo++;
    const label = `${this.partition}/${this.incarnation}/${this.txnNo}`;
    const offsets = batch.records.map((r) => Number(r.offset));
    const txn: TxnRecord = { label, partition: this.partition, inputOffsets: offsets, outcome: 'unknown' };
    this.transactions.push(txn);
    const abort = this.txnNo % ABORT_EVERY === 0;
    const next = batch.records[batch.records.length - 1]!.offset + 1n;
    try {
      await producer.transaction(async (tx) => {
        await tx.sendBatch(batch.records.map((r, i) => ({ topic: this.o.output, partition: (this.partition + offsets[i]!) % this.o.outputPartitions, key: r.key, value: outputValue(r.value, label) })));
        await tx.sendOffsets({ groupId: this.o.groupId, offsets: [{ topic: this.o.input, partition: this.partition, offset: next }] });
        if (abort) throw new ApplicationAbort(label);
      });
      txn.outcome = 'committed';
      if (next >= BigInt(this.o.inputCount)) this.done = true;
    } catch (err) {
      // Our own throw comes back only when the abort it caused was acknowledged.
      if (err instanceof ApplicationAbort) {
        txn.outcome = 'aborted';
        throw err; // start again from the committed offset
      }
      throw err;
    }
  }
}

export interface RunningWorkload {
  readonly done: Promise<WorkerResult[]>;
  /** One line per worker: where it stands now (for progress output while waiting). */
  status(): string[];
}

export function startWorkers(o: WorkloadOptions, inputPartitions: number): RunningWorkload {
  const workers = Array.from({ length: inputPartitions }, (_, p) => new Worker(o, p));
  return { done: Promise.all(workers.map((w) => w.run())), status: () => workers.map((w) => w.status()) };
}

/** A read_committed reader of every output partition from offset 0 (no group), recording what it is handed, until stop(). */
export function liveReader(bootstrap: string, topic: string, partitions: number): { seen: OutputRecord[]; errors: string[]; stop(): Promise<void> } {
  const seen: OutputRecord[] = [];
  const errors: string[] = [];
  let stopped = false;
  let consumer: Consumer<string, string> | null = null;
  const loop = (async () => {
    while (!stopped) {
      consumer = new Consumer<string, string>({ bootstrap, isolationLevel: 'read_committed', autoOffsetReset: 'earliest', fetchMaxWaitMs: 200, valueDeserializer: (b) => b?.toString() ?? '' });
      // Each (re)start reads from the beginning: remember how far every partition was seen.
      const seenUpTo = new Map<number, bigint>();
      for (const r of seen) if (r.offset >= (seenUpTo.get(r.partition) ?? -1n)) seenUpTo.set(r.partition, r.offset);
      try {
        consumer.assign(Array.from({ length: partitions }, (_, p) => ({ topic, partition: p })));
        for (const [p, o] of seenUpTo) consumer.seek({ topic, partition: p }, o + 1n);
        for await (const batch of consumer.batches()) {
          for (const r of batch.records) seen.push({ partition: batch.partition, offset: r.offset, value: r.value });
          if (stopped) break;
        }
      } catch (err) {
        errors.push((err as Error).message);
        await sleep(200);
      } finally {
        await consumer.close().catch(() => undefined);
      }
    }
  })();
  return {
    seen,
    errors,
    async stop() {
      stopped = true;
      await consumer?.close().catch(() => undefined);
      await loop;
    },
  };
}

/** Every output partition from 0 up to its LSO, read_committed, after the run. */
export async function readCommitted(bootstrap: string, topic: string, partitions: number, timeoutMs: number): Promise<OutputRecord[]> {
  const out: OutputRecord[] = [];
  const admin = await Admin.connect({ bootstrap });
  let ends: bigint[];
  try {
    ends = [];
    for (let p = 0; p < partitions; p++) ends.push((await admin.listOffsets(topic, p, 'latest')).offset);
  } finally {
    await admin.close();
  }
  const consumer = new Consumer<string, string>({ bootstrap, isolationLevel: 'read_committed', autoOffsetReset: 'earliest', fetchMaxWaitMs: 200, valueDeserializer: (b) => b?.toString() ?? '' });
  const deadline = Date.now() + timeoutMs;
  try {
    consumer.assign(Array.from({ length: partitions }, (_, p) => ({ topic, partition: p })));
    const reached = (): boolean => ends.every((end, p) => (consumer.position({ topic, partition: p }) ?? -1n) >= end);
    const it = consumer.batches()[Symbol.asyncIterator]();
    const pending: { next: Promise<IteratorResult<ConsumerBatch<string, string>>> | null } = { next: null };
    while (!reached() && Date.now() < deadline) {
      const batch = await nextBatch(it, pending);
      if (batch !== null) for (const r of batch.records) out.push({ partition: batch.partition, offset: r.offset, value: r.value });
    }
    if (!reached()) throw new Error(`read back of ${topic} did not reach ${ends.join(',')} within ${timeoutMs} ms`);
  } finally {
    await consumer.close();
  }
  return out;
}

/** The group's committed offsets of the input partitions (RequireStable: pending transactional commits are waited for); -1 when none. */
export async function committedOffsets(bootstrap: string, groupId: string, topic: string, partitions: number): Promise<number[]> {
  const cluster = await Cluster.connect({ bootstrap });
  try {
    const tps = [{ topic, partitions: Array.from({ length: partitions }, (_, p) => p) }];
    for (let attempt = 0; ; attempt++) {
      const list = await withCoordinator(cluster, groupId, (conn) => fetchCommittedOffsets(conn, groupId, tps, { requireStable: true }));
      if (list.every((c) => c.error === null) || attempt >= 100) return Array.from({ length: partitions }, (_, p) => Number(list.find((c) => c.partition === p)?.offset ?? -1n));
      await sleep(200);
    }
  } finally {
    await cluster.close();
  }
}

/**
 * The load of the replication chaos suite, every part bounded in count and
 * time:
 *
 * - `librdkafkaLoad`: py/load_confluent.py, an idempotent acks=all
 *   confluent-kafka producer, its delivery reports as JSON lines;
 * - `ourProducerLoad`: our Producer (src/client), idempotent acks=all,
 *   paced the same way;
 * - `groupReader`: a consumer group of our Consumers recording every record
 *   it was handed;
 * - `readBack`: every partition from offset 0 to its high watermark, after
 *   the faults.
 *
 * Producers send record seq to partition seq % partitions with the value
 * recordValue(producer, seq) (checker.ts), so the checker can tell every
 * record, its producer and its order apart.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/broker-process.js';
import { PYTHON } from '../../helpers/run.js';
import { Cluster } from '../../../src/client/cluster.js';
import { fetch } from '../../../src/client/records.js';
import { Producer } from '../../../src/client/producer.js';
import { Consumer } from '../../../src/client/consumer.js';
import { recordValue, type AckedRecord, type LoggedRecord } from './checker.js';

/** A reader gives up after this many failed pulls (each followed by 200 ms). */
const READER_ERRORS_MAX = 200;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface LoadOptions {
  readonly bootstrap: string;
  readonly topic: string;
  /** The producer's name in record values: letters, digits, `_ . -`. */
  readonly producer: string;
  readonly partitions: number;
  /** At most this many records... */
  readonly count: number;
  /** ...at this pace (records/s)... */
  readonly rate: number;
  /** ...for at most this long (or until stop()); then a bounded flush. */
  readonly durationMs: number;
  readonly size?: number;
}

export interface LoadResult {
  readonly producer: string;
  readonly acked: AckedRecord[];
  /** Sends that failed for good (error names with counts). */
  readonly failed: Record<string, number>;
  readonly sent: number;
  /** Sent, never answered by the end of the flush. */
  readonly unanswered: number;
  /** A fatal producer error, if any. */
  readonly fatal: string | null;
  /** The client's text for it (librdkafka says which error of its own led to it). */
  readonly fatalReason: string | null;
}

/** A load that runs until its count, its duration or stop(), whichever comes first. */
export interface RunningLoad {
  stop(): void;
  readonly done: Promise<LoadResult>;
}

/** How long the flush after the sending may take at most, on top of the duration. */
const FLUSH_GRACE_MS = 60_000;

export const LOAD_PY = join(repoRoot, 'test', 'chaos', 'replication', 'py', 'load_confluent.py');

interface PyLine {
  s?: number;
  p?: number;
  o?: number;
  e?: string;
  t?: number;
  done?: boolean;
  sent?: number;
  left?: number;
  fatal?: string | null;
  fatal_reason?: string | null;
}

/** librdkafka 2.0.2 through confluent-kafka-python; `done` resolves when the script has flushed and exited. */
export function librdkafkaLoad(options: LoadOptions): RunningLoad {
  // CHAOS_RDK_DEBUG=eos,msg,protocol turns librdkafka's debug log on; it is kept in a file named on stderr.
  const debug = process.env['CHAOS_RDK_DEBUG'];
  const extra = debug === undefined || debug === '' ? {} : { debug };
  const args = { bootstrap: options.bootstrap, topic: options.topic, producer: options.producer, partitions: options.partitions, count: options.count, rate: options.rate, duration_s: options.durationMs / 1000, size: options.size ?? 100, extra };
  const child = spawn(PYTHON, [LOAD_PY], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), options.durationMs + FLUSH_GRACE_MS);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.stdin.end(JSON.stringify(args));
  const done = new Promise<LoadResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(killer);
      if (debug !== undefined && debug !== '') keepDebugLog(options.producer, Buffer.concat(err));
      const stdout = Buffer.concat(out).toString('utf8');
      if (code !== 0) return reject(new Error(`load_confluent.py exited (code ${code}, signal ${signal}):\n${stdout.slice(-2000)}\n${Buffer.concat(err).toString('utf8').slice(-3000)}`));
      try {
        resolve(parseLoadLines(options, stdout));
      } catch (e) {
        reject(e as Error);
      }
    });
  });
  return { stop: () => void child.kill('SIGTERM'), done };
}

function keepDebugLog(producer: string, log: Buffer): void {
  const path = join(tmpdir(), `rdk-${producer}-${Date.now()}.log`);
  writeFileSync(path, log);
  process.stderr.write(`librdkafka debug log of ${producer}: ${path}\n`);
}

function parseLoadLines(options: LoadOptions, stdout: string): LoadResult {
  const acked: AckedRecord[] = [];
  const failed: Record<string, number> = {};
  let done: PyLine | null = null;
  for (const text of stdout.split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as PyLine;
    if (line.done === true) done = line;
    else if (line.e !== undefined) failed[line.e] = (failed[line.e] ?? 0) + 1;
    else if (line.s !== undefined && line.p !== undefined && line.o !== undefined && line.t !== undefined) {
      acked.push({ producer: options.producer, seq: line.s, partition: line.p, offset: BigInt(line.o), value: recordValue(options.producer, line.s, options.size ?? 100), atMs: line.t });
    }
  }
  if (done === null) throw new Error(`load_confluent.py printed no summary:\n${stdout.slice(-2000)}`);
  return { producer: options.producer, acked, failed, sent: done.sent ?? 0, unanswered: done.left ?? 0, fatal: done.fatal ?? null, fatalReason: done.fatal_reason ?? null };
}

/** Our Producer, idempotent with acks=all, retrying for as long as the load may last. */
export function ourProducerLoad(options: LoadOptions): RunningLoad {
  const state = { stopping: false };
  return { stop: () => void (state.stopping = true), done: ourProducerRun(options, state) };
}

async function ourProducerRun(options: LoadOptions, state: { stopping: boolean }): Promise<LoadResult> {
  const deliveryTimeoutMs = 30_000;
  const producer = await Producer.connect<null, string>({
    clusterOptions: { bootstrap: options.bootstrap, clientId: `load-${options.producer}` },
    acks: -1,
    idempotent: true,
    lingerMs: 5,
    retries: 1_000,
    retryBackoffMs: 100,
    deliveryTimeoutMs,
    requestTimeoutMs: 10_000,
    allowAutoTopicCreation: false,
  });
  const acked: AckedRecord[] = [];
  const failed: Record<string, number> = {};
  const pending = new Set<Promise<void>>();
  const start = Date.now();
  let sent = 0;
  try {
    while (sent < options.count && Date.now() - start < options.durationMs && !state.stopping) {
      const due = start + (sent * 1000) / options.rate;
      if (due > Date.now()) {
        await sleep(Math.min(due - Date.now(), 50));
        continue;
      }
      const seq = sent++;
      const partition = seq % options.partitions;
      const value = recordValue(options.producer, seq, options.size ?? 100);
      const p = producer.send({ topic: options.topic, partition, value }).then(
        (m) => void acked.push({ producer: options.producer, seq, partition, offset: m.offset, value, atMs: Date.now() }),
        (err: unknown) => {
          const name = (err as { code?: string }).code ?? (err as Error).name;
          failed[name] = (failed[name] ?? 0) + 1;
        },
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    await Promise.race([Promise.allSettled([...pending]), sleep(deliveryTimeoutMs + 5_000)]);
  } finally {
    await Promise.race([producer.close(), sleep(10_000)]);
  }
  return { producer: options.producer, acked, failed, sent, unanswered: pending.size, fatal: null, fatalReason: null };
}

export interface GroupReader {
  readonly seen: LoggedRecord[];
  /** Errors the consumers' loops ended with. */
  readonly errors: string[];
  stop(): Promise<void>;
}

/** `members` Consumers of one group on `topic`, from the earliest offset, recording what they are handed. */
export async function groupReader(bootstrap: string, topic: string, groupId: string, members = 2): Promise<GroupReader> {
  const seen: LoggedRecord[] = [];
  const errors: string[] = [];
  const consumers = Array.from({ length: members }, (_, i) => new Consumer<Buffer | null, Buffer | null>({
    bootstrap,
    groupId,
    clientId: `chaos-reader-${i}`,
    autoOffsetReset: 'earliest',
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 1_000,
  }));
  let stopping = false;
  const loops = consumers.map(async (c) => {
    // A pull that throws (a fetch error not retried, while a node is down) is recorded and the loop goes on.
    let subscribed = false;
    for (let attempt = 0; attempt < READER_ERRORS_MAX && !stopping; attempt++) {
      try {
        if (!subscribed) await c.subscribe([topic]);
        subscribed = true;
        for await (const batch of c.batches()) {
          for (const r of batch.records) seen.push({ partition: batch.partition, offset: r.offset, value: r.value === null ? null : r.value.toString('utf8') });
        }
        return;
      } catch (err) {
        errors.push((err as Error).message);
        await sleep(200);
      }
    }
  });
  return {
    seen,
    errors,
    async stop() {
      stopping = true;
      await Promise.race([Promise.allSettled(consumers.map((c) => c.close())), sleep(15_000)]);
      await Promise.race([Promise.allSettled(loops), sleep(5_000)]);
    },
  };
}

/** Every partition of `topic` from offset 0 up to its high watermark (retrying while leaders move back). */
export async function readBack(bootstrap: string, topic: string, partitions: number, timeoutMs = 30_000): Promise<Map<number, LoggedRecord[]>> {
  const cluster = await Cluster.connect({ bootstrap, retries: 20 });
  const deadline = Date.now() + timeoutMs;
  const logs = new Map<number, LoggedRecord[]>();
  try {
    for (let partition = 0; partition < partitions; partition++) {
      const records: LoggedRecord[] = [];
      let offset = 0n;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`read back of ${topic}-${partition} not done within ${timeoutMs} ms (at offset ${offset})`);
        let r;
        try {
          r = await fetch(cluster, { topic, partition, offset }, { maxWaitMs: 100 });
        } catch {
          await sleep(200);
          await cluster.refreshMetadata([topic]).catch(() => undefined);
          continue;
        }
        for (const rec of r.records) records.push({ partition, offset: rec.offset, value: rec.value === null ? null : rec.value.toString('utf8') });
        offset = r.nextOffset;
        if (offset >= r.highWatermark) break;
      }
      logs.set(partition, records);
    }
  } finally {
    await cluster.close();
  }
  return logs;
}

/**
 * `tributary produce TOPIC`: one record per input line (stdin or --file).
 *
 * With --key-separator (TAB when given without a value) a line is
 * `key<SEP>value`; lines without the separator have a null key. Keyed
 * records go to `toPositive(murmur2(key)) % partitions`, as the Java client
 * does; unkeyed ones round-robin; --partition pins everything to one.
 * Records are batched per partition (--batch-size records, at most
 * BATCH_BYTES_MAX bytes) and sent one request per leader, one round at a
 * time, so records of a partition are appended in input order.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { DefaultPartitioner } from '../../client/partitioner.js';
import { produceMany, type Acks, type CompressionName, type PartitionRecords } from '../../client/records.js';
import { invalidArgument } from '../../net/errors.js';
import type { Cluster } from '../../client/cluster.js';
import { checkBootstrap, choice, connectCluster, nonNegativeInt, positiveInt, run, usageError, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

/** Uncompressed bytes per batch: below the broker's 1 MiB message.max.bytes default, with room for overhead. */
export const BATCH_BYTES_MAX = 900 * 1024;
export const BATCH_SIZE_DEFAULT = 1000;
const PROGRESS_TTY_INTERVAL_MS = 500;
const PROGRESS_LOG_INTERVAL_MS = 5_000;
/** Progress appears only for inputs that take longer than this. */
const PROGRESS_AFTER_MS = 1_000;
const RECORD_OVERHEAD_BYTES = 24;

interface ProduceCliOptions extends CommonOptions {
  file?: string;
  partition?: number;
  keySeparator?: string | true;
  acks: string;
  compression: CompressionName;
  batchSize: number;
}

export function registerProduceCommand(program: Command): void {
  withExamples(withClientOptions(program.command('produce').description('write lines from stdin or a file as records')), [
    'tributary produce orders < events.jsonl',
    "printf 'alice\\tone\\nbob\\ttwo\\n' | tributary produce orders --key-separator      keyed records",
    'tributary produce orders --file big.txt --compression lz4 --acks 1',
    'seq 1 100 | tributary produce orders --partition 0',
  ])
    .argument('<topic>', 'topic to write to')
    .option('-f, --file <path>', 'read lines from a file instead of stdin')
    .option('-p, --partition <n>', 'write every record to this partition', nonNegativeInt('--partition'))
    .option('-k, --key-separator [sep]', 'parse lines as key<sep>value (sep defaults to TAB; \\t is accepted)')
    .option('--acks <acks>', 'acknowledgements: 0, 1 or -1 (all)', choice('--acks', ['0', '1', '-1', 'all']), '-1')
    .option('--compression <codec>', 'none, gzip, snappy, lz4 or zstd', choice('--compression', ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const), 'none')
    .option('--batch-size <n>', 'records per partition batch', positiveInt('--batch-size'), BATCH_SIZE_DEFAULT)
    .action(async (topic: string, options: ProduceCliOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const separator = parseSeparator(options.keySeparator);
      if (separator === '') usageError(cmd, '--key-separator must not be empty');
      await run(
        async () => {
          const cluster = await connectCluster(options);
          try {
            await produceLines(cluster, topic, options, separator);
          } finally {
            await cluster.close();
          }
        },
        { bootstrap: options.bootstrap },
      );
    });
}

function parseSeparator(value: string | true | undefined): string | null {
  if (value === undefined) return null;
  if (value === true) return '\t';
  return value.replace(/\\t/g, '\t').replace(/\\n/g, '\n');
}

interface Pending {
  records: { key: string | null; value: string }[];
  bytes: number;
}

interface Totals {
  records: number;
  bytes: number;
}

async function produceLines(cluster: Cluster, topic: string, options: ProduceCliOptions, separator: string | null): Promise<void> {
  // A producer: a missing topic is auto-created when the broker allows it (as Java's console producer).
  const meta = await cluster.topic(topic, false, { allowAutoTopicCreation: true });
  const partitionCount = meta.partitions.length;
  if (options.partition !== undefined && options.partition >= partitionCount) {
    throw invalidArgument(`partition ${options.partition} does not exist: ${topic} has partitions 0-${partitionCount - 1}`);
  }
  const acks: Acks = options.acks === 'all' ? -1 : (Number(options.acks) as Acks);
  const partitioner = new DefaultPartitioner();
  const pending = new Map<number, Pending>();
  const totals: Totals = { records: 0, bytes: 0 };
  const startMs = performance.now();
  const progress = startProgress(totals, startMs);
  const flush = async (): Promise<void> => {
    const batches: PartitionRecords[] = [];
    for (const [partition, p] of pending) if (p.records.length > 0) batches.push({ topic, partition, records: p.records });
    pending.clear();
    if (batches.length === 0) return;
    await produceMany(cluster, batches, { acks, compression: options.compression });
    for (const b of batches) totals.records += b.records.length;
  };
  try {
    const input = options.file === undefined || options.file === '-' ? process.stdin : createReadStream(options.file);
    const lines = createInterface({ input, crlfDelay: Infinity });
    for await (const line of lines) {
      const { key, value } = splitLine(line, separator);
      const partition = options.partition ?? partitioner.partition(key, partitionCount);
      const bytes = Buffer.byteLength(value) + (key === null ? 0 : Buffer.byteLength(key));
      const current = pending.get(partition);
      if (current !== undefined && current.bytes + bytes + RECORD_OVERHEAD_BYTES > BATCH_BYTES_MAX) await flush();
      const q = pending.get(partition) ?? { records: [], bytes: 0 };
      pending.set(partition, q);
      q.records.push({ key, value });
      q.bytes += bytes + RECORD_OVERHEAD_BYTES;
      totals.bytes += bytes;
      if (q.records.length >= options.batchSize) await flush();
    }
    await flush();
  } finally {
    progress.stop();
  }
  const elapsedS = (performance.now() - startMs) / 1000;
  const rate = elapsedS > 0 ? Math.round(totals.records / elapsedS) : totals.records;
  const note = acks === 0 ? ' (acks=0: not confirmed by the broker)' : '';
  await writeOut(`Produced ${totals.records} record${totals.records === 1 ? '' : 's'} (${formatBytes(totals.bytes)}) to ${topic} in ${elapsedS.toFixed(2)} s (${rate} records/s)${note}.\n`);
}

export function splitLine(line: string, separator: string | null): { key: string | null; value: string } {
  if (separator === null) return { key: null, value: line };
  const at = line.indexOf(separator);
  if (at < 0) return { key: null, value: line };
  return { key: line.slice(0, at), value: line.slice(at + separator.length) };
}

function startProgress(totals: Totals, startMs: number): { stop: () => void } {
  const tty = process.stderr.isTTY === true;
  let shown = false;
  const timer = setInterval(
    () => {
      const elapsedMs = performance.now() - startMs;
      if (elapsedMs < PROGRESS_AFTER_MS) return;
      const rate = Math.round(totals.records / (elapsedMs / 1000));
      const text = `${totals.records} records sent, ${rate} records/s`;
      if (tty) process.stderr.write(`\r${text}\u001b[K`);
      else process.stderr.write(`${text}\n`);
      shown = true;
    },
    tty ? PROGRESS_TTY_INTERVAL_MS : PROGRESS_LOG_INTERVAL_MS,
  );
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      if (tty && shown) process.stderr.write('\r\u001b[K');
    },
  };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

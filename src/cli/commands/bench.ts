/**
 * `tributary bench produce|consume|e2e`: load generators in the spirit of
 * kafka-producer-perf-test and kafka-consumer-perf-test, on our own client.
 *
 * This file declares the commands and checks their options (usage errors
 * exit 2); the runs are in bench-produce.ts, bench-consume.ts and
 * bench-e2e.ts, the measurement in bench-stats.ts. Results go to stdout (a
 * summary, or one JSON object with --json); progress lines to stderr.
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { Acks, CompressionName } from '../../client/records.js';
import { checkBootstrap, choice, nonNegativeInt, positiveInt, usageError, withClientOptions, withExamples, type CommonOptions } from './common.js';

export const COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export const RECORDS_DEFAULT = 1_000_000;
export const RECORD_SIZE_DEFAULT = 100;
export const BATCH_SIZE_DEFAULT = 16_384;
export const LINGER_MS_DEFAULT = 5;
export const BUFFER_MEMORY_DEFAULT = 32 * 1024 * 1024;
/** Records per sendBatch() call when not paced. */
export const CHUNK_RECORDS_DEFAULT = 1_000;
export const CONSUME_TIMEOUT_MS_DEFAULT = 10_000;
export const E2E_THROUGHPUT_DEFAULT = 10_000;
/** e2e records carry an 8-byte send stamp. */
export const E2E_RECORD_SIZE_MIN = 8;

/** Options shared by `bench produce` and `bench e2e` (the producer side). */
export interface ProducerBenchSettings {
  topic: string;
  records: number;
  recordSize: number;
  /** Values cycled through instead of --record-size random bytes (produce only). */
  payloads: Buffer[] | null;
  acks: Acks;
  compression: CompressionName;
  batchSize: number;
  lingerMs: number;
  bufferMemory: number;
  /** Records per second target; -1: unlimited. */
  throughput: number;
  /** null: the producer's default. */
  idempotent: boolean | null;
  /** Batches in flight per partition; null: the producer's default. */
  maxInFlight: number | null;
  /** bench produce --transactional-id: records go in transactions of recordsPerTransaction; null: no transactions. */
  transactionalId: string | null;
  recordsPerTransaction: number;
  perRecord: boolean;
  chunkRecords: number;
  createTopic: boolean;
  partitions: number;
  json: boolean;
  progress: boolean;
}

export interface ConsumerBenchSettings {
  topic: string;
  /** Stop after this many records; null: when --timeout-ms passes without a record. */
  records: number | null;
  group: string | null;
  from: 'earliest' | 'latest';
  source: 'consumer' | 'fetch';
  isolationLevel: 'read_uncommitted' | 'read_committed';
  maxPollRecords: number;
  timeoutMs: number;
  fetchMaxWaitMs: number;
  fetchMaxBytes: number;
  partitionMaxBytes: number;
  json: boolean;
  progress: boolean;
}

export interface E2eBenchSettings extends ProducerBenchSettings {
  /** How long the consumer may wait for the last records once production ends. */
  timeoutMs: number;
}

/** The raw option values commander hands the produce and e2e actions. */
export interface RawProducerOptions extends CommonOptions {
  topic?: string;
  records?: number;
  recordSize?: number;
  payloadFile?: string;
  payloadDelimiter?: string;
  acks: string;
  compression: CompressionName;
  batchSize: number;
  lingerMs: number;
  bufferMemory: number;
  throughput?: number;
  idempotent?: boolean;
  maxInFlight?: number;
  transactionalId?: string;
  recordsPerTransaction?: number;
  perRecord?: boolean;
  chunkRecords?: number;
  createTopic?: boolean;
  partitions?: number;
  json?: boolean;
  progress: boolean;
  timeoutMs?: number;
}

export interface RawConsumerOptions extends CommonOptions {
  topic?: string;
  records?: number;
  group?: string;
  from: 'earliest' | 'latest';
  source: 'consumer' | 'fetch';
  isolationLevel: 'read_uncommitted' | 'read_committed';
  maxPollRecords: number;
  timeoutMs: number;
  fetchMaxWaitMs: number;
  fetchMaxBytes: number;
  partitionMaxBytes: number;
  json?: boolean;
  progress: boolean;
}

/** bench produce --records-per-transaction default. */
export const RECORDS_PER_TRANSACTION_DEFAULT = 1_000;

/** Thrown by the checks below; the actions turn it into a usage error (exit 2). */
export class BenchUsageError extends Error {}

/** commander argParser: a records/s target, -1 (unlimited) or a positive integer. */
export function throughputArg(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || (n !== -1 && n < 1)) {
    throw new InvalidArgumentError('--throughput must be -1 (unlimited) or a positive integer (records/s).');
  }
  return n;
}

export function parseAcks(value: string): Acks {
  return value === 'all' ? -1 : (Number(value) as Acks);
}

/** Splits a payload file into values (Kafka's --payload-file: one value per delimited item, empty ones dropped). */
export function splitPayloads(text: string, delimiter: string): Buffer[] {
  return text
    .split(delimiter)
    .filter((s) => s.length > 0)
    .map((s) => Buffer.from(s, 'utf8'));
}

/** Cross-option checks of `bench produce` / `bench e2e`; throws BenchUsageError. */
export function producerSettings(raw: RawProducerOptions, mode: 'produce' | 'e2e', readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): ProducerBenchSettings {
  if (raw.topic === undefined || raw.topic === '') throw new BenchUsageError('--topic is required');
  if (raw.partitions !== undefined && raw.createTopic !== true) throw new BenchUsageError('--partitions needs --create-topic (the topic is created with that many partitions)');
  if (raw.payloadFile !== undefined && raw.recordSize !== undefined) throw new BenchUsageError('--record-size and --payload-file exclude each other');
  if (raw.payloadDelimiter !== undefined && raw.payloadFile === undefined) throw new BenchUsageError('--payload-delimiter needs --payload-file');
  if (raw.idempotent === true && parseAcks(raw.acks) !== -1) throw new BenchUsageError('--idempotent needs --acks all (the idempotent producer waits for every in-sync replica)');
  let throughput = raw.throughput ?? -1;
  let payloads: Buffer[] | null = null;
  if (mode === 'e2e') {
    if (raw.payloadFile !== undefined) throw new BenchUsageError('bench e2e writes a send stamp into each record: use --record-size, not --payload-file');
    if (raw.perRecord === true) throw new BenchUsageError('bench e2e always sends paced chunks; --per-record is for bench produce');
    throughput = raw.throughput ?? E2E_THROUGHPUT_DEFAULT;
    if (throughput === -1) throw new BenchUsageError('bench e2e needs a finite --throughput (records/s), e.g. --throughput 10000');
    if ((raw.recordSize ?? RECORD_SIZE_DEFAULT) < E2E_RECORD_SIZE_MIN) throw new BenchUsageError(`bench e2e needs --record-size of at least ${E2E_RECORD_SIZE_MIN} (the send stamp)`);
  } else if (raw.payloadFile !== undefined) {
    let text: string;
    try {
      text = readFile(raw.payloadFile);
    } catch (err) {
      throw new BenchUsageError(`cannot read --payload-file ${raw.payloadFile}: ${(err as Error).message}`);
    }
    payloads = splitPayloads(text, unescape(raw.payloadDelimiter ?? '\\n'));
    if (payloads.length === 0) throw new BenchUsageError(`--payload-file ${raw.payloadFile} has no payloads`);
  }
  const recordSize = payloads === null ? (raw.recordSize ?? RECORD_SIZE_DEFAULT) : Math.round(payloads.reduce((s, p) => s + p.length, 0) / payloads.length);
  if (recordSize > raw.bufferMemory) throw new BenchUsageError(`--record-size ${recordSize} exceeds --buffer-memory ${raw.bufferMemory}`);
  const records = raw.records ?? (mode === 'e2e' ? throughput * 10 : RECORDS_DEFAULT);
  if (raw.transactionalId !== undefined && parseAcks(raw.acks) !== -1) throw new BenchUsageError('--transactional-id needs --acks all (transactions need the idempotent producer)');
  if (raw.transactionalId !== undefined && raw.idempotent === false) throw new BenchUsageError('--transactional-id needs the idempotent producer (drop --no-idempotent)');
  if (raw.recordsPerTransaction !== undefined && raw.transactionalId === undefined) throw new BenchUsageError('--records-per-transaction needs --transactional-id');
  return {
    topic: raw.topic,
    records,
    recordSize,
    payloads,
    acks: parseAcks(raw.acks),
    compression: raw.compression,
    batchSize: raw.batchSize,
    lingerMs: raw.lingerMs,
    bufferMemory: raw.bufferMemory,
    throughput,
    idempotent: raw.idempotent ?? null,
    maxInFlight: raw.maxInFlight ?? null,
    transactionalId: raw.transactionalId ?? null,
    recordsPerTransaction: raw.recordsPerTransaction ?? RECORDS_PER_TRANSACTION_DEFAULT,
    perRecord: raw.perRecord === true,
    chunkRecords: raw.chunkRecords ?? CHUNK_RECORDS_DEFAULT,
    createTopic: raw.createTopic === true,
    partitions: raw.partitions ?? 1,
    json: raw.json === true,
    progress: raw.progress,
  };
}

export function consumerSettings(raw: RawConsumerOptions): ConsumerBenchSettings {
  if (raw.topic === undefined || raw.topic === '') throw new BenchUsageError('--topic is required');
  if (raw.fetchMaxWaitMs > raw.timeoutMs) throw new BenchUsageError('--fetch-max-wait-ms must not exceed --timeout-ms');
  if (raw.group !== undefined && raw.source === 'fetch') throw new BenchUsageError('--group needs --source consumer (plain fetches have no group)');
  if (raw.isolationLevel === 'read_committed' && raw.source === 'fetch') throw new BenchUsageError('--isolation-level read_committed needs --source consumer (it filters aborted transactions)');
  return {
    topic: raw.topic,
    isolationLevel: raw.isolationLevel,
    records: raw.records ?? null,
    group: raw.group ?? null,
    from: raw.from,
    source: raw.source,
    maxPollRecords: raw.maxPollRecords,
    timeoutMs: raw.timeoutMs,
    fetchMaxWaitMs: raw.fetchMaxWaitMs,
    fetchMaxBytes: raw.fetchMaxBytes,
    partitionMaxBytes: raw.partitionMaxBytes,
    json: raw.json === true,
    progress: raw.progress,
  };
}

function unescape(s: string): string {
  return s.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\r/g, '\r');
}

function producerOptions(cmd: Command, mode: 'produce' | 'e2e'): Command {
  cmd
    .option('-t, --topic <name>', 'topic to write to (required)')
    .option('-n, --records <n>', mode === 'e2e' ? 'records to send (default: 10 s at --throughput)' : `records to send (default ${RECORDS_DEFAULT})`, positiveInt('--records'))
    .option('-s, --record-size <bytes>', `bytes per record value (default ${RECORD_SIZE_DEFAULT})`, positiveInt('--record-size'));
  if (mode === 'produce') {
    cmd
      .option('--payload-file <path>', 'send values read from this file (one per line, cycled) instead of --record-size random bytes')
      .option('--payload-delimiter <sep>', 'separator of values in --payload-file (default \\n)');
  }
  cmd
    .option('--acks <acks>', 'acknowledgements: 0, 1 or all (-1)', choice('--acks', ['0', '1', '-1', 'all']), 'all')
    .option('--compression <codec>', COMPRESSIONS.join(', '), choice('--compression', COMPRESSIONS), 'none')
    .option('--batch-size <bytes>', 'producer batchSize: bytes per partition batch', positiveInt('--batch-size'), BATCH_SIZE_DEFAULT)
    .option('--linger-ms <ms>', 'producer lingerMs', nonNegativeInt('--linger-ms'), LINGER_MS_DEFAULT)
    .option('--buffer-memory <bytes>', 'producer bufferMemory (also bounds the records the bench keeps in flight)', positiveInt('--buffer-memory'), BUFFER_MEMORY_DEFAULT)
    .option(
      '--throughput <records/s>',
      mode === 'e2e' ? `target rate (default ${E2E_THROUGHPUT_DEFAULT})` : 'target rate; -1 (default) is as fast as acknowledgements allow',
      throughputArg,
    )
    .option('--idempotent', 'enable the idempotent producer')
    .option('--no-idempotent', 'disable the idempotent producer (default: the producer decides: on with --acks all)')
    .option('--max-in-flight <n>', 'producer maxInFlight: batches per partition sent and not yet acknowledged', positiveInt('--max-in-flight'));
  if (mode === 'produce') {
    cmd
      .option('--per-record', 'one send() (one promise) per record instead of sendBatch() per chunk')
      .option('--chunk-records <n>', `records per sendBatch() call (default ${CHUNK_RECORDS_DEFAULT}; paced runs use smaller chunks)`, positiveInt('--chunk-records'))
      .option('--transactional-id <id>', 'send in transactions of this transactional id (commit latency is reported too)')
      .option('--records-per-transaction <n>', `records per transaction with --transactional-id (default ${RECORDS_PER_TRANSACTION_DEFAULT})`, positiveInt('--records-per-transaction'));
  }
  return cmd
    .option('--create-topic', 'create the topic first (kept if it exists)')
    .option('--partitions <n>', 'partitions of the created topic (default 1; needs --create-topic)', positiveInt('--partitions'))
    .option('--json', 'print the summary as one JSON object')
    .option('--no-progress', 'no progress line on stderr');
}

export function registerBenchCommands(program: Command): void {
  const bench = program
    .command('bench')
    .description('measure throughput and latency with our Producer and Consumer (like kafka-*-perf-test)')
    .addHelpText(
      'after',
      '\nSubcommands print a progress line every second on stderr and a summary on stdout (--json: one object).\nExit codes: 0 success, 1 a record failed or the broker is unreachable, 2 usage error.',
    );

  const produce = withExamples(withClientOptions(producerOptions(bench.command('produce').description('send records as fast as possible (or at --throughput) and report records/s, MB/s and acknowledgement latency'), 'produce')), [
    'tributary bench produce --topic perf --create-topic --records 1000000 --record-size 100 --acks 1',
    'tributary bench produce --topic perf --records 200000 --throughput 50000 --compression lz4 --json',
    'tributary bench produce --topic perf --payload-file values.txt --per-record',
    'tributary bench produce --topic perf --transactional-id bench-tx --records-per-transaction 1000',
  ]);
  produce.action(async (options: RawProducerOptions, cmd: Command) => {
    checkBootstrap(cmd, options.bootstrap);
    const settings = guard(cmd, () => producerSettings(options, 'produce'));
    const { runProduceBench } = await import('./bench-produce.js');
    await runProduceBench(options, settings);
  });

  const consume = withExamples(
    withClientOptions(
      bench
        .command('consume')
        .description('read records from every partition of a topic and report records/s and MB/s')
        .option('-t, --topic <name>', 'topic to read (required)')
        .option('-n, --records <n>', 'stop after this many records (default: when --timeout-ms passes without one)', positiveInt('--records'))
        .option('-g, --group <id>', 'read as a member of this consumer group (subscribe; its committed offsets win over --from)')
        .option('--from <where>', 'earliest or latest (where to start without a committed offset)', choice('--from', ['earliest', 'latest'] as const), 'earliest')
        .option('--source <kind>', 'consumer (our Consumer) or fetch (plain Fetch requests, no Consumer)', choice('--source', ['consumer', 'fetch'] as const), 'consumer')
        .option('--isolation-level <level>', 'read_uncommitted or read_committed (our Consumer only)', choice('--isolation-level', ['read_uncommitted', 'read_committed'] as const), 'read_uncommitted')
        .option('--max-poll-records <n>', 'Consumer maxPollRecords: records per batch', positiveInt('--max-poll-records'), 10_000)
        .option('--timeout-ms <ms>', 'stop when no record arrives for this long', positiveInt('--timeout-ms'), CONSUME_TIMEOUT_MS_DEFAULT)
        .option('--fetch-max-wait-ms <ms>', 'Fetch maxWaitMs', nonNegativeInt('--fetch-max-wait-ms'), 500)
        .option('--fetch-max-bytes <bytes>', 'Fetch maxBytes', positiveInt('--fetch-max-bytes'), 50 * 1024 * 1024)
        .option('--partition-max-bytes <bytes>', 'Fetch partitionMaxBytes', positiveInt('--partition-max-bytes'), 8 * 1024 * 1024)
        .option('--json', 'print the summary as one JSON object')
        .option('--no-progress', 'no progress line on stderr'),
    ),
    ['tributary bench consume --topic perf --records 1000000', 'tributary bench consume --topic perf --from earliest --timeout-ms 5000 --json'],
  );
  consume.action(async (options: RawConsumerOptions, cmd: Command) => {
    checkBootstrap(cmd, options.bootstrap);
    const settings = guard(cmd, () => consumerSettings(options));
    const { runConsumeBench } = await import('./bench-consume.js');
    await runConsumeBench(options, settings);
  });

  const e2e = withExamples(
    withClientOptions(
      producerOptions(
        bench.command('e2e').description('produce at --throughput with a send stamp in each record while consuming; report end-to-end latency'),
        'e2e',
      ).option('--timeout-ms <ms>', 'how long to wait for the last records after sending ends', positiveInt('--timeout-ms'), 30_000),
    ),
    ['tributary bench e2e --topic lat --create-topic --throughput 10000 --records 100000 --acks 1 --linger-ms 1', 'tributary bench e2e --topic lat --throughput 2000 --json'],
  );
  e2e.action(async (options: RawProducerOptions, cmd: Command) => {
    checkBootstrap(cmd, options.bootstrap);
    const settings = guard(cmd, () => ({ ...producerSettings(options, 'e2e'), timeoutMs: options.timeoutMs ?? 30_000 }));
    const { runE2eBench } = await import('./bench-e2e.js');
    await runE2eBench(options, settings);
  });
}

function guard<T>(cmd: Command, body: () => T): T {
  try {
    return body();
  } catch (err) {
    if (err instanceof BenchUsageError) usageError(cmd, err.message);
    throw err;
  }
}

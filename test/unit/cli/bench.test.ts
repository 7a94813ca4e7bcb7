/**
 * `tributary bench`: option checks (usage errors exit 2 with a clear
 * message), the pacing/in-flight arithmetic, and the latency histogram.
 * The runs themselves are in test/integration/cli-bench.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  BenchUsageError,
  CHUNK_RECORDS_DEFAULT,
  RECORDS_DEFAULT,
  consumerSettings,
  producerSettings,
  splitPayloads,
  throughputArg,
  type RawConsumerOptions,
  type RawProducerOptions,
} from '../../../src/cli/commands/bench.js';
import { chunkSize, inFlightRecordsMax } from '../../../src/cli/commands/bench-produce.js';
import { LatencyHistogram, progressLine, rates } from '../../../src/cli/commands/bench-stats.js';
import { stampOf, stampedChunkMaker } from '../../../src/cli/commands/bench-e2e.js';

const distRoot = resolve(import.meta.dirname, '../../..');
const mainJs = join(distRoot, 'src', 'cli', 'main.js');
const RUN_TIMEOUT_MS = 20_000;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [mainJs, ...args], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function rawProducer(overrides: Partial<RawProducerOptions> = {}, without: (keyof RawProducerOptions)[] = []): RawProducerOptions {
  const raw: RawProducerOptions = {
    bootstrap: '127.0.0.1:9092',
    requestTimeoutMs: 30_000,
    topic: 't',
    acks: 'all',
    compression: 'none',
    batchSize: 16_384,
    lingerMs: 5,
    bufferMemory: 32 * 1024 * 1024,
    progress: true,
    ...overrides,
  };
  for (const k of without) delete raw[k];
  return raw;
}

function rawConsumer(overrides: Partial<RawConsumerOptions> = {}, without: (keyof RawConsumerOptions)[] = []): RawConsumerOptions {
  const raw: RawConsumerOptions = {
    bootstrap: '127.0.0.1:9092',
    requestTimeoutMs: 30_000,
    topic: 't',
    from: 'earliest',
    source: 'consumer',
    isolationLevel: 'read_uncommitted',
    maxPollRecords: 10_000,
    timeoutMs: 10_000,
    fetchMaxWaitMs: 500,
    fetchMaxBytes: 1 << 20,
    partitionMaxBytes: 1 << 20,
    progress: true,
    ...overrides,
  };
  for (const k of without) delete raw[k];
  return raw;
}

function usage(body: () => unknown, message: RegExp): void {
  assert.throws(body, (err: unknown) => err instanceof BenchUsageError && message.test(err.message));
}

test('producer settings: defaults', () => {
  const s = producerSettings(rawProducer(), 'produce');
  assert.equal(s.records, RECORDS_DEFAULT);
  assert.equal(s.recordSize, 100);
  assert.equal(s.acks, -1);
  assert.equal(s.throughput, -1);
  assert.equal(s.idempotent, null);
  assert.equal(s.maxInFlight, null);
  assert.equal(s.chunkRecords, CHUNK_RECORDS_DEFAULT);
  assert.equal(s.partitions, 1);
  assert.equal(s.payloads, null);
  const e = producerSettings(rawProducer({ throughput: 2_000 }), 'e2e');
  assert.equal(e.records, 20_000, 'e2e defaults to 10 s at the target rate');
  assert.equal(producerSettings(rawProducer({ acks: '1' }), 'produce').acks, 1);
  assert.equal(producerSettings(rawProducer({ acks: '0' }), 'produce').acks, 0);
});

test('producer settings: conflicting or missing options are usage errors', () => {
  usage(() => producerSettings(rawProducer({}, ['topic']), 'produce'), /--topic is required/);
  usage(() => producerSettings(rawProducer({ partitions: 3 }), 'produce'), /--partitions needs --create-topic/);
  usage(() => producerSettings(rawProducer({ recordSize: 10, payloadFile: 'x' }), 'produce'), /--record-size and --payload-file exclude each other/);
  usage(() => producerSettings(rawProducer({ payloadDelimiter: ',' }), 'produce'), /--payload-delimiter needs --payload-file/);
  usage(() => producerSettings(rawProducer({ idempotent: true, acks: '1' }), 'produce'), /--idempotent needs --acks all/);
  usage(() => producerSettings(rawProducer({ recordSize: 1024, bufferMemory: 1000 }), 'produce'), /exceeds --buffer-memory/);
  usage(() => producerSettings(rawProducer({ throughput: -1 }), 'e2e'), /bench e2e needs a finite --throughput/);
  usage(() => producerSettings(rawProducer({ recordSize: 4 }), 'e2e'), /--record-size of at least 8/);
  usage(() => producerSettings(rawProducer({ payloadFile: 'x' }), 'e2e'), /use --record-size, not --payload-file/);
  usage(() => producerSettings(rawProducer({ perRecord: true }), 'e2e'), /--per-record is for bench produce/);
  usage(
    () => producerSettings(rawProducer({ payloadFile: '/nope' }), 'produce', () => { throw new Error('ENOENT'); }),
    /cannot read --payload-file \/nope: ENOENT/,
  );
  usage(() => producerSettings(rawProducer({ payloadFile: 'f' }), 'produce', () => '\n\n'), /has no payloads/);
});

test('payload file: values split on the delimiter, empty ones dropped, size is their mean', () => {
  assert.deepEqual(splitPayloads('a\nbb\n\nccc\n', '\n').map(String), ['a', 'bb', 'ccc']);
  const s = producerSettings(rawProducer({ payloadFile: 'f', payloadDelimiter: '|' }), 'produce', () => 'xx|yyyy|');
  assert.deepEqual(s.payloads?.map(String), ['xx', 'yyyy']);
  assert.equal(s.recordSize, 3);
});

test('--throughput: -1 or a positive integer', () => {
  assert.equal(throughputArg('-1'), -1);
  assert.equal(throughputArg('5000'), 5000);
  for (const bad of ['0', '-2', '1.5', 'fast', '']) assert.throws(() => throughputArg(bad), /--throughput must be -1 \(unlimited\) or a positive integer/, bad);
});

test('consumer settings', () => {
  const s = consumerSettings(rawConsumer({ records: 10 }));
  assert.equal(s.records, 10);
  assert.equal(consumerSettings(rawConsumer()).records, null, 'no --records: until the idle timeout');
  usage(() => consumerSettings(rawConsumer({}, ['topic'])), /--topic is required/);
  usage(() => consumerSettings(rawConsumer({ fetchMaxWaitMs: 2_000, timeoutMs: 1_000 })), /--fetch-max-wait-ms must not exceed --timeout-ms/);
  usage(() => consumerSettings(rawConsumer({ group: 'g', source: 'fetch' })), /--group needs --source consumer/);
  assert.equal(consumerSettings(rawConsumer({ group: 'g' })).group, 'g');
});

test('chunks: --chunk-records unpaced, about 1 ms of records when paced, 1 per record', () => {
  assert.equal(chunkSize({ throughput: -1, chunkRecords: 1000, perRecord: false }), 1000);
  assert.equal(chunkSize({ throughput: 10_000, chunkRecords: 1000, perRecord: false }), 10);
  assert.equal(chunkSize({ throughput: 100, chunkRecords: 1000, perRecord: false }), 1);
  assert.equal(chunkSize({ throughput: 10_000_000, chunkRecords: 500, perRecord: false }), 500);
  assert.equal(chunkSize({ throughput: -1, chunkRecords: 1000, perRecord: true }), 1);
  // In flight: bounded by bufferMemory, never below two chunks.
  assert.equal(inFlightRecordsMax({ bufferMemory: 17_000, recordSize: 100 }, 10), 100);
  assert.equal(inFlightRecordsMax({ bufferMemory: 1_000, recordSize: 100 }, 1000), 2000);
});

test('latency histogram: percentiles in ms within HDR precision, counts with weights', () => {
  const h = new LatencyHistogram();
  assert.deepEqual(h.summary(), { count: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0 });
  for (let i = 1; i <= 1000; i++) h.recordMs(i / 10); // 0.1 .. 100 ms
  h.recordMs(500, 10);
  const s = h.summary();
  assert.equal(s.count, 1010);
  assert.ok(Math.abs(s.p50 - 50.5) < 0.2, `p50 ${s.p50}`);
  assert.ok(Math.abs(s.p95 - 96) < 0.3, `p95 ${s.p95}`);
  assert.ok(s.p99 >= 99 && s.p99 <= 500.5, `p99 ${s.p99}`);
  assert.ok(Math.abs(s.max - 500) < 0.5, `max ${s.max}`);
});

test('rates and the progress line', () => {
  assert.deepEqual(rates(1_000_000, 100_000_000, 2_000), { recordsPerSec: 500_000, mbPerSec: 50 });
  assert.deepEqual(rates(5, 5, 0), { recordsPerSec: 0, mbPerSec: 0 });
  const line = progressLine('acknowledged', { records: 3_000, bytes: 300_000, inFlight: 42, errors: 1 }, { records: 1_000, bytes: 100_000 }, 1_000);
  assert.equal(line, '3000 records acknowledged, 2,000 records/s, 0.20 MB/s, 42 in flight, 1 errors');
});

test('e2e records carry a monotonic send stamp', () => {
  const before = performance.now();
  const records = stampedChunkMaker('t', 16)(3);
  assert.equal(records.length, 3);
  for (const r of records) {
    assert.equal(r.value.length, 16);
    const stamp = stampOf({ key: null, value: r.value });
    assert.ok(stamp !== null && stamp >= before && stamp <= performance.now());
  }
  assert.equal(stampOf({ key: null, value: Buffer.alloc(3) }), null);
});

test('CLI: bad arguments exit 2 with the reason; --help lists the subcommands', () => {
  const cases: [string[], RegExp][] = [
    [['bench', 'produce', '--topic', 't', '--records', '0'], /--records must be a positive integer/],
    [['bench', 'produce', '--topic', 't', '--acks', '2'], /--acks must be one of 0, 1, -1, all/],
    [['bench', 'produce', '--topic', 't', '--compression', 'brotli'], /--compression must be one of none, gzip, snappy, lz4, zstd/],
    [['bench', 'produce', '--topic', 't', '--throughput', '0'], /--throughput must be -1 \(unlimited\) or a positive integer/],
    [['bench', 'produce', '--records', '10'], /--topic is required/],
    [['bench', 'produce', '--topic', 't', '--partitions', '3'], /--partitions needs --create-topic/],
    [['bench', 'produce', '--topic', 't', '--bootstrap', '127.0.0.1:99999'], /99999/],
    [['bench', 'e2e', '--topic', 't', '--throughput', '-1'], /bench e2e needs a finite --throughput/],
    [['bench', 'consume', '--topic', 't', '--from', 'middle'], /--from must be one of earliest, latest/],
    [['bench', 'consume', '--topic', 't', '--bogus'], /unknown option '--bogus'/],
    [['bench', 'consume', '--topic', 't', '--source', 'magic'], /--source must be one of consumer, fetch/],
  ];
  for (const [args, message] of cases) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stdout, '', 'nothing on stdout');
  }
  const help = cli('bench', '--help');
  assert.equal(help.code, 0);
  for (const sub of ['produce', 'consume', 'e2e']) assert.match(help.stdout, new RegExp(`\\b${sub}\\b`));
  const produceHelp = cli('bench', 'produce', '--help');
  assert.equal(produceHelp.code, 0);
  assert.match(produceHelp.stdout, /Examples:\n {2}tributary bench produce/);
  assert.match(produceHelp.stdout, /env: TRIBUTARY_BOOTSTRAP/);
});

test('CLI: an unreachable broker is a runtime failure (exit 1) with a hint', () => {
  const r = cli('bench', 'produce', '--topic', 't', '--records', '10', '--bootstrap', '127.0.0.1:1', '--no-progress');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /hint: is a broker running at 127\.0\.0\.1:1\?/);
});

/**
 * kcat (librdkafka 2.0.2) as a test client: produce lines, consume a whole
 * topic with a parseable format string, list metadata, query offsets.
 * kcat has no admin API; create topics with createTopicsRaw() first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsumedRecord } from './records.js';
import { KCAT, run, type RunResult } from './run.js';

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export const COMPRESSIONS: readonly Compression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

const FIELD = '\x1f';
const RECORD = '\x1e';
/** topic, partition, offset, key length, key, value length, value, headers, timestamp. */
const FORMAT = ['%t', '%p', '%o', '%K', '%k', '%S', '%s', '%h', '%T'].join('\\x1f') + '\\x1e';

export interface KcatProduceOptions {
  compression?: Compression;
  partition?: number;
  headers?: [string, string][];
  /** Extra librdkafka properties, e.g. { 'acks': 'all' }. */
  config?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Produces `lines` (each "key:value", or just "value" for a null key) from a
 * file with `-l`, with `-K:` keys and the same `-H` headers on every record.
 */
export async function kcatProduce(bootstrap: string, topic: string, lines: readonly string[], options: KcatProduceOptions = {}): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-kcat-'));
  try {
    const file = join(dir, 'records.txt');
    writeFileSync(file, lines.join('\n') + '\n');
    const args = ['-b', bootstrap, '-P', '-t', topic, '-K:', '-z', options.compression ?? 'none', '-X', 'acks=all', '-m', '10'];
    if (options.partition !== undefined) args.push('-p', String(options.partition));
    for (const [k, v] of options.headers ?? []) args.push('-H', `${k}=${v}`);
    for (const [k, v] of Object.entries(options.config ?? {})) args.push('-X', `${k}=${v}`);
    args.push('-l', file);
    // kcat -P exits 0 even if delivery failed; it reports failures on stderr, which the caller checks.
    return await run(KCAT, args, { timeoutMs: options.timeoutMs ?? 60_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Throws if kcat -P printed a delivery or protocol error. */
export function assertKcatProduceClean(result: RunResult): void {
  if (/%\d\|.*(ERROR|FAIL)|Delivery failed|failed to produce|not all messages/i.test(result.stderr)) {
    throw new Error(`kcat -P reported errors:\n${result.stderr.slice(-4000)}`);
  }
}

function parseHeaders(text: string): [string, string | null][] {
  if (text === '') return [];
  return text.split(',').map((pair) => {
    const eq = pair.indexOf('=');
    return eq < 0 ? [pair, null] : [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

export function parseKcatRecords(stdout: string): ConsumedRecord[] {
  const records: ConsumedRecord[] = [];
  for (const chunk of stdout.split(RECORD)) {
    if (chunk.trim() === '') continue;
    const f = chunk.split(FIELD);
    if (f.length !== 9) throw new Error(`unparseable kcat record (${f.length} fields): ${JSON.stringify(chunk)}`);
    const [, partition, offset, keyLength, key, valueLength, value, headers, timestamp] = f as [string, string, string, string, string, string, string, string, string];
    records.push({
      partition: Number(partition),
      offset: BigInt(offset),
      key: keyLength === '-1' ? null : key,
      value: valueLength === '-1' ? null : value,
      headers: parseHeaders(headers),
      timestamp: BigInt(timestamp),
    });
  }
  return records;
}

/** Consumes every partition of `topic` from the beginning to the end (-e) without a group. */
export async function kcatConsumeAll(bootstrap: string, topic: string, options: { partition?: number; timeoutMs?: number; config?: Record<string, string> } = {}): Promise<ConsumedRecord[]> {
  const args = ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-m', '10', '-f', FORMAT];
  if (options.partition !== undefined) args.push('-p', String(options.partition));
  for (const [k, v] of Object.entries(options.config ?? {})) args.push('-X', `${k}=${v}`);
  const result = await run(KCAT, args, { timeoutMs: options.timeoutMs ?? 60_000 });
  return parseKcatRecords(result.stdout);
}

export interface KcatMetadata {
  controllerid?: number;
  brokers: { id: number; name: string }[];
  topics: { topic: string; error?: string; partitions: { partition: number; leader: number; replicas: { id: number }[]; isrs: { id: number }[]; error?: string }[] }[];
}

export async function kcatMetadata(bootstrap: string, topic?: string): Promise<KcatMetadata> {
  const args = ['-b', bootstrap, '-L', '-J', '-m', '10'];
  if (topic !== undefined) args.push('-t', topic);
  const result = await run(KCAT, args, { timeoutMs: 30_000 });
  return JSON.parse(result.stdout) as KcatMetadata;
}

/** `kcat -Q -t topic:partition:timestamp ...`: the offset of the first record at or after each timestamp (-1: end). */
export async function kcatQuery(bootstrap: string, queries: { topic: string; partition: number; timestampMs: number | bigint }[]): Promise<RunResult> {
  const args = ['-b', bootstrap, '-Q', '-J', '-m', '10'];
  for (const q of queries) args.push('-t', `${q.topic}:${q.partition}:${q.timestampMs}`);
  return run(KCAT, args, { timeoutMs: 30_000 });
}

/**
 * kcat -Q -J prints `{"<topic>": {"topic": .., "<partition>": {"partition": p, "offset": o}}}`
 * in some versions and a plain list in others; find the (topic, partition) offset in either.
 */
export function offsetFromQuery(stdout: string, topic: string, partition: number): number | undefined {
  const found: number[] = [];
  const visit = (node: unknown, inTopic: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, inTopic);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    const hereTopic = inTopic || o['topic'] === topic;
    if (hereTopic && o['partition'] === partition && typeof o['offset'] === 'number') found.push(o['offset']);
    for (const [k, v] of Object.entries(o)) visit(v, hereTopic || k === topic);
  };
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    try {
      visit(JSON.parse(line), false);
    } catch {
      const m = new RegExp(`${topic}\\s*\\[${partition}\\]\\s*offset\\s*(-?\\d+)`).exec(line);
      if (m?.[1] !== undefined) found.push(Number(m[1]));
    }
  }
  return found[0];
}

/**
 * Test-only helpers for the log cleaner: keyed batches built with the real
 * builder (any codec), a LogManager on a test env, and the log decoded back
 * into records.
 */
import { join } from 'node:path';
import { buildRecordBatch } from '../../../../src/protocol/record-batch/builder.js';
import { decodeRecordBatch, recordOffset, recordTimestamp, splitBatches } from '../../../../src/protocol/record-batch/reader.js';
import type { BatchHeader } from '../../../../src/protocol/record-batch/header.js';
import type { LogCleanerOptions } from '../../../../src/storage/cleaner/log-cleaner.js';
import type { LogConfig } from '../../../../src/storage/config.js';
import { LogManager } from '../../../../src/storage/log-manager.js';
import type { PartitionLog } from '../../../../src/storage/partition-log.js';
import { config, type FsEnv } from '../fs-env.js';

export interface KV {
  key: string | null;
  /** null: a tombstone. */
  value: string | null;
}

export async function keyedBatch(records: readonly KV[], timestampMs: number, codec = 0): Promise<Buffer> {
  return buildRecordBatch({
    records: records.map((r) => ({
      key: r.key === null ? null : Buffer.from(r.key),
      value: r.value === null ? null : Buffer.from(r.value),
    })),
    compression: codec,
    timestampMs,
  });
}

export interface StoredRecord {
  offset: bigint;
  key: string | null;
  value: string | null;
  timestampMs: bigint;
}

export interface StoredBatch {
  header: BatchHeader;
  records: StoredRecord[];
}

export async function storedBatches(log: PartitionLog, from = log.logStartOffset): Promise<StoredBatch[]> {
  const r = log.read(from, 1 << 30);
  if (r.kind !== 'records') throw new Error('out of range');
  const out: StoredBatch[] = [];
  for (const chunk of r.chunks) {
    for (const batch of splitBatches(chunk)) {
      const decoded = await decodeRecordBatch(batch);
      out.push({
        header: decoded.header,
        records: decoded.records.map((rec) => ({
          offset: recordOffset(decoded.header, rec),
          key: rec.key === null ? null : rec.key.toString(),
          value: rec.value === null ? null : rec.value.toString(),
          timestampMs: recordTimestamp(decoded.header, rec),
        })),
      });
    }
  }
  return out;
}

export async function storedRecords(log: PartitionLog): Promise<StoredRecord[]> {
  return (await storedBatches(log)).flatMap((b) => b.records);
}

export function compactConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return config({
    cleanupPolicy: { delete: false, compact: true },
    segmentBytes: 1 << 20,
    indexIntervalBytes: 256,
    ...overrides,
  });
}

export function openManager(env: FsEnv, cfg: LogConfig, cleaner: LogCleanerOptions = {}): { manager: LogManager; log: PartitionLog } {
  const { manager } = LogManager.open({
    fs: env.fs,
    clock: env.clock,
    dataDir: env.root,
    defaultConfig: cfg,
    configFor: () => cfg,
    cleaner: { backoffMs: 0, ...cleaner },
  });
  return { manager, log: manager.getOrCreateLog('topic', 0) };
}

export function segmentLogPath(env: FsEnv, baseOffset: bigint): string {
  return join(env.root, 'topic-0', `${baseOffset.toString().padStart(20, '0')}.log`);
}

/** The latest value per key, from a list of written records in offset order. */
export function latestByKey(records: readonly StoredRecord[]): Map<string, StoredRecord> {
  const m = new Map<string, StoredRecord>();
  for (const r of records) if (r.key !== null) m.set(r.key, r);
  return m;
}

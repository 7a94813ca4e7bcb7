/**
 * How `tributary consume` prints one record: the value, optionally prefixed
 * by `partition:offset` and the key (tab-separated, as kcat and
 * kafka-console-consumer's print.key/print.offset do), or one JSON object.
 * Shared by the plain and the `--group` consume paths.
 */
import type { RecordHeader } from '../../protocol/record-batch/record.js';
import { toJson } from './common.js';

/** The fields printed: a fetched record (client/records.ts) or a Consumer's record. */
export interface PrintableRecord {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint | number;
  key: Buffer | null;
  value: Buffer | null;
  headers: readonly RecordHeader[];
}

/** What to print around a record's value. */
export interface RecordFormatOptions {
  printKey?: boolean;
  printOffset?: boolean;
  json?: boolean;
}

export function formatRecord(record: PrintableRecord, options: RecordFormatOptions): string {
  const text = (b: Buffer | null): string => (b === null ? 'null' : b.toString('utf8'));
  if (options.json === true) {
    return toJson({
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      timestamp: record.timestamp,
      key: record.key === null ? null : record.key.toString('utf8'),
      value: record.value === null ? null : record.value.toString('utf8'),
      headers: Object.fromEntries(record.headers.map((h) => [h.key, h.value === null ? null : h.value.toString('utf8')])),
    });
  }
  let line = '';
  if (options.printOffset === true) line += `${record.partition}:${record.offset}\t`;
  if (options.printKey === true) line += `${text(record.key)}\t`;
  return line + text(record.value);
}

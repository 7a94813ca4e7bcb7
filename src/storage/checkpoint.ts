/**
 * Offset checkpoint files in Kafka's text format (recovery-point-offset-
 * checkpoint, log-start-offset-checkpoint):
 *
 *   0                      version
 *   2                      number of entries
 *   orders 0 1234          topic partition offset
 *   orders 1 998
 *
 * Written atomically (temp file, fsync, rename). A file that does not parse
 * is reported and treated as missing: the caller then recovers more, never less.
 */
import type { FileSystem } from './fs.js';

export const CHECKPOINT_VERSION = 0;

export interface CheckpointEntry {
  topic: string;
  partition: number;
  offset: bigint;
}

export function formatCheckpoint(entries: readonly CheckpointEntry[]): string {
  const lines = [String(CHECKPOINT_VERSION), String(entries.length)];
  for (const e of entries) lines.push(`${e.topic} ${e.partition} ${e.offset}`);
  return `${lines.join('\n')}\n`;
}

/** Parses a checkpoint; returns a string describing the problem when malformed. */
export function parseCheckpoint(text: string): CheckpointEntry[] | string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== String(CHECKPOINT_VERSION)) return `unsupported version line ${JSON.stringify(lines[0] ?? '')}`;
  const count = Number(lines[1]);
  if (!Number.isSafeInteger(count) || count < 0) return `bad entry count ${JSON.stringify(lines[1] ?? '')}`;
  if (lines.length !== count + 2) return `expected ${count} entries, found ${lines.length - 2}`;
  const entries: CheckpointEntry[] = [];
  for (let i = 2; i < lines.length; i++) {
    const m = /^(\S+) (\d+) (-?\d+)$/.exec(lines[i] as string);
    if (m === null) return `malformed line ${i + 1}: ${JSON.stringify(lines[i])}`;
    const partition = Number(m[2]);
    if (!Number.isSafeInteger(partition)) return `bad partition on line ${i + 1}`;
    entries.push({ topic: m[1] as string, partition, offset: BigInt(m[3] as string) });
  }
  return entries;
}

/** Reads a checkpoint file: entries, null when absent, or a problem string. */
export function readCheckpointFile(fs: FileSystem, path: string): CheckpointEntry[] | null | string {
  if (!fs.exists(path)) return null;
  return parseCheckpoint(fs.readFile(path).toString('utf8'));
}

export function writeCheckpointFile(fs: FileSystem, path: string, entries: readonly CheckpointEntry[]): void {
  fs.writeFileAtomic(path, Buffer.from(formatCheckpoint(entries), 'utf8'));
}

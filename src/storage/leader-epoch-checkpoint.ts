/**
 * The per-partition `leader-epoch-checkpoint` file in Kafka's text format:
 *
 *   0                      version
 *   2                      number of entries
 *   0 0                    epoch startOffset   (the first offset written in that epoch)
 *   3 1200
 *
 * Entries strictly increase in both epoch and start offset. Written
 * atomically (temp file, fsync, rename). The file's contents come from disk:
 * they are validated, never asserted; a malformed file is reported to the
 * caller, which rebuilds the entries from the batch headers instead.
 */
import type { FileSystem } from './fs.js';

export const LEADER_EPOCH_CHECKPOINT = 'leader-epoch-checkpoint';
export const LEADER_EPOCH_CHECKPOINT_VERSION = 0;
const INT32_MAX = 0x7fffffff;

export interface EpochEntry {
  /** A partition leader epoch, >= 0. */
  epoch: number;
  /** The first offset written with that epoch. */
  startOffset: bigint;
}

export function formatLeaderEpochCheckpoint(entries: readonly EpochEntry[]): string {
  const lines = [String(LEADER_EPOCH_CHECKPOINT_VERSION), String(entries.length)];
  for (const e of entries) lines.push(`${e.epoch} ${e.startOffset}`);
  return `${lines.join('\n')}\n`;
}

/** Parses the file's text; returns a string describing the problem when malformed. */
export function parseLeaderEpochCheckpoint(text: string): EpochEntry[] | string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== String(LEADER_EPOCH_CHECKPOINT_VERSION)) return `unsupported version line ${JSON.stringify(lines[0] ?? '')}`;
  const count = Number(lines[1]);
  if (!Number.isSafeInteger(count) || count < 0) return `bad entry count ${JSON.stringify(lines[1] ?? '')}`;
  if (lines.length !== count + 2) return `expected ${count} entries, found ${lines.length - 2}`;
  const entries: EpochEntry[] = [];
  for (let i = 2; i < lines.length; i++) {
    const m = /^(\d+) (\d+)$/.exec(lines[i] as string);
    if (m === null) return `malformed line ${i + 1}: ${JSON.stringify(lines[i])}`;
    const epoch = Number(m[1]);
    if (!Number.isSafeInteger(epoch) || epoch > INT32_MAX) return `epoch out of range on line ${i + 1}`;
    const entry = { epoch, startOffset: BigInt(m[2] as string) };
    const prev = entries[entries.length - 1];
    if (prev !== undefined && (entry.epoch <= prev.epoch || entry.startOffset <= prev.startOffset)) {
      return `line ${i + 1} does not increase epoch and start offset`;
    }
    entries.push(entry);
  }
  return entries;
}

/** Entries, null when the file is absent, or a problem string. */
export function readLeaderEpochCheckpoint(fs: FileSystem, path: string): EpochEntry[] | null | string {
  if (!fs.exists(path)) return null;
  return parseLeaderEpochCheckpoint(fs.readFile(path).toString('utf8'));
}

export function writeLeaderEpochCheckpoint(fs: FileSystem, path: string, entries: readonly EpochEntry[]): void {
  fs.writeFileAtomic(path, Buffer.from(formatLeaderEpochCheckpoint(entries), 'utf8'));
}

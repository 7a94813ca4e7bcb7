/**
 * Checkpoint files (Kafka's `.checkpoint`): `<stateDir>/<applicationId>/<taskId>/.checkpoint`
 * holds, per changelog partition of the task's persistent stores, the offset
 * up to which the store on disk holds the changelog. Written after each
 * commit (the stores were flushed and the changelog records acknowledged
 * before it); read when the task starts, so only the tail is restored.
 * Under exactly_once_v2 it is written only when a task closes cleanly and
 * deleted when the task starts running again (Kafka's rule).
 * Format: JSON `{ "version": 1, "offsets": { "<topic>:<partition>": "<offset>" } }`,
 * written to a temporary file and renamed, so a crash leaves the old or the new one.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = '.checkpoint';

/** The task's state directory. */
export function taskDir(stateDir: string, applicationId: string, taskId: string): string {
  return join(stateDir, applicationId, taskId);
}

/** The offsets of the checkpoint, or null when there is none (or it is unreadable). */
export function readCheckpoint(dir: string): Map<string, bigint> | null {
  const path = join(dir, FILE);
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { version?: number; offsets?: Record<string, string> };
    if (parsed.version !== 1 || typeof parsed.offsets !== 'object' || parsed.offsets === null) return null;
    return new Map(Object.entries(parsed.offsets).map(([k, v]) => [k, BigInt(v)]));
  } catch {
    return null;
  }
}

export function writeCheckpoint(dir: string, offsets: ReadonlyMap<string, bigint>): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `${FILE}.tmp`);
  writeFileSync(tmp, JSON.stringify({ version: 1, offsets: Object.fromEntries([...offsets].map(([k, v]) => [k, v.toString()])) }));
  renameSync(tmp, join(dir, FILE));
}

/** Removes the checkpoint (exactly-once: the task runs again, its stores will hold uncommitted changes). */
export function deleteCheckpoint(dir: string): void {
  rmSync(join(dir, FILE), { force: true });
}

/** Removes the task's directory (no usable checkpoint: the stores start empty and restore in full). */
export function wipeTaskDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Per task directory with a checkpoint under `<stateDir>/<applicationId>`,
 * the sum of its checkpointed changelog offsets: how much state this
 * instance holds for tasks it does not run (sent to the assignor, KIP-441).
 */
export function checkpointedOffsetSums(stateDir: string, applicationId: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const root = join(stateDir, applicationId);
  if (!existsSync(root)) return out;
  for (const name of readdirSync(root)) {
    if (!/^\d+_\d+$/.test(name)) continue;
    const offsets = readCheckpoint(join(root, name));
    if (offsets !== null) out.set(name, [...offsets.values()].reduce((n, o) => n + o, 0n));
  }
  return out;
}

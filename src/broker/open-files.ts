/**
 * How many file descriptors the partition logs may hold open
 * (`log.open.files.max`, src/storage/file-handle-pool.ts). 0 means "from the
 * process limit": half of the soft RLIMIT_NOFILE (`ulimit -n`), leaving the
 * other half to sockets and everything else, and at least 64. Node has no
 * getrlimit, so the limit is read from /proc/self/limits (Linux); elsewhere
 * the storage default applies.
 */
import { readFileSync } from 'node:fs';
import { OPEN_FILES_MAX_DEFAULT, OPEN_FILES_MAX_MIN } from '../storage/file-handle-pool.js';

const AUTO_MIN = 64;
/** More than this gains nothing (the LRU already holds every active segment of a busy node). */
const AUTO_MAX = 65_536;

/** The soft "Max open files" limit of this process, or null when unknown or unlimited. */
export function softOpenFilesLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (m === null) return null;
  const soft = Number(m[1]);
  return Number.isSafeInteger(soft) && soft > 0 ? soft : null;
}

/** The bound to use for `log.open.files.max = configured`. */
export function resolveOpenFilesMax(configured: number, softLimit: number | null = softOpenFilesLimit()): number {
  if (configured > 0) return Math.max(OPEN_FILES_MAX_MIN, configured);
  if (softLimit === null) return OPEN_FILES_MAX_DEFAULT;
  return Math.min(AUTO_MAX, Math.max(AUTO_MIN, Math.floor(softLimit / 2)));
}

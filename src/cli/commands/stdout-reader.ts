/**
 * Notices that nobody reads our stdout any more while we have nothing to
 * write. `consume ... | head -3` learns that head exited only from EPIPE on
 * its next write, so a consumer with no new records would wait forever. On
 * Linux, an anonymous pipe on stdout (`/proc/self/fd/1` -> `pipe:[inode]`)
 * can be checked without writing: look for any process holding that pipe
 * open for reading. The answer "gone" is given only when it is certain: a
 * process in our session whose descriptors we may not read (another user's,
 * e.g. `| sudo tee`) counts as a possible reader. Elsewhere (other systems,
 * a file, a terminal, a named FIFO) the watch does nothing and EPIPE on the
 * next write remains the signal.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** How often an idle command checks for a reader. */
export const STDOUT_READER_CHECK_INTERVAL_MS = 1000;

const O_ACCMODE = 0o3;
const O_WRONLY = 0o1;

/** The pipe on fd 1 (`pipe:[123]`), or null when stdout is something else or /proc is missing. */
export function stdoutPipe(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const target = readlinkSync('/proc/self/fd/1');
    return /^pipe:\[\d+\]$/.test(target) ? target : null;
  } catch {
    return null;
  }
}

/** Session id (field 6 of /proc/<pid>/stat, after the parenthesized command name). */
function sessionOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[3]);
  } catch {
    return null;
  }
}

/** 'yes' when `pid` holds `pipe` open for reading, 'no' when it does not, 'unknown' when its descriptors cannot be read. */
function holdsForReading(pid: string, pipe: string): 'yes' | 'no' | 'unknown' {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no' : 'unknown';
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== pipe) continue;
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags === undefined || (parseInt(flags, 8) & O_ACCMODE) !== O_WRONLY) return 'yes';
    } catch {
      // The descriptor closed while we looked.
    }
  }
  return 'no';
}

/** True only when certainly no process can still read `pipe`. */
export function pipeReaderGone(pipe: string): boolean {
  const ownSession = sessionOf(String(process.pid));
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return false;
  }
  for (const pid of pids) {
    const held = holdsForReading(pid, pipe);
    if (held === 'yes') return false;
    if (held === 'unknown' && (ownSession === null || sessionOf(pid) === ownSession)) return false;
  }
  return true;
}

/**
 * Calls `onGone` once when the reader of a piped stdout is gone, checking
 * every STDOUT_READER_CHECK_INTERVAL_MS while `idle()` says nothing is being
 * written. Returns the function that stops the watch. The timer never keeps
 * the process alive.
 */
export function watchStdoutReader(onGone: () => void, idle: () => boolean): () => void {
  const pipe = stdoutPipe();
  if (pipe === null) return () => undefined;
  const timer = setInterval(() => {
    if (!idle() || !pipeReaderGone(pipe)) return;
    clearInterval(timer);
    onGone();
  }, STDOUT_READER_CHECK_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

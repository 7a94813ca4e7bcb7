/**
 * The process logger (pino), in the lowest layer so that every layer may log
 * through it: the broker, the embedded cluster host and the CLI. JSON lines
 * for machines; one readable line per entry on a terminal.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** The log level names, lowest-volume first (pino's, with `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** A pino log level name. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A pino logger: JSON lines on stdout, or — when stdout is a terminal — one
 * readable line per entry (`time level msg key=value ...`), without adding
 * pino-pretty as a dependency.
 */
export function createLogger(level: LogLevel, options: { pretty?: boolean; destination?: { write(s: string): unknown } } = {}): Logger {
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  // Synchronous writes: nothing is lost or reordered when the process exits.
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  if (!pretty) return pino({ level }, out);
  const colors = options.destination === undefined && process.stdout.isTTY === true;
  return pino({ level, base: null }, { write: (line: string) => void out.write(formatLogLine(line, colors)) });
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLORS: Readonly<Record<number, string>> = { 10: '\x1b[90m', 20: '\x1b[36m', 30: '\x1b[32m', 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[35m' };

function formatValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return JSON.stringify(v);
}

/** One JSON log line from pino -> `HH:MM:SS.mmm LEVEL [component] msg key=value ...` (and an error's stack). */
export function formatLogLine(json: string, colors = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const { time, level, msg, err, component, ...rest } = entry;
  const t = typeof time === 'number' ? new Date(time) : new Date();
  const hh = (n: number, w = 2): string => String(n).padStart(w, '0');
  const clock = `${hh(t.getHours())}:${hh(t.getMinutes())}:${hh(t.getSeconds())}.${hh(t.getMilliseconds(), 3)}`;
  const levelNumber = typeof level === 'number' ? level : 30;
  const name = (LEVEL_NAMES[levelNumber] ?? String(level)).padEnd(5);
  const shownLevel = colors ? `${LEVEL_COLORS[levelNumber] ?? ''}${name}\x1b[0m` : name;
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${formatValue(v)}`);
  const shownComponent = typeof component === 'string' ? `[${component}]` : '';
  let line = [clock, shownLevel, shownComponent, typeof msg === 'string' ? msg : '', ...fields].filter((s) => s !== '').join(' ');
  if (typeof err === 'object' && err !== null) {
    const e = err as { message?: unknown; stack?: unknown };
    line += `\n    ${String(e.stack ?? e.message ?? JSON.stringify(err)).split('\n').join('\n    ')}`;
  }
  return `${line}\n`;
}

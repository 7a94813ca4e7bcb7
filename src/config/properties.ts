/**
 * A reader for Java `.properties` files, following java.util.Properties#load
 * so Kafka's own server.properties files load unchanged:
 *
 * - a line whose first non-blank character is `#` or `!` is a comment;
 * - the key ends at the first unescaped `=`, `:` or blank; blanks around the
 *   separator are skipped, so `a=b`, `a = b`, `a: b` and `a b` are the same;
 * - a line ending in an odd number of backslashes continues on the next line,
 *   whose leading blanks are dropped;
 * - escapes: `\t \n \r \f`, `\uXXXX`, and `\x` for any other x means x
 *   (so `\=`, `\:`, `\#`, `\ ` and `\\` are literal);
 * - a key with no separator has the empty value; a repeated key keeps the last
 *   value (reported in `duplicates`, because that is usually a mistake).
 *
 * Trailing blanks of a value are kept, as Java does; config parsing trims them.
 */
import type { ConfigProblem } from './errors.js';

export interface PropertyEntry {
  readonly key: string;
  readonly value: string;
  /** 1-based line where the logical line starts. */
  readonly line: number;
}

export interface ParsedProperties {
  /** In file order; a repeated key appears once, at its last line. */
  readonly entries: readonly PropertyEntry[];
  /** Keys set more than once ("log.dirs (lines 3, 9)"). */
  readonly duplicates: readonly { key: string; lines: number[] }[];
  /** Malformed escapes. */
  readonly problems: readonly ConfigProblem[];
}

const BLANK = new Set([' ', '\t', '\f']);

/** Splits into logical lines (joining continuations) with their start line numbers. */
function logicalLines(text: string): { text: string; line: number }[] {
  const natural = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const out: { text: string; line: number }[] = [];
  let i = 0;
  while (i < natural.length) {
    const start = i;
    let current = (natural[i] ?? '').replace(/^[ \t\f]+/, '');
    i++;
    if (current.startsWith('#') || current.startsWith('!')) continue;
    while (endsWithContinuation(current) && i < natural.length) {
      current = current.slice(0, -1) + (natural[i] ?? '').replace(/^[ \t\f]+/, '');
      i++;
    }
    if (endsWithContinuation(current)) current = current.slice(0, -1); // continuation at end of file
    if (current.length > 0) out.push({ text: current, line: start + 1 });
  }
  return out;
}

function endsWithContinuation(s: string): boolean {
  let n = 0;
  for (let j = s.length - 1; j >= 0 && s[j] === '\\'; j--) n++;
  return n % 2 === 1;
}

/** Index where the key ends (first unescaped separator or blank), or the line length. */
function keyEnd(line: string): number {
  for (let j = 0; j < line.length; j++) {
    const c = line[j] ?? '';
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === '=' || c === ':' || BLANK.has(c)) return j;
  }
  return line.length;
}

/** Index where the value starts: skip blanks, at most one `=`/`:`, then blanks. */
function valueStart(line: string, from: number): number {
  let j = from;
  while (j < line.length && BLANK.has(line[j] ?? '')) j++;
  if (line[j] === '=' || line[j] === ':') j++;
  while (j < line.length && BLANK.has(line[j] ?? '')) j++;
  return j;
}

const ESCAPES: Readonly<Record<string, string>> = { t: '\t', n: '\n', r: '\r', f: '\f' };

/** Resolves escapes; throws a plain Error with a description on a bad `\u`. */
export function unescapeProperty(s: string): string {
  let out = '';
  for (let j = 0; j < s.length; j++) {
    const c = s[j] ?? '';
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = s[j + 1];
    j++;
    if (next === undefined) break;
    if (next === 'u') {
      const hex = s.slice(j + 1, j + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Error(`malformed \\uXXXX escape "\\u${hex}"`);
      out += String.fromCharCode(parseInt(hex, 16));
      j += 4;
    } else {
      out += ESCAPES[next] ?? next;
    }
  }
  return out;
}

/** Parses the text of a properties file. `origin` names it in problems (e.g. the path). */
export function parseProperties(text: string, origin = 'properties'): ParsedProperties {
  const byKey = new Map<string, PropertyEntry>();
  const seenLines = new Map<string, number[]>();
  const problems: ConfigProblem[] = [];
  for (const { text: line, line: lineNo } of logicalLines(text)) {
    const end = keyEnd(line);
    let key: string;
    let value: string;
    try {
      key = unescapeProperty(line.slice(0, end));
      value = unescapeProperty(line.slice(valueStart(line, end)));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      problems.push({ key: line.slice(0, end), message: `${line.slice(0, end)}: ${reason}`, origin: `${origin}:${lineNo}` });
      continue;
    }
    byKey.delete(key); // re-insert so the entry sits at its last position
    byKey.set(key, { key, value, line: lineNo });
    seenLines.set(key, [...(seenLines.get(key) ?? []), lineNo]);
  }
  const duplicates = [...seenLines].filter(([, lines]) => lines.length > 1).map(([key, lines]) => ({ key, lines }));
  return { entries: [...byKey.values()], duplicates, problems };
}

/** Escapes a key or value for writing back to a properties file. */
export function escapeProperty(s: string, isKey: boolean): string {
  let out = '';
  for (let j = 0; j < s.length; j++) {
    const c = s[j] ?? '';
    if (c === '\\') out += '\\\\';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c === '\f') out += '\\f';
    else if (c === '=' || c === ':' || c === '#' || c === '!') out += `\\${c}`;
    else if (c === ' ' && (isKey || j === 0)) out += '\\ ';
    else out += c;
  }
  return out;
}

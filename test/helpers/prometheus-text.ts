/**
 * A small parser for the Prometheus text exposition format (0.0.4), strict
 * enough that a formatting mistake in our exporter fails a test: HELP and
 * TYPE lines (with their escapes), samples with labels (escaped `\\`, `\"`,
 * `\n`), values including NaN and ±Inf, optional timestamps. Histogram and
 * summary samples (`_bucket`, `_sum`, `_count`) belong to their family.
 *
 *   const m = parsePrometheusText(await (await fetch(url)).text());
 *   value(m, 'tributary_topic_bytes_in_total', { topic: 'orders' })
 *   histogram(m, 'tributary_request_latency_seconds', { api: 'Produce', version: '7' })
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly timestampMs?: number;
}

export interface MetricFamily {
  readonly name: string;
  help: string | null;
  type: string;
  readonly samples: Sample[];
}

export type Metrics = ReadonlyMap<string, MetricFamily>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class PrometheusParseError extends Error {
  constructor(lineNumber: number, line: string, why: string) {
    super(`line ${lineNumber}: ${why}: ${JSON.stringify(line)}`);
  }
}

export function parsePrometheusText(text: string): Metrics {
  const families = new Map<string, MetricFamily>();
  const family = (name: string): MetricFamily => {
    let f = families.get(name);
    if (!f) {
      f = { name, help: null, type: 'untyped', samples: [] };
      families.set(name, f);
    }
    return f;
  };
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!m) return; // other comments are allowed
      const [, kind, name = '', rest = ''] = m;
      if (!NAME.test(name) || NAME.exec(name)?.[0] !== name) throw new PrometheusParseError(n, line, 'bad metric name');
      const f = family(name);
      if (kind === 'HELP') {
        if (f.help !== null) throw new PrometheusParseError(n, line, 'second HELP');
        f.help = unescape(rest, false, n, line);
      } else {
        if (!TYPES.has(rest)) throw new PrometheusParseError(n, line, 'unknown type');
        if (f.samples.length > 0) throw new PrometheusParseError(n, line, 'TYPE after samples');
        f.type = rest;
      }
      return;
    }
    const sample = parseSample(line, n);
    family(familyOf(sample.name, families)).samples.push(sample);
  });
  return families;
}

/** `x_bucket` belongs to family `x` when `x` is a histogram (or summary), and so on. */
function familyOf(name: string, families: ReadonlyMap<string, MetricFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = families.get(name.slice(0, -suffix.length));
    if (base && (base.type === 'histogram' || (base.type === 'summary' && suffix !== '_bucket'))) return base.name;
  }
  return name;
}

function parseSample(line: string, n: number): Sample {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) throw new PrometheusParseError(n, line, 'no metric name');
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos++;
    for (;;) {
      while (line[pos] === ' ') pos++;
      if (line[pos] === '}') {
        pos++;
        break;
      }
      const labelName = LABEL_NAME.exec(line.slice(pos))?.[0];
      if (labelName === undefined) throw new PrometheusParseError(n, line, `bad label name at ${pos}`);
      pos += labelName.length;
      if (line[pos] !== '=' || line[pos + 1] !== '"') throw new PrometheusParseError(n, line, `expected =" at ${pos}`);
      pos += 2;
      let raw = '';
      while (pos < line.length && line[pos] !== '"') {
        if (line[pos] === '\\') {
          raw += line.slice(pos, pos + 2);
          pos += 2;
        } else {
          raw += line[pos];
          pos++;
        }
      }
      if (line[pos] !== '"') throw new PrometheusParseError(n, line, 'unterminated label value');
      pos++;
      if (labelName in labels) throw new PrometheusParseError(n, line, `duplicate label ${labelName}`);
      labels[labelName] = unescape(raw, true, n, line);
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new PrometheusParseError(n, line, `expected , or } at ${pos}`);
    }
  }
  const rest = line.slice(pos).trim().split(/\s+/);
  if (line[pos] !== ' ' || rest.length < 1 || rest.length > 2) throw new PrometheusParseError(n, line, 'expected " value [timestamp]"');
  const value = parseValue(rest[0] ?? '', n, line);
  if (rest.length === 2) {
    const ts = Number(rest[1]);
    if (!Number.isInteger(ts)) throw new PrometheusParseError(n, line, 'bad timestamp');
    return { name, labels, value, timestampMs: ts };
  }
  return { name, labels, value };
}

function parseValue(s: string, n: number, line: string): number {
  // Go's strconv.ParseFloat, which Prometheus uses: NaN and Inf/Infinity in any case, with a sign (prom-client writes "Nan").
  const special = /^([-+]?)(nan|inf|infinity)$/i.exec(s);
  if (special) return special[2]?.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new PrometheusParseError(n, line, `bad value ${s}`);
  return Number(s);
}

/** HELP escapes `\\` and `\n`; label values also `\"`. Anything else after a backslash is an error. */
function unescape(s: string, labelValue: boolean, n: number, line: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = s[++i];
    if (next === '\\') out += '\\';
    else if (next === 'n') out += '\n';
    else if (next === '"' && labelValue) out += '"';
    else throw new PrometheusParseError(n, line, `bad escape \\${next ?? ''}`);
  }
  return out;
}

// ---------------------------------------------------------------- lookups

function matches(sample: Sample, labels: Readonly<Record<string, string | number>>): boolean {
  return Object.entries(labels).every(([k, v]) => sample.labels[k] === String(v));
}

/** Samples named `name` whose labels include `labels`. */
export function samples(m: Metrics, name: string, labels: Readonly<Record<string, string | number>> = {}): Sample[] {
  const f = m.get(familyOf(name, m));
  return (f?.samples ?? []).filter((s) => s.name === name && matches(s, labels));
}

/** The one sample of `name` with these labels; undefined when absent; throws when several match. */
export function value(m: Metrics, name: string, labels: Readonly<Record<string, string | number>> = {}): number | undefined {
  const found = samples(m, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** Sum over every sample of `name` whose labels include `labels`. */
export function sum(m: Metrics, name: string, labels: Readonly<Record<string, string | number>> = {}): number {
  return samples(m, name, labels).reduce((a, s) => a + s.value, 0);
}

export interface HistogramSeries {
  /** Cumulative counts by upper bound, ascending; the last is +Inf. */
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

/** One histogram series, checked: buckets ascending and cumulative, +Inf equal to _count. */
export function histogram(m: Metrics, name: string, labels: Readonly<Record<string, string | number>>): HistogramSeries | undefined {
  const f = m.get(name);
  if (!f || f.type !== 'histogram') throw new Error(`${name} is not a histogram family`);
  const buckets = samples(m, `${name}_bucket`, labels)
    .map((s) => ({ le: parseValue(s.labels['le'] ?? 'x', 0, 'le label'), count: s.value }))
    .sort((a, b) => a.le - b.le);
  const sumValue = value(m, `${name}_sum`, labels);
  const countValue = value(m, `${name}_count`, labels);
  if (buckets.length === 0 && sumValue === undefined && countValue === undefined) return undefined;
  if (sumValue === undefined || countValue === undefined) throw new Error(`${name} ${JSON.stringify(labels)}: _sum or _count missing`);
  const last = buckets[buckets.length - 1];
  if (!last || last.le !== Infinity) throw new Error(`${name} ${JSON.stringify(labels)}: no +Inf bucket`);
  if (last.count !== countValue) throw new Error(`${name} ${JSON.stringify(labels)}: +Inf bucket ${last.count} != _count ${countValue}`);
  for (let i = 1; i < buckets.length; i++) {
    if ((buckets[i] as { count: number }).count < (buckets[i - 1] as { count: number }).count) throw new Error(`${name}: buckets are not cumulative`);
  }
  return { buckets, sum: sumValue, count: countValue };
}

/** GETs `url` and parses it; asserts 200 and the Prometheus content type. */
export async function scrape(url: string): Promise<Metrics> {
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain') || !type.includes('version=0.0.4')) throw new Error(`GET ${url}: content-type ${type}`);
  return parsePrometheusText(body);
}

/**
 * JSON text written as Kafka's JsonConverter writes it (Jackson defaults),
 * so our bytes equal Kafka's: no blanks, object keys in insertion order,
 * floats and doubles as Java's `Float.toString`/`Double.toString` (`1.0`,
 * `1.0E10`, `1.5E-4`), control characters escaped with upper-case hex
 * (`\u001F`), non-ASCII characters and `/` left as they are.
 */

/** A JSON tree whose numbers remember whether Java would write them as integers or floats. */
export type JsonNode = null | boolean | string | JsonNumber | JsonNode[] | { [key: string]: JsonNode };

export class JsonNumber {
  constructor(
    readonly value: number,
    readonly kind: 'int' | 'float' | 'double',
  ) {}
}

const CONTROL_ESCAPE = /\\(?:\\|u([0-9a-f]{4}))/g;

export function javaString(s: string): string {
  return JSON.stringify(s).replace(CONTROL_ESCAPE, (m, hex: string | undefined) => (hex === undefined ? m : `\\u${hex.toUpperCase()}`));
}

/** Java's Double.toString digits and layout for a finite number. */
export function javaDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa = '', exponent = ''] = x.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.startsWith('+') ? exponent.slice(1) : exponent}`;
}

/** Java's Float.toString: the shortest decimal that reads back as the same float32. */
export function javaFloat(x: number): string {
  const f = Math.fround(x);
  if (!Number.isFinite(f) || f === 0) return javaDouble(f);
  for (let p = 1; p <= 9; p++) {
    const v = Number(f.toPrecision(p));
    if (Math.fround(v) === f) return javaDouble(v);
  }
  return javaDouble(f);
}

function numberText(n: JsonNumber): string {
  if (n.kind === 'int') return String(n.value);
  // Jackson writes non-finite numbers quoted (QUOTE_NON_NUMERIC_NUMBERS is on by default).
  if (!Number.isFinite(n.value)) return `"${javaDouble(n.value)}"`;
  return n.kind === 'float' ? javaFloat(n.value) : javaDouble(n.value);
}

export function writeJson(node: JsonNode): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return node ? 'true' : 'false';
  if (typeof node === 'string') return javaString(node);
  if (node instanceof JsonNumber) return numberText(node);
  if (Array.isArray(node)) return `[${node.map(writeJson).join(',')}]`;
  return `{${Object.entries(node)
    .map(([k, v]) => `${javaString(k)}:${writeJson(v)}`)
    .join(',')}}`;
}

/** A JS value from JSON.parse (or a schemaless Connect value) as a tree: integers stay integers, other numbers are doubles. */
export function toJsonNode(value: unknown): JsonNode {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return new JsonNumber(value, Number.isInteger(value) ? 'int' : 'double');
  if (typeof value === 'bigint') return new JsonNumber(Number(value), 'int');
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(toJsonNode);
  if (typeof value === 'object') {
    const out: { [key: string]: JsonNode } = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJsonNode(v);
    return out;
  }
  return String(value);
}

/**
 * Topic routers (Kafka's RegexRouter and TimestampRouter): RegexRouter
 * renames a topic that matches `regex` as a whole to `replacement` (`$1`
 * group references); TimestampRouter sets the topic to `topic.format` with
 * `${topic}` and `${timestamp}` (the record timestamp in
 * `timestamp.format`, a java.text.SimpleDateFormat pattern, in UTC).
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';
import { DataError } from '../data/schema.js';
import { withChanges, type ConnectRecord } from '../spi.js';
import type { Transformation } from './transformation.js';

const REGEX_DEF = new ConfigDef()
  .define({ name: 'regex', type: 'STRING', importance: 'HIGH', documentation: 'Regular expression to use for matching.', validator: Validators.regex() })
  .define({ name: 'replacement', type: 'STRING', importance: 'HIGH', documentation: 'Replacement string.' });

export class RegexRouter implements Transformation {
  private regex = /^$/;
  private replacement = '';

  config(): ConfigDef {
    return REGEX_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const c = ParsedConfig.of(REGEX_DEF, props);
    // Java's Matcher.matches() matches the whole topic name.
    this.regex = new RegExp(`^(?:${c.string('regex')})$`);
    this.replacement = c.string('replacement');
  }

  apply<R extends ConnectRecord>(record: R): R | null {
    if (!this.regex.test(record.topic)) return record;
    return withChanges(record, { topic: record.topic.replace(this.regex, this.replacement) });
  }
}

const TIMESTAMP_DEF = new ConfigDef()
  .define({ name: 'topic.format', type: 'STRING', defaultValue: '${topic}-${timestamp}', importance: 'HIGH', documentation: 'Format string which can contain ${topic} and ${timestamp} as placeholders for the topic and timestamp, respectively.' })
  .define({ name: 'timestamp.format', type: 'STRING', defaultValue: 'yyyyMMdd', importance: 'HIGH', documentation: 'Format string for the timestamp that is compatible with java.text.SimpleDateFormat.' });

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** The SimpleDateFormat letters topics use: y M d H h m s S a E, quotes for literals; UTC. */
export function formatTimestamp(epochMs: number, pattern: string): string {
  const d = new Date(epochMs);
  const fields: Record<string, (count: number) => string> = {
    y: (c) => (c === 2 ? pad(d.getUTCFullYear() % 100, 2) : pad(d.getUTCFullYear(), c)),
    M: (c) => pad(d.getUTCMonth() + 1, c),
    d: (c) => pad(d.getUTCDate(), c),
    H: (c) => pad(d.getUTCHours(), c),
    h: (c) => pad(d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12, c),
    m: (c) => pad(d.getUTCMinutes(), c),
    s: (c) => pad(d.getUTCSeconds(), c),
    S: (c) => pad(d.getUTCMilliseconds(), c),
    a: () => (d.getUTCHours() < 12 ? 'AM' : 'PM'),
  };
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i] ?? '';
    if (ch === "'") {
      const end = pattern.indexOf("'", i + 1);
      const literal = end < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, end);
      out += literal === '' && end === i + 1 ? "'" : literal;
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    let n = 1;
    while (pattern[i + n] === ch) n++;
    const f = fields[ch];
    if (f !== undefined) out += f(n);
    else if (/[A-Za-z]/.test(ch)) throw new DataError(`Unsupported timestamp.format letter ${ch}`);
    else out += ch.repeat(n);
    i += n;
  }
  return out;
}

export class TimestampRouter implements Transformation {
  private topicFormat = '';
  private timestampFormat = '';

  config(): ConfigDef {
    return TIMESTAMP_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const c = ParsedConfig.of(TIMESTAMP_DEF, props);
    this.topicFormat = c.string('topic.format');
    this.timestampFormat = c.string('timestamp.format');
    formatTimestamp(0, this.timestampFormat); // rejects unsupported letters at configure time
  }

  apply<R extends ConnectRecord>(record: R): R | null {
    if (record.timestamp === null) throw new DataError(`Timestamp missing on record: ${record.topic}`);
    const ts = formatTimestamp(record.timestamp, this.timestampFormat);
    return withChanges(record, { topic: this.topicFormat.replaceAll('${topic}', record.topic).replaceAll('${timestamp}', ts) });
  }
}

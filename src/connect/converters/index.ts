/** Converters by Kafka class name or short name (`org.apache.kafka.connect.json.JsonConverter`, `JsonConverter`). */
import type { Converter, ConverterClass } from './converter.js';
import { JsonConverter } from './json.js';
import { ByteArrayConverter, StringConverter } from './simple.js';

export type { Converter, ConverterClass, SchemaAndValue } from './converter.js';
export { JsonConverter } from './json.js';
export { ByteArrayConverter, StringConverter } from './simple.js';

export const BUILTIN_CONVERTERS: ReadonlyMap<string, ConverterClass> = new Map<string, ConverterClass>([
  ['org.apache.kafka.connect.json.JsonConverter', JsonConverter],
  ['org.apache.kafka.connect.storage.StringConverter', StringConverter],
  ['org.apache.kafka.connect.converters.ByteArrayConverter', ByteArrayConverter],
]);

/** Strips `prefix` from the keys that have it (`value.converter.schemas.enable` -> `schemas.enable`). */
export function withPrefix(props: Readonly<Record<string, string>>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out;
}

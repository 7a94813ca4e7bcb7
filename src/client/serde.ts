/**
 * Deserializers: how the Consumer turns a record's key and value bytes into
 * the types the application reads (the Producer's serializers are in
 * producer-types.ts). A deserializer gets the bytes (a zero-copy view into
 * the fetch response, or null) and the record's place; what it returns is
 * the record's `key` or `value`. One that throws fails the batch with
 * ERR_TRIB_DESERIALIZATION (`cause` is its error).
 */
export interface DeserializerContext {
  topic: string;
  partition: number;
  /** Whether the bytes are the record's key (else its value). */
  isKey: boolean;
}

/** Turns a record's key or value bytes (null when absent) into what the application reads. */
export type Deserializer<T> = (data: Buffer | null, context: DeserializerContext) => T;

const bufferDeserializer: Deserializer<Buffer | null> = (data) => data;
const stringDeserializer: Deserializer<string | null> = (data) => (data === null ? null : data.toString('utf8'));
const jsonDeserializer: Deserializer<unknown> = (data) => (data === null || data.length === 0 ? null : (JSON.parse(data.toString('utf8')) as unknown));

export const deserializers = {
  /** The bytes as they are (a view into the fetch response: copy them to keep them long). The default. */
  buffer: bufferDeserializer,
  /** UTF-8 text; null stays null. */
  string: stringDeserializer,
  /** JSON.parse of the UTF-8 text; null and empty bytes give null. */
  json: jsonDeserializer,
} as const;

/**
 * The Converter interface (Kafka's `org.apache.kafka.connect.storage.Converter`):
 * Connect data to the bytes of a Kafka record key or value and back.
 * `configure` gets the converter's own settings with the worker's or
 * connector's `key.converter.`/`value.converter.` prefix removed.
 */
import type { Schema } from '../data/schema.js';

export interface SchemaAndValue {
  readonly schema: Schema | null;
  readonly value: unknown;
}

export const NULL_SCHEMA_AND_VALUE: SchemaAndValue = { schema: null, value: null };

export interface Converter {
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void;
  fromConnectData(topic: string, schema: Schema | null, value: unknown): Buffer | null;
  toConnectData(topic: string, bytes: Buffer | null): SchemaAndValue;
}

export type ConverterClass = new () => Converter;

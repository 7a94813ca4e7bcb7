/**
 * StringConverter and ByteArrayConverter, as Kafka's: UTF-8 text (any value
 * is written with its string form) and raw bytes (a `bytes` schema or none).
 */
import { DataError, Schemas, type Schema } from '../data/schema.js';
import { NULL_SCHEMA_AND_VALUE, type Converter, type SchemaAndValue } from './converter.js';

export class StringConverter implements Converter {
  private encoding: BufferEncoding = 'utf8';

  configure(props: Readonly<Record<string, string>>, _isKey = false): void {
    const name = (props['converter.encoding'] ?? 'UTF-8').toLowerCase().replace('-', '');
    if (name === 'utf8') this.encoding = 'utf8';
    else if (name === 'iso88591' || name === 'latin1') this.encoding = 'latin1';
    else if (name === 'usascii' || name === 'ascii') this.encoding = 'ascii';
    else if (name === 'utf16le') this.encoding = 'utf16le';
    else throw new DataError(`Unsupported converter.encoding ${props['converter.encoding'] ?? ''}`);
  }

  fromConnectData(_topic: string, _schema: Schema | null, value: unknown): Buffer | null {
    if (value === null || value === undefined) return null;
    const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString(this.encoding) : stringForm(value);
    return Buffer.from(text, this.encoding);
  }

  toConnectData(_topic: string, bytes: Buffer | null): SchemaAndValue {
    if (bytes === null) return { schema: Schemas.string({ optional: true }), value: null };
    return { schema: Schemas.string({ optional: true }), value: bytes.toString(this.encoding) };
  }
}

/** Java's toString of a Connect value (maps and structs in the manner of their Java forms, roughly). */
function stringForm(value: unknown): string {
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

export class ByteArrayConverter implements Converter {
  configure(_props: Readonly<Record<string, string>> = {}, _isKey = false): void {}

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Buffer | null {
    if (schema !== null && schema.type !== 'bytes') throw new DataError(`Invalid schema type for ByteArrayConverter: ${schema.type.toUpperCase()}`);
    if (value === null || value === undefined) return null;
    if (!Buffer.isBuffer(value)) throw new DataError(`ByteArrayConverter is not compatible with objects of type ${typeof value}`);
    return value;
  }

  toConnectData(_topic: string, bytes: Buffer | null): SchemaAndValue {
    return bytes === null ? { ...NULL_SCHEMA_AND_VALUE, schema: Schemas.bytes({ optional: true }) } : { schema: Schemas.bytes({ optional: true }), value: bytes };
  }
}

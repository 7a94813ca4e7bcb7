/**
 * JsonConverter, byte-compatible with Kafka's
 * `org.apache.kafka.connect.json.JsonConverter`: with `schemas.enable=true`
 * (the default) each record is the envelope `{"schema":...,"payload":...}`,
 * without it the bare payload. A null value gives null bytes (a tombstone)
 * when there is no schema, as Kafka does.
 */
import { DataError, type Schema } from '../data/schema.js';
import { NULL_SCHEMA_AND_VALUE, type Converter, type SchemaAndValue } from './converter.js';
import { writeJson } from './java-json.js';
import { schemaFromJson, schemaToJson } from './json-schema.js';
import { valueFromJson, valueToJson } from './json-values.js';

const ENVELOPE_ERROR =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. ' +
  'If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';

export class JsonConverter implements Converter {
  private schemasEnabled = true;
  private replaceNullWithDefault = true;

  configure(props: Readonly<Record<string, string>>, _isKey = false): void {
    this.schemasEnabled = (props['schemas.enable'] ?? 'true').trim().toLowerCase() !== 'false';
    this.replaceNullWithDefault = (props['replace.null.with.default'] ?? 'true').trim().toLowerCase() !== 'false';
    const format = props['decimal.format'];
    if (format !== undefined && format.toUpperCase() !== 'BASE64') throw new DataError(`decimal.format ${format} is not supported (BASE64 only)`);
  }

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Buffer | null {
    if (schema === null && (value === null || value === undefined)) return null;
    const payload = valueToJson(schema, value, this.replaceNullWithDefault);
    const node = this.schemasEnabled ? { schema: schema === null ? null : schemaToJson(schema), payload } : payload;
    return Buffer.from(writeJson(node), 'utf8');
  }

  toConnectData(_topic: string, bytes: Buffer | null): SchemaAndValue {
    if (bytes === null || bytes.length === 0) return NULL_SCHEMA_AND_VALUE;
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new DataError(`Converting byte[] to Kafka Connect data failed due to serialization error: ${(err as Error).message}`);
    }
    if (!this.schemasEnabled) return { schema: null, value: json };
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new DataError(ENVELOPE_ERROR);
    const keys = Object.keys(json);
    if (keys.length !== 2 || !('schema' in json) || !('payload' in json)) throw new DataError(ENVELOPE_ERROR);
    const envelope = json as { schema: unknown; payload: unknown };
    if (envelope.schema === null) return { schema: null, value: envelope.payload };
    const schema = schemaFromJson(envelope.schema);
    return { schema, value: valueFromJson(schema, envelope.payload) };
  }
}

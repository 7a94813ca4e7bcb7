/**
 * Header transforms (Kafka's HeaderFrom, InsertHeader, DropHeaders):
 * HeaderFrom$Key/$Value copies or moves fields into headers; InsertHeader
 * adds a header with a literal value (typed as Kafka's Values.parseString
 * would: boolean, integer, double or string); DropHeaders removes headers
 * by name.
 */
import { ConfigDef, ConfigException, ParsedConfig, Validators } from '../config-def.js';
import { Schemas, Struct, fieldOf, type Schema } from '../data/schema.js';
import { withChanges, type ConnectHeader, type ConnectRecord } from '../spi.js';
import { keyValuePair, requireMap, requireStruct, structWithBasics, type Operand, type Transformation } from './transformation.js';

const HEADER_FROM_DEF = new ConfigDef()
  .define({ name: 'fields', type: 'LIST', importance: 'HIGH', documentation: 'Field names in the record whose values are to be copied or moved to headers.', validator: Validators.nonEmptyList() })
  .define({ name: 'headers', type: 'LIST', importance: 'HIGH', documentation: 'Header names, in the same order as the field names listed in the fields configuration property.', validator: Validators.nonEmptyList() })
  .define({ name: 'operation', type: 'STRING', importance: 'HIGH', documentation: 'Either move if the fields are to be moved to the headers (removed from the key/value), or copy if the fields are to be copied to the headers (retained in the key/value).', validator: Validators.in('move', 'copy'), recommendedValues: ['move', 'copy'] })
  .define({ name: 'replace.null.with.default', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', documentation: 'Whether to replace fields that have a default value and that are null to the default value.' });

function makeHeaderFrom(operand: Operand): new () => Transformation {
  return class HeaderFrom implements Transformation {
    private fields: string[] = [];
    private headers: string[] = [];
    private move = false;

    config(): ConfigDef {
      return HEADER_FROM_DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      const c = ParsedConfig.of(HEADER_FROM_DEF, props);
      this.fields = c.list('fields');
      this.headers = c.list('headers');
      this.move = c.string('operation') === 'move';
      if (this.fields.length !== this.headers.length) throw new ConfigException("'fields' config must have the same number of elements as 'headers' config.");
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      const schema = operand.schema(record);
      const added: ConnectHeader[] = [];
      if (schema === null) {
        const map = requireMap(value, 'header ' + (this.move ? 'move' : 'copy'));
        this.fields.forEach((f, i) => added.push({ key: this.headers[i] ?? f, schema: null, value: map[f] ?? null }));
        const rest = { ...map };
        if (this.move) for (const f of this.fields) delete rest[f];
        return withChanges(operand.with(record, null, this.move ? rest : map), { headers: [...record.headers, ...added] });
      }
      const struct = requireStruct(value, 'header ' + (this.move ? 'move' : 'copy'));
      this.fields.forEach((f, i) => {
        const field = fieldOf(schema, f);
        added.push({ key: this.headers[i] ?? f, schema: field?.schema ?? null, value: struct.get(f) });
      });
      if (!this.move) return withChanges(record, { headers: [...record.headers, ...added] });
      const kept = (schema.fields ?? []).filter((f) => !this.fields.includes(f.name));
      const newSchema: Schema = structWithBasics(schema, kept.map((f) => [f.name, f.schema] as const), schema.optional);
      const out = new Struct(newSchema);
      for (const f of kept) out.put(f.name, struct.get(f.name));
      return withChanges(operand.with(record, newSchema, out), { headers: [...record.headers, ...added] });
    }
  };
}

export const HeaderFrom = keyValuePair(makeHeaderFrom);

/** A literal typed as Kafka's Values.parseString types simple literals. */
export function parseLiteral(text: string): { schema: Schema; value: unknown } {
  const t = text.trim();
  if (t === 'true' || t === 'false') return { schema: Schemas.boolean(), value: t === 'true' };
  if (/^-?\d+$/.test(t)) {
    const n = Number(t);
    if (n >= -128 && n <= 127) return { schema: Schemas.int8(), value: n };
    if (n >= -32768 && n <= 32767) return { schema: Schemas.int16(), value: n };
    if (n >= -(2 ** 31) && n < 2 ** 31) return { schema: Schemas.int32(), value: n };
    if (Number.isSafeInteger(n)) return { schema: Schemas.int64(), value: n };
  }
  if (/^-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(t)) return { schema: Schemas.float64(), value: Number(t) };
  return { schema: Schemas.string(), value: text };
}

const INSERT_HEADER_DEF = new ConfigDef()
  .define({ name: 'header', type: 'STRING', importance: 'HIGH', documentation: 'The name of the header.', validator: Validators.nonEmptyString() })
  .define({ name: 'value.literal', type: 'STRING', importance: 'HIGH', documentation: 'The literal value that is to be set as the header value on all records.' });

export class InsertHeader implements Transformation {
  private header: ConnectHeader = { key: '', schema: null, value: null };

  config(): ConfigDef {
    return INSERT_HEADER_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const c = ParsedConfig.of(INSERT_HEADER_DEF, props);
    this.header = { key: c.string('header'), ...parseLiteral(c.string('value.literal')) };
  }

  apply<R extends ConnectRecord>(record: R): R | null {
    return withChanges(record, { headers: [...record.headers, this.header] });
  }
}

const DROP_HEADERS_DEF = new ConfigDef().define({ name: 'headers', type: 'LIST', importance: 'HIGH', documentation: 'The name of the headers to be removed.', validator: Validators.nonEmptyList() });

export class DropHeaders implements Transformation {
  private names = new Set<string>();

  config(): ConfigDef {
    return DROP_HEADERS_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.names = new Set(ParsedConfig.of(DROP_HEADERS_DEF, props).list('headers'));
  }

  apply<R extends ConnectRecord>(record: R): R | null {
    return withChanges(record, { headers: record.headers.filter((h) => !this.names.has(h.key)) });
  }
}

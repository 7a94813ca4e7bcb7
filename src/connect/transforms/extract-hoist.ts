/**
 * ExtractField and HoistField, each other's inverse (Kafka's transforms of
 * the same names): ExtractField replaces a struct or map with one of its
 * fields; HoistField wraps the key or value in a struct or map with one field.
 * ValueToKey builds the key from fields of the value.
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';
import { DataError, Schemas, Struct, fieldOf, type Schema } from '../data/schema.js';
import { withChanges, type ConnectRecord } from '../spi.js';
import { VALUE, keyValuePair, requireMap, requireStruct, type Operand, type Transformation } from './transformation.js';

const FIELD_DEF = (doc: string): ConfigDef =>
  new ConfigDef().define({ name: 'field', type: 'STRING', importance: 'MEDIUM', documentation: doc, validator: Validators.nonEmptyString() });

const EXTRACT_DEF = FIELD_DEF('Field name to extract.');
const HOIST_DEF = FIELD_DEF('Field name for the single field that will be created in the resulting Struct or Map.');

function makeExtract(operand: Operand): new () => Transformation {
  return class ExtractField implements Transformation {
    private field = '';

    config(): ConfigDef {
      return EXTRACT_DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      this.field = ParsedConfig.of(EXTRACT_DEF, props).string('field');
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      const schema = operand.schema(record);
      if (schema === null) {
        if (value === null || value === undefined) return operand.with(record, null, null);
        return operand.with(record, null, requireMap(value, 'field extraction')[this.field] ?? null);
      }
      const field = fieldOf(schema, this.field);
      if (field === undefined) throw new DataError(`Unknown field: ${this.field}`);
      const v = value === null || value === undefined ? null : requireStruct(value, 'field extraction').get(this.field);
      return operand.with(record, field.schema, v);
    }
  };
}

function makeHoist(operand: Operand): new () => Transformation {
  return class HoistField implements Transformation {
    private field = '';

    config(): ConfigDef {
      return HOIST_DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      this.field = ParsedConfig.of(HOIST_DEF, props).string('field');
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      const schema = operand.schema(record);
      if (schema === null) return operand.with(record, null, { [this.field]: value });
      const wrapped = Schemas.struct([[this.field, schema]]);
      return operand.with(record, wrapped, new Struct(wrapped).put(this.field, value));
    }
  };
}

export const ExtractField = keyValuePair(makeExtract);
export const HoistField = keyValuePair(makeHoist);

const VALUE_TO_KEY_DEF = new ConfigDef()
  .define({ name: 'fields', type: 'LIST', importance: 'HIGH', documentation: 'Field names on the record value to extract as the record key.', validator: Validators.nonEmptyList() })
  .define({ name: 'replace.null.with.default', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', documentation: 'Whether to replace fields that have a default value and that are null to the default value.' });

/** ValueToKey (Kafka's): the key becomes a struct or map of the listed value fields. */
export class ValueToKey implements Transformation {
  private fields: string[] = [];

  config(): ConfigDef {
    return VALUE_TO_KEY_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.fields = ParsedConfig.of(VALUE_TO_KEY_DEF, props).list('fields');
  }

  apply<R extends ConnectRecord>(record: R): R | null {
    const schema = VALUE.schema(record);
    const value = VALUE.value(record);
    if (schema === null) {
      const map = requireMap(value, 'copying fields from value to key');
      const key: Record<string, unknown> = {};
      for (const f of this.fields) key[f] = map[f] ?? null;
      return withChanges(record, { keySchema: null, key });
    }
    const struct = requireStruct(value, 'copying fields from value to key');
    const keyFields: [string, Schema][] = this.fields.map((f) => {
      const field = fieldOf(schema, f);
      if (field === undefined) throw new DataError(`Field does not exist: ${f}`);
      return [f, field.schema];
    });
    const keySchema = Schemas.struct(keyFields);
    const key = new Struct(keySchema);
    for (const f of this.fields) key.put(f, struct.get(f));
    return withChanges(record, { keySchema, key });
  }
}

/**
 * ReplaceField$Key / ReplaceField$Value (Kafka's ReplaceField): keeps the
 * fields in `include` (all when empty) minus those in `exclude`, and renames
 * with `renames=old:new,...`. The deprecated `blacklist`/`whitelist` names are
 * accepted as synonyms. Tombstones pass unchanged.
 */
import { ConfigDef, ConfigException, ParsedConfig, invalidValue } from '../config-def.js';
import { Struct, type Schema } from '../data/schema.js';
import type { ConnectRecord } from '../spi.js';
import { keyValuePair, requireMap, requireStruct, structWithBasics, type Operand, type Transformation } from './transformation.js';

const PURPOSE = 'field replacement';

const DEF = new ConfigDef()
  .define({ name: 'exclude', type: 'LIST', defaultValue: [], importance: 'MEDIUM', documentation: 'Fields to exclude. This takes precedence over the fields to include.' })
  .define({ name: 'include', type: 'LIST', defaultValue: [], importance: 'MEDIUM', documentation: 'Fields to include. If specified, only these fields will be used.' })
  .define({
    name: 'renames',
    type: 'LIST',
    defaultValue: [],
    importance: 'MEDIUM',
    documentation: 'Field rename mappings.',
    validator: (name, value) => {
      for (const pair of Array.isArray(value) ? value : []) {
        if (pair.split(':').length !== 2) throw invalidValue(name, value, 'Invalid rename mapping: ' + pair);
      }
    },
  })
  .define({ name: 'blacklist', type: 'LIST', defaultValue: null, importance: 'LOW', documentation: 'Deprecated. Use exclude instead.' })
  .define({ name: 'whitelist', type: 'LIST', defaultValue: null, importance: 'LOW', documentation: 'Deprecated. Use include instead.' })
  .define({ name: 'replace.null.with.default', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', documentation: 'Whether to replace fields that have a default value and that are null to the default value.' });

function make(operand: Operand): new () => Transformation {
  return class ReplaceField implements Transformation {
    private exclude = new Set<string>();
    private include = new Set<string>();
    private renames = new Map<string, string>();

    config(): ConfigDef {
      return DEF;
    }

    configure(props: Readonly<Record<string, string>>): void {
      const c = ParsedConfig.of(DEF, props);
      this.exclude = new Set(c.list(props.exclude === undefined && props.blacklist !== undefined ? 'blacklist' : 'exclude'));
      this.include = new Set(c.list(props.include === undefined && props.whitelist !== undefined ? 'whitelist' : 'include'));
      for (const pair of c.list('renames')) {
        const [from = '', to = ''] = pair.split(':');
        if (from === '' || to === '') throw new ConfigException(`Invalid rename mapping: ${pair}`);
        this.renames.set(from, to);
      }
    }

    private keep(name: string): boolean {
      return !this.exclude.has(name) && (this.include.size === 0 || this.include.has(name));
    }

    private renamed(name: string): string {
      return this.renames.get(name) ?? name;
    }

    apply<R extends ConnectRecord>(record: R): R | null {
      const value = operand.value(record);
      if (value === null || value === undefined) return record;
      const schema = operand.schema(record);
      if (schema === null) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(requireMap(value, PURPOSE))) if (this.keep(k)) out[this.renamed(k)] = v;
        return operand.with(record, null, out);
      }
      const struct = requireStruct(value, PURPOSE);
      const kept = (schema.fields ?? []).filter((f) => this.keep(f.name));
      const newSchema: Schema = structWithBasics(schema, kept.map((f) => [this.renamed(f.name), f.schema] as const));
      const out = new Struct(newSchema);
      for (const f of kept) out.put(this.renamed(f.name), struct.get(f.name));
      return operand.with(record, newSchema, out);
    }
  };
}

export const ReplaceField = keyValuePair(make);

/**
 * Debezium-shaped change events from decoded pgoutput messages.
 *
 * For each table (a pgoutput Relation) the schemas Debezium's PostgreSQL
 * connector uses: key `<prefix>.<schema>.<table>.Key` (the replica identity
 * columns; no key when the table has none), value
 * `<prefix>.<schema>.<table>.Value`, and the envelope
 * `<prefix>.<schema>.<table>.Envelope` with `before`, `after`, `source`
 * (`io.debezium.connector.postgresql.Source`: version, connector, name,
 * ts_ms, snapshot, db, sequence, schema, table, txId, lsn, xmin), `op`
 * (c, u, d, t; r for snapshot reads), `ts_ms` and `transaction`. Value columns other than key
 * columns are optional: pgoutput does not say which are NOT NULL, and a
 * delete's `before` (replica identity DEFAULT) carries only the key.
 * A TOASTed value the server did not resend is Debezium's placeholder
 * `__debezium_unavailable_value` (strings) or null.
 */
import { Schemas, Struct, type Schema } from '../data/schema.js';
import { ConnectError, sourceRecord, type SourceOffset, type SourceRecord } from '../spi.js';
import type { PgOutputMessage, RelationColumn, TupleValue } from './pgoutput.js';
import { columnSchema, decodeText } from './types.js';

export const UNAVAILABLE_VALUE = '__debezium_unavailable_value';
export const DEBEZIUM_VERSION = '2.5.0.Final';

const SOURCE_SCHEMA = Schemas.struct(
  [
    ['version', Schemas.string()],
    ['connector', Schemas.string()],
    ['name', Schemas.string()],
    ['ts_ms', Schemas.int64()],
    ['snapshot', Schemas.string({ optional: true, name: 'io.debezium.data.Enum', version: 1, parameters: { allowed: 'true,last,false,incremental' }, defaultValue: 'false' })],
    ['db', Schemas.string()],
    ['sequence', Schemas.string({ optional: true })],
    ['schema', Schemas.string()],
    ['table', Schemas.string()],
    ['txId', Schemas.int64({ optional: true })],
    ['lsn', Schemas.int64({ optional: true })],
    ['xmin', Schemas.int64({ optional: true })],
  ],
  { name: 'io.debezium.connector.postgresql.Source' },
);

const TRANSACTION_SCHEMA = Schemas.struct(
  [
    ['id', Schemas.string()],
    ['total_order', Schemas.int64()],
    ['data_collection_order', Schemas.int64()],
  ],
  { optional: true, name: 'event.block', version: 1 },
);

interface Table {
  namespace: string;
  name: string;
  topic: string;
  columns: (RelationColumn & { schema: Schema })[];
  keySchema: Schema | null;
  valueSchema: Schema;
  envelope: Schema;
}

/** The transaction a change belongs to, as the envelope's source block tells it. */
export interface ChangeContext {
  lsn: bigint;
  /** null for snapshot reads. */
  txId: number | null;
  commitTimeUs: bigint;
  offset: SourceOffset;
}

/** Builds change event records; holds the tables the stream described (Relation messages). */
export class ChangeEventBuilder {
  private readonly tables = new Map<number, Table>();

  constructor(
    private readonly prefix: string,
    private readonly database: string,
    private readonly includes: (schemaTable: string) => boolean,
  ) {}

  /** Records a Relation message (sent before a table's first change, and again after its definition changed). */
  relation(m: Extract<PgOutputMessage, { tag: 'relation' }>): void {
    const base = `${this.prefix}.${m.namespace}.${m.name}`;
    const columns = m.columns.map((c) => ({ ...c, schema: columnSchema(c.typeOid, c.typmod, !c.isKey, 'debezium') }));
    const keyCols = columns.filter((c) => c.isKey);
    const valueSchema = Schemas.struct(columns.map((c) => [c.name, c.schema] as const), { name: `${base}.Value`, optional: true });
    const envelope = Schemas.struct(
      [
        ['before', valueSchema],
        ['after', valueSchema],
        ['source', SOURCE_SCHEMA],
        ['op', Schemas.string()],
        ['ts_ms', Schemas.int64({ optional: true })],
        ['transaction', TRANSACTION_SCHEMA],
      ],
      { name: `${base}.Envelope`, version: 1 },
    );
    const keySchema = keyCols.length === 0 ? null : Schemas.struct(keyCols.map((c) => [c.name, c.schema] as const), { name: `${base}.Key` });
    this.tables.set(m.relationId, { namespace: m.namespace, name: m.name, topic: base, columns, keySchema, valueSchema, envelope });
  }

  private table(relationId: number): Table {
    const t = this.tables.get(relationId);
    if (t === undefined) throw new ConnectError(`pgoutput sent a change for relation ${relationId} before describing it`);
    return t;
  }

  private row(t: Table, tuple: TupleValue[] | null, schema: Schema): Struct | null {
    if (tuple === null) return null;
    const s = new Struct(schema);
    t.columns.forEach((c, i) => {
      const v = tuple[i] ?? { kind: 'null' };
      if (v.kind === 'text') s.put(c.name, decodeText(c.schema, v.text, c.typeOid));
      else if (v.kind === 'binary') s.put(c.name, v.bytes);
      else if (v.kind === 'unchanged' && c.schema.type === 'string') s.put(c.name, UNAVAILABLE_VALUE);
      else if (!c.isKey) s.put(c.name, null);
    });
    return s;
  }

  private key(t: Table, tuple: TupleValue[]): Struct | null {
    if (t.keySchema === null) return null;
    const k = new Struct(t.keySchema);
    t.columns.forEach((c, i) => {
      const v = tuple[i];
      if (c.isKey && v?.kind === 'text') k.put(c.name, decodeText(c.schema, v.text, c.typeOid));
    });
    return k;
  }

  /** The change records of one Insert, Update or Delete (a delete is followed by a tombstone when asked), or [] for an excluded table. */
  change(m: Extract<PgOutputMessage, { tag: 'insert' | 'update' | 'delete' }>, ctx: ChangeContext, tombstones: boolean): SourceRecord[] {
    const t = this.table(m.relationId);
    if (!this.includes(`${t.namespace}.${t.name}`)) return [];
    const before = m.tag === 'insert' ? null : this.row(t, m.oldTuple ?? m.keyTuple, t.valueSchema);
    const after = m.tag === 'delete' ? null : this.row(t, m.newTuple, t.valueSchema);
    const keyTuple = m.tag === 'delete' ? (m.oldTuple ?? m.keyTuple ?? []) : m.newTuple;
    const key = this.key(t, keyTuple);
    const op = m.tag === 'insert' ? 'c' : m.tag === 'update' ? 'u' : 'd';
    const value = this.envelope(t, ctx, op, before, after);
    const base = { topic: t.topic, sourcePartition: { server: this.prefix }, sourceOffset: ctx.offset, keySchema: t.keySchema, key, timestamp: Number(ctx.commitTimeUs / 1000n) };
    const out = [sourceRecord({ ...base, valueSchema: t.envelope, value })];
    if (op === 'd' && tombstones) out.push(sourceRecord({ ...base, valueSchema: null, value: null }));
    return out;
  }

  /** One truncate event per included table of a Truncate (op t, no before or after). */
  truncate(m: Extract<PgOutputMessage, { tag: 'truncate' }>, ctx: ChangeContext): SourceRecord[] {
    return m.relationIds
      .map((id) => this.table(id))
      .filter((t) => this.includes(`${t.namespace}.${t.name}`))
      .map((t) => sourceRecord({ topic: t.topic, sourcePartition: { server: this.prefix }, sourceOffset: ctx.offset, valueSchema: t.envelope, value: this.envelope(t, ctx, 't', null, null), timestamp: Number(ctx.commitTimeUs / 1000n) }));
  }

  /** The read event (op r) of one snapshot row, a tuple of text values; `snapshot` is 'true', or 'last' for the snapshot's last row. */
  read(relationId: number, tuple: TupleValue[], ctx: ChangeContext, snapshot: 'true' | 'last'): SourceRecord | null {
    const t = this.table(relationId);
    if (!this.includes(`${t.namespace}.${t.name}`)) return null;
    const value = this.envelope(t, ctx, 'r', null, this.row(t, tuple, t.valueSchema), snapshot);
    return sourceRecord({ topic: t.topic, sourcePartition: { server: this.prefix }, sourceOffset: ctx.offset, keySchema: t.keySchema, key: this.key(t, tuple), valueSchema: t.envelope, value, timestamp: Number(ctx.commitTimeUs / 1000n) });
  }

  private envelope(t: Table, ctx: ChangeContext, op: string, before: Struct | null, after: Struct | null, snapshot = 'false'): Struct {
    const source = new Struct(SOURCE_SCHEMA)
      .put('version', DEBEZIUM_VERSION)
      .put('connector', 'postgresql')
      .put('name', this.prefix)
      .put('ts_ms', Number(ctx.commitTimeUs / 1000n))
      .put('snapshot', snapshot)
      .put('db', this.database)
      .put('sequence', JSON.stringify([null, String(ctx.lsn)]))
      .put('schema', t.namespace)
      .put('table', t.name)
      .put('txId', ctx.txId)
      .put('lsn', Number(ctx.lsn))
      .put('xmin', null);
    return new Struct(t.envelope).put('before', before).put('after', after).put('source', source).put('op', op).put('ts_ms', Date.now()).put('transaction', null);
  }
}

/**
 * One table of the JDBC-style source: builds the mode's query from the
 * stored offset, turns rows into records with a struct schema from the
 * column types, and advances the offset row by row (so a record's offset is
 * the position just after its row, as Confluent's TimestampIncrementingOffset).
 *
 * - bulk: `SELECT *`, every poll; offset `{}` (nothing to resume).
 * - incrementing: `inc > last ORDER BY inc LIMIT n`; sees new rows only.
 * - timestamp: `ts > last AND ts < now() - delay ORDER BY ts LIMIT n`; rows
 *   that tie with the batch's last timestamp are held back to the next query
 *   (or, when the whole batch ties, read in full) so none is skipped.
 * - timestamp+incrementing: `(ts = last AND inc > lastInc) OR ts > last`.
 */
import type pg from 'pg';
import { Schemas, Struct, type Schema } from '../data/schema.js';
import { sourceRecord, type SourceOffset, type SourceRecord } from '../spi.js';
import { quoteIdent, splitTableName } from './connection.js';
import type { SourceMode } from './config.js';
import { columnSchema, decodeText, timestampMicros } from './types.js';

export interface TableQuerySpec {
  table: string;
  topic: string;
  mode: SourceMode;
  incrementingColumn: string;
  timestampColumns: string[];
  delayMs: number;
  batchMaxRows: number;
}

type Row = Record<string, string | null>;

/** Microseconds as the `YYYY-MM-DD HH:MM:SS.ffffff` text PostgreSQL reads for timestamp and (UTC session) timestamptz. */
export function microsText(micros: bigint): string {
  let sec = micros / 1_000_000n;
  if (micros % 1_000_000n < 0n) sec -= 1n; // floor, not truncation, before 1970
  const frac = micros - sec * 1_000_000n;
  const iso = new Date(Number(sec) * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${frac.toString().padStart(6, '0')}`;
}

export class TableQuerier {
  nextPollMs = 0;
  private incrementing: number | null = null;
  private timestampMicros: bigint | null = null;
  private schemaCache: { signature: string; schema: Schema; fields: { name: string; schema: Schema; oid: number }[] } | null = null;
  private notNull: Map<string, boolean> | null = null;

  constructor(
    readonly spec: TableQuerySpec,
    offset: SourceOffset | null,
  ) {
    if (typeof offset?.incrementing === 'number') this.incrementing = offset.incrementing;
    if (typeof offset?.timestamp === 'number') {
      const nanos = typeof offset.timestamp_nanos === 'number' ? offset.timestamp_nanos : (offset.timestamp % 1000) * 1_000_000;
      this.timestampMicros = BigInt(Math.floor(offset.timestamp / 1000)) * 1_000_000n + BigInt(Math.floor(nanos / 1000));
    }
  }

  /** The source partition of this table's records. */
  get partition(): { table: string } {
    return { table: this.spec.table };
  }

  private get tsExpr(): string {
    const cols = this.spec.timestampColumns.map((c) => quoteIdent(c));
    return cols.length === 1 ? cols[0]! : `COALESCE(${cols.join(', ')})`;
  }

  /** The SQL and parameters of the next query. */
  statement(): { text: string; values: unknown[] } {
    const { mode, batchMaxRows, delayMs } = this.spec;
    const from = `SELECT * FROM ${quoteIdent(this.spec.table)}`;
    const inc = quoteIdent(this.spec.incrementingColumn);
    const ts = this.tsExpr;
    const upper = `${ts} < now() - $1::float8 * interval '1 millisecond'`;
    const since = this.timestampMicros === null ? '-infinity' : microsText(this.timestampMicros);
    switch (mode) {
      case 'bulk':
        return { text: from, values: [] };
      case 'incrementing':
        return this.incrementing === null ? { text: `${from} ORDER BY ${inc} ASC LIMIT ${batchMaxRows}`, values: [] } : { text: `${from} WHERE ${inc} > $1 ORDER BY ${inc} ASC LIMIT ${batchMaxRows}`, values: [this.incrementing] };
      case 'timestamp':
        return { text: `${from} WHERE ${ts} > $2 AND ${upper} ORDER BY ${ts} ASC LIMIT ${batchMaxRows}`, values: [delayMs, since] };
      case 'timestamp+incrementing':
        return { text: `${from} WHERE ${upper} AND ((${ts} = $2 AND ${inc} > $3) OR ${ts} > $2) ORDER BY ${ts} ASC, ${inc} ASC LIMIT ${batchMaxRows}`, values: [delayMs, since, this.incrementing ?? Number.MIN_SAFE_INTEGER] };
    }
  }

  /** Runs the next query and returns its records; `full` is true when the batch limit was reached (more may be waiting). */
  async query(client: pg.Client): Promise<{ records: SourceRecord[]; full: boolean }> {
    const st = this.statement();
    const result = await client.query<Row>(st);
    let rows = result.rows;
    const full = this.spec.mode !== 'bulk' && rows.length >= this.spec.batchMaxRows;
    if (this.spec.mode === 'timestamp' && full) rows = await this.withoutTrailingTie(client, rows);
    await this.ensureNullability(client, result.fields);
    const schema = this.schemaOf(result.fields);
    return { records: rows.map((row) => this.record(row, schema)), full };
  }

  private rowMicros(row: Row): bigint | null {
    for (const c of this.spec.timestampColumns) {
      const v = row[c];
      if (v !== null && v !== undefined) return timestampMicros(v);
    }
    return null;
  }

  /** Drops the rows sharing the batch's last timestamp (the next query reads them all); when every row ties, reads that timestamp in full. */
  private async withoutTrailingTie(client: pg.Client, rows: Row[]): Promise<Row[]> {
    const last = this.rowMicros(rows[rows.length - 1]!);
    const kept = rows.filter((r) => this.rowMicros(r) !== last);
    if (kept.length > 0 || last === null) return kept;
    const all = await client.query<Row>({ text: `SELECT * FROM ${quoteIdent(this.spec.table)} WHERE ${this.tsExpr} = $1`, values: [microsText(last)] });
    return all.rows;
  }

  private async ensureNullability(client: pg.Client, fields: pg.FieldDef[]): Promise<void> {
    if (this.notNull !== null && fields.every((f) => this.notNull!.has(f.name))) return;
    const { schema, table } = splitTableName(this.spec.table);
    const r = await client.query<{ column_name: string; is_nullable: string }>({ text: 'SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', values: [schema, table] });
    this.notNull = new Map(r.rows.map((c) => [c.column_name, c.is_nullable === 'NO']));
  }

  private schemaOf(fields: pg.FieldDef[]): NonNullable<TableQuerier['schemaCache']> {
    const signature = fields.map((f) => `${f.name}:${f.dataTypeID}:${f.dataTypeModifier}:${this.notNull?.get(f.name) === true}`).join(',');
    if (this.schemaCache?.signature === signature) return this.schemaCache;
    const cols = fields.map((f) => ({ name: f.name, oid: f.dataTypeID, schema: columnSchema(f.dataTypeID, f.dataTypeModifier, this.notNull?.get(f.name) !== true, 'jdbc') }));
    const name = splitTableName(this.spec.table).table;
    this.schemaCache = { signature, fields: cols, schema: Schemas.struct(cols.map((c) => [c.name, c.schema] as const), { name }) };
    return this.schemaCache;
  }

  private record(row: Row, s: NonNullable<TableQuerier['schemaCache']>): SourceRecord {
    const value = new Struct(s.schema);
    for (const f of s.fields) value.put(f.name, decodeText(f.schema, row[f.name] ?? null, f.oid));
    return sourceRecord({ topic: this.spec.topic, sourcePartition: this.partition, sourceOffset: this.advance(row), valueSchema: s.schema, value });
  }

  /** Moves the offset past this row and returns it. */
  private advance(row: Row): SourceOffset {
    const { mode, incrementingColumn } = this.spec;
    const out: Record<string, number> = {};
    if (mode === 'incrementing' || mode === 'timestamp+incrementing') {
      const v = row[incrementingColumn];
      if (v !== null && v !== undefined) this.incrementing = Number(v);
      if (this.incrementing !== null) out.incrementing = this.incrementing;
    }
    if (mode === 'timestamp' || mode === 'timestamp+incrementing') {
      const micros = this.rowMicros(row);
      if (micros !== null) this.timestampMicros = micros;
      if (this.timestampMicros !== null) {
        const sec = this.timestampMicros / 1_000_000n - (this.timestampMicros % 1_000_000n < 0n ? 1n : 0n);
        const nanos = Number(this.timestampMicros - sec * 1_000_000n) * 1000;
        out.timestamp = Number(sec) * 1000 + Math.floor(nanos / 1_000_000);
        out.timestamp_nanos = nanos;
      }
    }
    return out;
  }
}

/**
 * Writes row operations to PostgreSQL inside the caller's transaction:
 * consecutive operations on one table of one kind and column set form a run,
 * written by multi-row statements (INSERT, INSERT ... ON CONFLICT DO UPDATE,
 * DELETE ... WHERE (pk) IN ...) of at most `batch.size` rows and 65535
 * parameters; order between runs is kept, so a delete after an upsert of the
 * same key wins. An upsert run keeps only the last row per key (PostgreSQL
 * refuses to update one row twice in one statement). Missing tables and
 * columns are created (auto.create) or added as nullable (auto.evolve),
 * with IF NOT EXISTS so tasks racing on one table agree.
 */
import type pg from 'pg';
import { ConnectError } from '../spi.js';
import { quoteIdent, splitTableName } from './connection.js';
import { sqlParam, sqlType, type RowOp } from './sink-rows.js';

const PARAMS_MAX = 65_535;

export interface WriterRules {
  batchSize: number;
  autoCreate: boolean;
  autoEvolve: boolean;
}

/** Column names per table as last read from the catalogue (cleared when a transaction rolls back). */
export class TableCatalogue {
  private readonly columns = new Map<string, Set<string>>();

  clear(): void {
    this.columns.clear();
  }

  async columnsOf(client: pg.Client, table: string): Promise<Set<string>> {
    const cached = this.columns.get(table);
    if (cached !== undefined) return cached;
    const { schema, table: name } = splitTableName(table);
    const r = await client.query<{ column_name: string }>({ text: 'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', values: [schema, name] });
    const set = new Set(r.rows.map((x) => x.column_name));
    this.columns.set(table, set);
    return set;
  }
}

/** Creates or evolves the op's table so every column exists (or throws, when auto.create/auto.evolve forbid it). */
async function ensureTable(client: pg.Client, catalogue: TableCatalogue, op: RowOp, rules: WriterRules): Promise<void> {
  const existing = await catalogue.columnsOf(client, op.table);
  if (existing.size === 0) {
    if (!rules.autoCreate) throw new ConnectError(`Table ${op.table} is missing and auto.create is disabled`);
    const cols = op.columns.map((c) => `${quoteIdent(c.name)} ${sqlType(c)}${c.schema !== null && !c.schema.optional ? ' NOT NULL' : ''}`);
    if (op.pk.length > 0) cols.push(`PRIMARY KEY (${op.pk.map(quoteIdent).join(', ')})`);
    const { schema } = splitTableName(op.table);
    if (op.table.includes('.')) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoteIdent(op.table)} (${cols.join(', ')})`);
    for (const c of op.columns) existing.add(c.name);
    return;
  }
  const missing = op.columns.filter((c) => !existing.has(c.name));
  if (missing.length === 0) return;
  if (!rules.autoEvolve) throw new ConnectError(`Table ${op.table} is missing columns ${missing.map((c) => c.name).join(', ')} and auto.evolve is disabled`);
  for (const c of missing) {
    await client.query(`ALTER TABLE ${quoteIdent(op.table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(c.name)} ${sqlType(c)}`);
    existing.add(c.name);
  }
}

function signature(op: RowOp): string {
  return `${op.table}\u0000${op.kind}\u0000${op.columns.map((c) => c.name).join('\u0001')}`;
}

/** Consecutive ops of one table, kind and column set. */
function runs(ops: RowOp[]): RowOp[][] {
  const out: RowOp[][] = [];
  let last = '';
  for (const op of ops) {
    const sig = signature(op);
    if (sig === last) out[out.length - 1]!.push(op);
    else out.push([op]);
    last = sig;
  }
  return out;
}

function keyOf(op: RowOp): string {
  return JSON.stringify(op.pk.map((name) => sqlParam(op.columns.find((c) => c.name === name)!)));
}

/** The last op per primary key, in the order of those last ops. */
function lastPerKey(run: RowOp[]): RowOp[] {
  const byKey = new Map<string, RowOp>();
  for (const op of run) {
    const k = keyOf(op);
    byKey.delete(k);
    byKey.set(k, op);
  }
  return [...byKey.values()];
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function writeRun(client: pg.Client, run: RowOp[], rules: WriterRules): Promise<void> {
  const first = run[0]!;
  const table = quoteIdent(first.table);
  const names = first.columns.map((c) => quoteIdent(c.name));
  const rows = first.kind === 'upsert' || first.kind === 'delete' ? lastPerKey(run) : run;
  const perRow = Math.max(1, names.length);
  for (const chunk of chunks(rows, Math.max(1, Math.min(rules.batchSize, Math.floor(PARAMS_MAX / perRow))))) {
    const values: unknown[] = [];
    const tuples = chunk.map((op) => `(${op.columns.map((c) => (values.push(sqlParam(c)), `$${values.length}`)).join(', ')})`);
    if (first.kind === 'delete') {
      await client.query({ text: `DELETE FROM ${table} WHERE (${names.join(', ')}) IN (${tuples.join(', ')})`, values });
      continue;
    }
    let text = `INSERT INTO ${table} (${names.join(', ')}) VALUES ${tuples.join(', ')}`;
    if (first.kind === 'upsert') {
      const rest = first.columns.filter((c) => !first.pk.includes(c.name)).map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`);
      text += ` ON CONFLICT (${first.pk.map(quoteIdent).join(', ')}) ${rest.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${rest.join(', ')}`}`;
    }
    await client.query({ text, values });
  }
}

/** Writes every op, in order, with the client already inside a transaction. */
export async function writeOps(client: pg.Client, catalogue: TableCatalogue, ops: RowOp[], rules: WriterRules): Promise<void> {
  for (const run of runs(ops)) {
    if (run[0]!.kind !== 'delete') await ensureTable(client, catalogue, run[0]!, rules);
    // A tombstone for a table never created has nothing to delete.
    else if ((await catalogue.columnsOf(client, run[0]!.table)).size === 0) continue;
    await writeRun(client, run, rules);
  }
}

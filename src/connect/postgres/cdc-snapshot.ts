/**
 * The CDC source's initial snapshot (snapshot.mode=initial): every row of the
 * publication's included tables as a read event (op r), read through cursors
 * in one REPEATABLE READ transaction, a chunk per poll.
 *
 * The slot exists before the snapshot starts, so the stream that follows
 * (from the slot's position) covers every change made after the slot was
 * created; a change made between the slot's creation and the snapshot's
 * start is in both (at-least-once, and the stream replays it in order after
 * the snapshot, so the final state is right). Snapshot events carry the
 * offset `{ lsn, snapshot: true }`; the last one `{ lsn }`, which marks the
 * snapshot complete: a task restarted before that snapshots again.
 */
import type pg from 'pg';
import type { SourceOffset, SourceRecord } from '../spi.js';
import type { ChangeEventBuilder } from './cdc-events.js';
import { connect, quoteIdent, type PgTarget } from './connection.js';
import type { TupleValue } from './pgoutput.js';

interface SnapshotTable {
  oid: number;
  schema: string;
  name: string;
}

/** True when a stored offset says the snapshot has not completed (or nothing is stored). */
export function snapshotNeeded(stored: SourceOffset | null): boolean {
  return stored === null || stored.snapshot === true;
}

export class CdcSnapshot {
  /** True once every row was handed out and the transaction closed. */
  done = false;
  private index = -1;
  /** The last row read, held back until it is known whether it is the snapshot's last. */
  private held: { relationId: number; tuple: TupleValue[] } | null = null;

  private constructor(
    private readonly client: pg.Client,
    private readonly tables: SnapshotTable[],
    private readonly builder: ChangeEventBuilder,
    private readonly lsn: bigint,
  ) {}

  /** Opens the snapshot transaction over the publication's tables that `includes` accepts. */
  static async open(target: PgTarget, publication: string, includes: (t: string) => boolean, builder: ChangeEventBuilder, lsn: bigint): Promise<CdcSnapshot> {
    const client = await connect(target);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const r = await client.query<{ oid: string; schemaname: string; tablename: string }>({
        text: 'SELECT c.oid, t.schemaname, t.tablename FROM pg_publication_tables t JOIN pg_namespace n ON n.nspname = t.schemaname JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename WHERE t.pubname = $1 ORDER BY 2, 3',
        values: [publication],
      });
      const tables = r.rows.map((row) => ({ oid: Number(row.oid), schema: row.schemaname, name: row.tablename })).filter((t) => includes(`${t.schema}.${t.name}`));
      return new CdcSnapshot(client, tables, builder, lsn);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /** Describes a table to the builder as pgoutput would (key flags from the primary key). */
  private async describe(t: SnapshotTable): Promise<void> {
    const cols = await this.client.query<{ attname: string; atttypid: string; atttypmod: string; key: string }>({
      text: 'SELECT a.attname, a.atttypid, a.atttypmod, (i.indrelid IS NOT NULL) AS key FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY(i.indkey) WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum',
      values: [t.oid],
    });
    const columns = cols.rows.map((c) => ({ name: c.attname, typeOid: Number(c.atttypid), typmod: Number(c.atttypmod), isKey: c.key === 't' || c.key === 'true' }));
    this.builder.relation({ tag: 'relation', relationId: t.oid, namespace: t.schema, name: t.name, replicaIdentity: 'd', columns });
  }

  /** Moves to the next table with its cursor open; false when none is left. */
  private async nextTable(): Promise<boolean> {
    if (this.index >= 0) await this.client.query('CLOSE snapshot_rows');
    this.index++;
    const t = this.tables[this.index];
    if (t === undefined) return false;
    await this.describe(t);
    await this.client.query(`DECLARE snapshot_rows NO SCROLL CURSOR FOR SELECT * FROM ${quoteIdent(t.schema)}.${quoteIdent(t.name)}`);
    return true;
  }

  private record(row: { relationId: number; tuple: TupleValue[] }, last: boolean): SourceRecord | null {
    const offset: SourceOffset = last ? { lsn: Number(this.lsn) } : { lsn: Number(this.lsn), snapshot: true };
    return this.builder.read(row.relationId, row.tuple, { lsn: this.lsn, txId: null, commitTimeUs: BigInt(Date.now()) * 1000n, offset }, last ? 'last' : 'true');
  }

  /** Up to about `max` read events (null: none now); `done` turns true with the last (the transaction is then closed). */
  async next(max: number): Promise<SourceRecord[] | null> {
    if (this.index === -1 && !(await this.nextTable())) return this.finish([]);
    const out: SourceRecord[] = [];
    while (out.length < max) {
      const r = await this.client.query<string[]>({ text: `FETCH FORWARD ${max} FROM snapshot_rows`, rowMode: 'array' });
      for (const values of r.rows) {
        if (this.held !== null) out.push(this.record(this.held, false)!);
        this.held = { relationId: this.tables[this.index]!.oid, tuple: values.map((v): TupleValue => (v === null ? { kind: 'null' } : { kind: 'text', text: v })) };
      }
      if (r.rows.length < max && !(await this.nextTable())) return this.finish(out);
    }
    return out;
  }

  private async finish(out: SourceRecord[]): Promise<SourceRecord[] | null> {
    if (this.held !== null) out.push(this.record(this.held, true)!);
    this.held = null;
    this.done = true;
    await this.close();
    return out.length > 0 ? out : null;
  }

  /** Ends the snapshot transaction and its connection. */
  async close(): Promise<void> {
    await this.client.query('ROLLBACK').catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }
}

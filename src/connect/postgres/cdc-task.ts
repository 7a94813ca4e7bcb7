/**
 * PostgresCdcSourceTask: reads the replication slot and turns pgoutput
 * messages into Debezium change events.
 *
 * Offsets: the source partition is `{ server: <topic.prefix> }` and the
 * offset `{ lsn, txId, ts_usec }`, where `lsn` is the end LSN of the last
 * transaction wholly covered. Changes are held until their transaction's
 * Commit; the last event of a transaction carries its end LSN and the others
 * the previous transaction's, so an offset never claims part of a
 * transaction (a restart replays a transaction cut by an offset flush:
 * at-least-once). The LSN is acknowledged to the slot (standby status
 * update) only in `commit()`, after the worker stored the offset, reading it
 * back from the offset store: the slot never moves past a stored offset,
 * and a restart resumes with START_REPLICATION at the stored LSN.
 *
 * With snapshot.mode=initial and no complete snapshot stored, the rows of
 * the included tables are first read as op r events (cdc-snapshot.ts).
 *
 * A lost connection drops the transaction in progress and reconnects from
 * the end of the last transaction handed to the worker, for up to
 * `errors.retry.timeout.ms`; then poll throws and the task fails.
 */
import { ParsedConfig } from '../config-def.js';
import type { SourceOffset, SourceRecord, SourceTask, SourceTaskContext } from '../spi.js';
import { ChangeEventBuilder } from './cdc-events.js';
import { CdcSnapshot, snapshotNeeded } from './cdc-snapshot.js';
import { CDC_DEF, POSTGRES_CONNECTOR_VERSION } from './config.js';
import { ConnectionRetry, connect, isConnectionError, quoteIdent, type PgTarget } from './connection.js';
import { decodePgOutput, parseLsn } from './pgoutput.js';
import { ReplicationStream } from './replication-stream.js';

interface OpenTransaction {
  xid: number;
  commitTimeUs: bigint;
  records: SourceRecord[];
}

/** Creates the publication (per publication.autocreate.mode) and the slot when missing. */
async function ensureSlotAndPublication(target: PgTarget, c: ParsedConfig, includes: (t: string) => boolean): Promise<void> {
  const client = await connect(target);
  try {
    const publication = c.string('publication.name');
    const pub = await client.query({ text: 'SELECT 1 FROM pg_publication WHERE pubname = $1', values: [publication] });
    if (pub.rowCount === 0) {
      const mode = c.string('publication.autocreate.mode');
      if (mode === 'disabled') throw new Error(`publication ${publication} does not exist and publication.autocreate.mode=disabled`);
      let what = 'ALL TABLES';
      if (mode === 'filtered') {
        const tables = await client.query<{ name: string }>("SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')");
        const chosen = tables.rows.map((r) => r.name).filter(includes);
        if (chosen.length === 0) throw new Error('publication.autocreate.mode=filtered but table.include.list matches no table');
        what = `TABLE ${chosen.map(quoteIdent).join(', ')}`;
      }
      await client.query(`CREATE PUBLICATION ${quoteIdent(publication)} FOR ${what}`);
    }
    const slot = c.string('slot.name');
    const found = await client.query<{ plugin: string }>({ text: 'SELECT plugin FROM pg_replication_slots WHERE slot_name = $1', values: [slot] });
    if (found.rowCount === 0) await client.query({ text: "SELECT pg_create_logical_replication_slot($1, 'pgoutput')", values: [slot] });
    else if (found.rows[0]?.plugin !== 'pgoutput') throw new Error(`replication slot ${slot} uses plugin ${found.rows[0]?.plugin}, not pgoutput`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The source task of PostgresCdcSourceConnector: streams the slot as Debezium change events. */
export class PostgresCdcSourceTask implements SourceTask {
  private config: ParsedConfig | null = null;
  private target: PgTarget | null = null;
  private context: SourceTaskContext | null = null;
  private stream: ReplicationStream | null = null;
  private builder: ChangeEventBuilder | null = null;
  private retry: ConnectionRetry | null = null;
  private open: OpenTransaction | null = null;
  /** The offset of the last whole transaction handed to the worker (or the one resumed from). */
  private lastOffset: SourceOffset | null = null;
  private skipped = new Set<string>();
  private stopped = false;
  private server = '';
  private includes: (t: string) => boolean = () => true;
  /** The slot's position when a snapshot is due (snapshot.mode=initial, no complete snapshot stored); null otherwise. */
  private snapshotLsn: bigint | null = null;
  private snapshot: CdcSnapshot | null = null;

  /** The task's version. */
  version(): string {
    return POSTGRES_CONNECTOR_VERSION;
  }

  /** Ensures the publication and slot, then starts streaming from the stored LSN (or where the slot is). */
  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const c = ParsedConfig.of(CDC_DEF, props);
    this.config = c;
    this.context = context;
    const password = c.stringOrNull('database.password');
    this.target = { host: c.string('database.hostname'), port: c.number('database.port'), database: c.string('database.dbname'), user: c.string('database.user'), password: password ?? undefined };
    this.server = c.string('topic.prefix');
    const patterns = c.list('table.include.list').map((p) => new RegExp(`^(?:${p})$`));
    const includes = (t: string): boolean => patterns.length === 0 || patterns.some((p) => p.test(t));
    this.includes = includes;
    this.builder = new ChangeEventBuilder(this.server, c.string('database.dbname'), includes);
    this.skipped = new Set(c.list('skipped.operations'));
    this.retry = new ConnectionRetry(props, this.target, () => this.stopped, (m) => process.stderr.write(m + '\n'));
    this.lastOffset = context.offsetStorageReader.offset({ server: this.server });
    await this.retry.run('create the publication and slot', () => ensureSlotAndPublication(this.target!, c, includes), async () => undefined);
    if (c.string('snapshot.mode') === 'initial' && snapshotNeeded(this.lastOffset)) {
      this.snapshotLsn = await this.retry.run('read the slot position', () => this.slotPosition(), async () => undefined);
      return;
    }
    // An unfinished snapshot's offset, resumed without snapshotting: keep its position only.
    if (this.lastOffset?.snapshot === true) this.lastOffset = { lsn: this.lastOffset.lsn };
    await this.reconnect();
  }

  private async slotPosition(): Promise<bigint> {
    const client = await connect(this.target!);
    try {
      const r = await client.query<{ lsn: string }>({ text: 'SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1', values: [this.config!.string('slot.name')] });
      return parseLsn(r.rows[0]?.lsn ?? '0/0');
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The next chunk of the snapshot; when it is complete, streaming starts from the slot's position. A lost connection starts the snapshot over (at-least-once). */
  private async pollSnapshot(lsn: bigint): Promise<SourceRecord[] | null> {
    const c = this.config!;
    try {
      this.snapshot ??= await this.retry!.run('start the snapshot', () => CdcSnapshot.open(this.target!, c.string('publication.name'), this.includes, this.builder!, lsn), async () => undefined);
      const records = await this.snapshot.next(c.number('max.batch.size'));
      if (this.snapshot.done) {
        this.snapshot = null;
        this.snapshotLsn = null;
        this.lastOffset = { lsn: Number(lsn) };
        await this.reconnect();
      }
      return records;
    } catch (err) {
      if (!isConnectionError(err) || this.stopped) throw err;
      await this.snapshot?.close();
      this.snapshot = null;
      return null;
    }
  }

  private resumeLsn(): bigint {
    const lsn = this.lastOffset?.lsn;
    return typeof lsn === 'number' ? BigInt(lsn) : 0n;
  }

  /** (Re)opens the stream from the last whole transaction handed out, retrying while the budget lasts. */
  private async reconnect(): Promise<void> {
    await this.stream?.close();
    this.stream = null;
    this.open = null;
    const c = this.config!;
    this.stream = await this.retry!.run('start replication', () => ReplicationStream.start(this.target!, c.string('slot.name'), c.string('publication.name'), this.resumeLsn()), async () => undefined);
  }

  /** Change events of the transactions committed since the last poll (at most max.batch.size, more when one transaction is larger). */
  async poll(): Promise<SourceRecord[] | null> {
    if (this.stopped) return null;
    if (this.snapshotLsn !== null) return this.pollSnapshot(this.snapshotLsn);
    if (this.stream === null) return null;
    const max = this.config!.number('max.batch.size');
    const out: SourceRecord[] = [];
    try {
      const msgs = await this.stream.take(max * 4, this.config!.number('poll.interval.ms'));
      for (const m of msgs) if (m.kind === 'xlog') this.handle(decodePgOutput(m.data), m.walStart, out);
    } catch (err) {
      if (!isConnectionError(err) || this.stopped) throw err;
      await this.reconnect();
    }
    return out.length > 0 ? out : null;
  }

  private handle(m: ReturnType<typeof decodePgOutput>, walStart: bigint, out: SourceRecord[]): void {
    const b = this.builder!;
    switch (m.tag) {
      case 'begin':
        this.open = { xid: m.xid, commitTimeUs: m.commitTimeUs, records: [] };
        return;
      case 'relation':
        b.relation(m);
        return;
      case 'insert':
      case 'update':
      case 'delete': {
        const tx = this.open;
        if (tx === null) return;
        const op = m.tag === 'insert' ? 'c' : m.tag === 'update' ? 'u' : 'd';
        if (this.skipped.has(op)) return;
        tx.records.push(...b.change(m, { lsn: walStart, txId: tx.xid, commitTimeUs: tx.commitTimeUs, offset: {} }, this.config!.boolean('tombstones.on.delete')));
        return;
      }
      case 'truncate':
        if (this.open !== null && !this.skipped.has('t')) this.open.records.push(...b.truncate(m, { lsn: walStart, txId: this.open.xid, commitTimeUs: this.open.commitTimeUs, offset: {} }));
        return;
      case 'commit':
        this.commitTransaction(m.endLsn, out);
        return;
      default:
        return;
    }
  }

  /** Gives the transaction's events their offsets and hands them out. */
  private commitTransaction(endLsn: bigint, out: SourceRecord[]): void {
    const tx = this.open;
    this.open = null;
    if (tx === null || tx.records.length === 0) return;
    const previous = this.lastOffset ?? { lsn: Number(this.resumeLsn()) };
    const done: SourceOffset = { lsn: Number(endLsn), txId: tx.xid, ts_usec: Number(tx.commitTimeUs) };
    tx.records.forEach((r, i) => out.push({ ...r, sourceOffset: i === tx.records.length - 1 ? done : previous }));
    this.lastOffset = done;
  }

  /** The worker stored offsets: acknowledge the stored LSN to the slot. */
  commit(): void {
    const stored = this.context?.offsetStorageReader.offset({ server: this.server });
    if (typeof stored?.lsn === 'number') this.stream?.acknowledge(BigInt(stored.lsn));
  }

  /** Closes the replication connection (the slot keeps the acknowledged LSN). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.snapshot?.close();
    this.snapshot = null;
    await this.stream?.close();
    this.stream = null;
  }
}

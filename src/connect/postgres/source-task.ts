/**
 * PostgresSourceTask: polls its tables (the `tables` its connector gave it),
 * each at most every `poll.interval.ms` unless its last batch was full, and
 * resumes each from its committed offset. A server that goes away is retried
 * (reconnecting) for `errors.retry.timeout.ms`; after that poll throws a
 * ConnectError naming the server, and the worker marks the task FAILED. The
 * offsets committed before stay as they were: a restart resumes from them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { ParsedConfig } from '../config-def.js';
import type { SourceRecord, SourceTask, SourceTaskContext } from '../spi.js';
import { connect, ConnectionRetry, type PgTarget } from './connection.js';
import { POSTGRES_CONNECTOR_VERSION, SOURCE_DEF, targetOf, type SourceMode } from './config.js';
import { TableQuerier } from './table-querier.js';

/** Longest a poll waits for the next table to be due, so stop is prompt. */
const IDLE_WAIT_MAX_MS = 200;

/** The source task of PostgresSourceConnector: polls its tables in the configured mode. */
export class PostgresSourceTask implements SourceTask {
  private target: PgTarget | null = null;
  private client: pg.Client | null = null;
  private queriers: TableQuerier[] = [];
  private pollIntervalMs = 5000;
  private retry: ConnectionRetry | null = null;
  private stopped = false;

  /** The task's version. */
  version(): string {
    return POSTGRES_CONNECTOR_VERSION;
  }

  /** Reads its tables and their committed offsets. */
  start(props: Readonly<Record<string, string>>, context: SourceTaskContext): void {
    const c = ParsedConfig.of(SOURCE_DEF, props);
    this.target = targetOf(c);
    this.pollIntervalMs = c.number('poll.interval.ms');
    this.retry = new ConnectionRetry(props, this.target, () => this.stopped, (m) => process.stderr.write(m + '\n'));
    const tables = (props.tables ?? '').split(',').filter((t) => t !== '');
    const prefix = c.string('topic.prefix');
    this.queriers = tables.map((table) => {
      const spec = {
        table,
        topic: prefix + (table.includes('.') ? table.slice(table.indexOf('.') + 1) : table),
        mode: c.string('mode') as SourceMode,
        incrementingColumn: c.string('incrementing.column.name'),
        timestampColumns: c.list('timestamp.column.name'),
        delayMs: c.number('timestamp.delay.interval.ms'),
        batchMaxRows: c.number('batch.max.rows'),
      };
      return new TableQuerier(spec, context.offsetStorageReader.offset({ table }));
    });
  }

  /** The next due table's new rows; null while none is due. */
  async poll(): Promise<SourceRecord[] | null> {
    if (this.stopped || this.queriers.length === 0) return null;
    const q = this.queriers.reduce((a, b) => (b.nextPollMs < a.nextPollMs ? b : a));
    const wait = q.nextPollMs - Date.now();
    if (wait > 0) {
      await sleep(Math.min(wait, IDLE_WAIT_MAX_MS));
      return null;
    }
    const { records, full } = await this.retry!.run(
      `poll table ${q.spec.table}`,
      async () => q.query(await this.connected()),
      async () => this.disconnect(),
    );
    q.nextPollMs = full ? Date.now() : Date.now() + this.pollIntervalMs;
    return records.length > 0 ? records : null;
  }

  private async connected(): Promise<pg.Client> {
    if (this.client === null) this.client = await connect(this.target!);
    return this.client;
  }

  private async disconnect(): Promise<void> {
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  /** Closes the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.disconnect();
  }
}

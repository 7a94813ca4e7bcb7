/**
 * PostgresSinkConnector: writes records to tables in the manner of
 * Confluent's JDBC sink (insert.mode, pk.mode, pk.fields, auto.create,
 * auto.evolve, delete.enabled, table.name.format, batch.size).
 *
 * Each put is one transaction: every record of the batch is written, or
 * none is. So `flush` (the worker's preCommit) has nothing pending, and the
 * offsets the worker commits after it cover only committed rows. A server
 * that goes away rolls the transaction back and put throws RetriableError:
 * the worker retries the same batch for `errors.retry.timeout.ms`, then the
 * task fails (with errors.tolerance=none) and its offsets stay at the last
 * committed batch.
 */
import type pg from 'pg';
import { ConfigDef, ConfigException, ParsedConfig, type ConfigValue } from '../config-def.js';
import { RetriableError, type SinkConnector, type SinkRecord, type SinkTask, type SinkTaskClass } from '../spi.js';
import { POSTGRES_CONNECTOR_VERSION, SINK_DEF, sinkCrossErrors, targetOf, withCrossErrors } from './config.js';
import { connect, describeTarget, isConnectionError, type PgTarget } from './connection.js';
import { rowOp, type PkMode, type SinkRowRules } from './sink-rows.js';
import { TableCatalogue, writeOps, type WriterRules } from './sink-writer.js';

/** Parses and cross-checks the sink's config. */
function parseSink(props: Readonly<Record<string, string>>): ParsedConfig {
  const c = ParsedConfig.of(SINK_DEF, props);
  const cross = [...sinkCrossErrors(props).values()];
  if (cross.length > 0) throw new ConfigException(cross.join('\n'), cross);
  return c;
}

/** Confluent-style JDBC sink for PostgreSQL: inserts, upserts and deletes rows, one transaction per batch. */
export class PostgresSinkConnector implements SinkConnector {
  readonly type = 'sink';
  private props: Record<string, string> = {};

  /** The connector's version. */
  version(): string {
    return POSTGRES_CONNECTOR_VERSION;
  }

  /** The connector's config keys. */
  config(): ConfigDef {
    return SINK_DEF;
  }

  /** Per-key validation plus the insert.mode/pk.mode/delete.enabled and URL checks. */
  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return withCrossErrors(SINK_DEF.validate(props), sinkCrossErrors(props));
  }

  /** Validates the config and keeps it for the tasks. */
  start(props: Readonly<Record<string, string>>): void {
    parseSink(props);
    this.props = { ...props };
  }

  /** The task class: PostgresSinkTask. */
  taskClass(): SinkTaskClass {
    return PostgresSinkTask;
  }

  /** maxTasks copies of the config (the worker's consumer group shares the partitions). */
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.props }));
  }

  /** Nothing to release. */
  stop(): void {}
}

/** The sink task of PostgresSinkConnector: each put is one transaction. */
export class PostgresSinkTask implements SinkTask {
  private target: PgTarget | null = null;
  private client: pg.Client | null = null;
  private rowRules: SinkRowRules | null = null;
  private writerRules: WriterRules | null = null;
  private readonly catalogue = new TableCatalogue();

  /** The task's version. */
  version(): string {
    return POSTGRES_CONNECTOR_VERSION;
  }

  /** Reads the config; the connection is opened by the first put. */
  start(props: Readonly<Record<string, string>>): void {
    const c = parseSink(props);
    this.target = targetOf(c);
    this.rowRules = { tableFormat: c.string('table.name.format'), pkMode: c.string('pk.mode') as PkMode, pkFields: c.list('pk.fields'), upsert: c.string('insert.mode') === 'upsert', deleteEnabled: c.boolean('delete.enabled') };
    this.writerRules = { batchSize: c.number('batch.size'), autoCreate: c.boolean('auto.create'), autoEvolve: c.boolean('auto.evolve') };
  }

  /** Writes the batch in one transaction; a lost connection is a RetriableError (the worker retries the batch). */
  async put(records: SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    const ops = records.map((r) => rowOp(r, this.rowRules!));
    let client: pg.Client | null = null;
    try {
      client = this.client ??= await connect(this.target!);
      await client.query('BEGIN');
      await writeOps(client, this.catalogue, ops, this.writerRules!);
      await client.query('COMMIT');
    } catch (err) {
      this.catalogue.clear();
      if (client !== null) await client.query('ROLLBACK').catch(() => undefined);
      if (!isConnectionError(err)) throw err;
      await this.disconnect();
      throw new RetriableError(`PostgreSQL at ${describeTarget(this.target!)} unavailable: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Nothing pending: every put committed its transaction. */
  flush(): void {}

  private async disconnect(): Promise<void> {
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  /** Closes the connection. */
  async stop(): Promise<void> {
    await this.disconnect();
  }
}

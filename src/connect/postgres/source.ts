/**
 * PostgresSourceConnector: copies tables into topics by polling with SQL,
 * in the manner of Confluent's JDBC source connector (same config names,
 * modes, source partitions `{ table }` and offsets `{ incrementing }` /
 * `{ timestamp, timestamp_nanos }`). The connector finds the tables (the
 * include list, or every table of the non-system schemas) and deals them out
 * round-robin to at most `tasks.max` tasks; each task polls its tables
 * (source-task.ts).
 */
import { ConfigDef, ConfigException, ParsedConfig, type ConfigValue } from '../config-def.js';
import type { SourceConnector, SourceTaskClass } from '../spi.js';
import { SOURCE_DEF, sourceCrossErrors, targetOf, withCrossErrors } from './config.js';
import { connect, ConnectionRetry, type PgTarget } from './connection.js';
import { PostgresSourceTask } from './source-task.js';
import { POSTGRES_CONNECTOR_VERSION } from './config.js';

/** Tables of every non-system schema, as schema.table. */
async function discoverTables(target: PgTarget, props: Readonly<Record<string, string>>): Promise<string[]> {
  const retry = new ConnectionRetry(props, target, () => false);
  return retry.run(
    'list tables',
    async () => {
      const client = await connect(target);
      try {
        const r = await client.query<{ name: string }>("SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg_toast%' ORDER BY 1");
        return r.rows.map((row) => row.name);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    async () => undefined,
  );
}

/** Confluent-style JDBC source for PostgreSQL: polls tables (bulk, incrementing, timestamp, timestamp+incrementing) into `<topic.prefix><table>` topics. */
export class PostgresSourceConnector implements SourceConnector {
  readonly type = 'source';
  private props: Record<string, string> = {};
  private tables: string[] = [];

  /** The connector's version. */
  version(): string {
    return POSTGRES_CONNECTOR_VERSION;
  }

  /** The connector's config keys. */
  config(): ConfigDef {
    return SOURCE_DEF;
  }

  /** Per-key validation plus the mode/column and URL checks. */
  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return withCrossErrors(SOURCE_DEF.validate(props), sourceCrossErrors(props));
  }

  /** Validates the config and finds the tables to copy. */
  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const c = ParsedConfig.of(SOURCE_DEF, props);
    const cross = [...sourceCrossErrors(props).values()];
    if (cross.length > 0) throw new ConfigException(cross.join('\n'), cross);
    this.props = { ...props };
    const listed = [...c.list('table.include.list'), ...c.list('table.whitelist')].filter((t) => t !== '');
    this.tables = listed.length > 0 ? [...new Set(listed)] : await discoverTables(targetOf(c), props);
  }

  /** The task class: PostgresSourceTask. */
  taskClass(): SourceTaskClass {
    return PostgresSourceTask;
  }

  /** The tables dealt round-robin to at most maxTasks tasks, as each task's `tables`. */
  taskConfigs(maxTasks: number): Record<string, string>[] {
    const groups: string[][] = Array.from({ length: Math.max(1, Math.min(maxTasks, this.tables.length)) }, () => []);
    this.tables.forEach((t, i) => groups[i % groups.length]!.push(t));
    return groups.map((g) => ({ ...this.props, tables: g.join(',') }));
  }

  /** Nothing to release. */
  stop(): void {}
}

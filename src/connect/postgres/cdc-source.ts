/**
 * PostgresCdcSourceConnector: change data capture from PostgreSQL logical
 * replication with the built-in `pgoutput` plugin, emitting Debezium-shaped
 * change events, configured with Debezium's PostgreSQL connector names
 * (registered also as `io.debezium.connector.postgresql.PostgresConnector`).
 * One task reads the slot (cdc-task.ts), after an initial snapshot of the
 * existing rows unless snapshot.mode is never or no_data (cdc-snapshot.ts).
 */
import type { ConfigDef, ConfigValue } from '../config-def.js';
import type { SourceConnector, SourceTaskClass } from '../spi.js';
import { CDC_DEF, POSTGRES_CONNECTOR_VERSION } from './config.js';
import { PostgresCdcSourceTask } from './cdc-task.js';

/** PostgreSQL change data capture over logical replication (pgoutput), emitting Debezium change events. */
export class PostgresCdcSourceConnector implements SourceConnector {
  readonly type = 'source';
  private props: Record<string, string> = {};

  /** The connector's version. */
  version(): string {
    return POSTGRES_CONNECTOR_VERSION;
  }

  /** The connector's config keys (Debezium's names). */
  config(): ConfigDef {
    return CDC_DEF;
  }

  /** Per-key validation. */
  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return CDC_DEF.validate(props);
  }

  /** Validates the config and keeps it for the task. */
  start(props: Readonly<Record<string, string>>): void {
    CDC_DEF.parse(props);
    this.props = { ...props };
  }

  /** The task class: PostgresCdcSourceTask. */
  taskClass(): SourceTaskClass {
    return PostgresCdcSourceTask;
  }

  /** One task: a replication slot has one reader. */
  taskConfigs(): Record<string, string>[] {
    return [{ ...this.props }];
  }

  /** Nothing to release (the slot stays, holding WAL from the acknowledged LSN). */
  stop(): void {}
}

/**
 * Config definitions of the PostgreSQL connectors: the JDBC-style source
 * and sink with Confluent's JDBC connector names (the shared connection
 * keys, each one's keys, and the checks that span keys, which
 * /config/validate reports on the key concerned), and the CDC source with
 * Debezium's PostgreSQL connector names.
 */
import { ConfigDef, ParsedConfig, Validators, type ConfigValue } from '../config-def.js';
import { parseConnectionUrl, type PgTarget } from './connection.js';

export const POSTGRES_CONNECTOR_VERSION = '1.0.0';
export const SOURCE_MODES = ['bulk', 'incrementing', 'timestamp', 'timestamp+incrementing'] as const;
export type SourceMode = (typeof SOURCE_MODES)[number];

const DB = 'Database';
const MODE = 'Mode';
const CONNECTOR = 'Connector';

/** The config keys shared by the JDBC-style source and sink: connection.url, connection.user, connection.password. */
export function connectionDef(): ConfigDef {
  return new ConfigDef()
    .define({ name: 'connection.url', type: 'STRING', importance: 'HIGH', group: DB, orderInGroup: 1, displayName: 'JDBC URL', documentation: 'JDBC connection URL (jdbc:postgresql://host:port/database) or a postgres://user:password@host:port/database URL.', validator: Validators.nonEmptyString() })
    .define({ name: 'connection.user', type: 'STRING', defaultValue: null, importance: 'HIGH', group: DB, orderInGroup: 2, displayName: 'JDBC User', documentation: 'JDBC connection user.' })
    .define({ name: 'connection.password', type: 'PASSWORD', defaultValue: null, importance: 'HIGH', group: DB, orderInGroup: 3, displayName: 'JDBC Password', documentation: 'JDBC connection password.' });
}

export const SOURCE_DEF = connectionDef()
  .define({ name: 'table.whitelist', type: 'LIST', defaultValue: [], importance: 'MEDIUM', group: DB, orderInGroup: 4, displayName: 'Table Whitelist', documentation: 'List of tables (table or schema.table) to copy; empty: every table of the non-system schemas. Old name of table.include.list.' })
  .define({ name: 'table.include.list', type: 'LIST', defaultValue: [], importance: 'MEDIUM', group: DB, orderInGroup: 5, displayName: 'Table Include List', documentation: 'List of tables (table or schema.table) to copy; empty: every table of the non-system schemas.' })
  .define({ name: 'mode', type: 'STRING', importance: 'HIGH', group: MODE, orderInGroup: 1, displayName: 'Table Loading Mode', recommendedValues: SOURCE_MODES, validator: Validators.in(...SOURCE_MODES), documentation: 'The mode for updating a table each time it is polled: bulk (the whole table each poll), incrementing (new rows by a strictly increasing column), timestamp (new and updated rows by a timestamp column), timestamp+incrementing (both, to tell rows with the same timestamp apart).' })
  .define({ name: 'incrementing.column.name', type: 'STRING', defaultValue: '', importance: 'MEDIUM', group: MODE, orderInGroup: 2, displayName: 'Incrementing Column Name', documentation: 'The name of the strictly incrementing column used to detect new rows.' })
  .define({ name: 'timestamp.column.name', type: 'LIST', defaultValue: [], importance: 'MEDIUM', group: MODE, orderInGroup: 3, displayName: 'Timestamp Column Name', documentation: 'Comma-separated timestamp columns used to detect new or modified rows (the first non-null one per row: COALESCE).' })
  .define({ name: 'timestamp.delay.interval.ms', type: 'LONG', defaultValue: 0, importance: 'HIGH', group: MODE, orderInGroup: 4, displayName: 'Delay Interval (ms)', documentation: 'How long after a row gets a timestamp before it is read, to let transactions with earlier timestamps complete.', validator: Validators.atLeast(0) })
  .define({ name: 'topic.prefix', type: 'STRING', importance: 'HIGH', group: CONNECTOR, orderInGroup: 1, displayName: 'Topic Prefix', documentation: 'Prefix prepended to table names to form the topic names.' })
  .define({ name: 'poll.interval.ms', type: 'INT', defaultValue: 5000, importance: 'HIGH', group: CONNECTOR, orderInGroup: 2, displayName: 'Poll Interval (ms)', documentation: 'Frequency in ms to poll for new data in each table.', validator: Validators.atLeast(1) })
  .define({ name: 'batch.max.rows', type: 'INT', defaultValue: 100, importance: 'LOW', group: CONNECTOR, orderInGroup: 3, displayName: 'Max Rows Per Batch', documentation: 'Maximum number of rows to include in a single batch when polling for new data.', validator: Validators.atLeast(1) });

/** Adds the error of a `connection.url` that is set but not a PostgreSQL URL. */
function urlError(props: Readonly<Record<string, string>>, errors: Map<string, string>): void {
  const url = props['connection.url'];
  if (url === undefined || url === '') return;
  try {
    parseConnectionUrl(url, null, null);
  } catch (err) {
    errors.set('connection.url', (err as Error).message);
  }
}

/** Errors that span keys (Confluent's mode/column checks), by key. */
export function sourceCrossErrors(props: Readonly<Record<string, string>>): Map<string, string> {
  const errors = new Map<string, string>();
  const mode = props.mode;
  const inc = (props['incrementing.column.name'] ?? '').trim();
  const ts = (props['timestamp.column.name'] ?? '').trim();
  if ((mode === 'incrementing' || mode === 'timestamp+incrementing') && inc === '') errors.set('incrementing.column.name', `Missing required configuration "incrementing.column.name" for mode ${mode}`);
  if ((mode === 'timestamp' || mode === 'timestamp+incrementing') && ts === '') errors.set('timestamp.column.name', `Missing required configuration "timestamp.column.name" for mode ${mode}`);
  urlError(props, errors);
  return errors;
}

/** Adds cross-key errors to a ConfigDef's per-key results. */
export function withCrossErrors(values: ConfigValue[], errors: Map<string, string>): ConfigValue[] {
  for (const v of values) {
    const e = errors.get(v.name);
    if (e !== undefined && !v.errors.includes(e)) v.errors.push(e);
  }
  return values;
}

/** The target of a JDBC-style connector's parsed config. */
export function targetOf(c: ParsedConfig): PgTarget {
  return parseConnectionUrl(c.string('connection.url'), c.stringOrNull('connection.user'), c.stringOrNull('connection.password'));
}


export const INSERT_MODES = ['insert', 'upsert'] as const;
export const PK_MODES = ['none', 'record_key', 'record_value'] as const;
const WRITES = 'Writes';
const MAPPING = 'Data Mapping';
const DDL = 'DDL Support';

export const SINK_DEF = connectionDef()
  .define({ name: 'insert.mode', type: 'STRING', defaultValue: 'insert', importance: 'HIGH', group: WRITES, orderInGroup: 1, displayName: 'Insert Mode', recommendedValues: INSERT_MODES, validator: Validators.in(...INSERT_MODES), documentation: 'The insertion mode to use: insert (plain INSERT) or upsert (INSERT ... ON CONFLICT (pk) DO UPDATE).' })
  .define({ name: 'batch.size', type: 'INT', defaultValue: 3000, importance: 'MEDIUM', group: WRITES, orderInGroup: 2, displayName: 'Batch Size', documentation: 'Most records written by one multi-row statement; every put is one transaction.', validator: Validators.atLeast(1) })
  .define({ name: 'delete.enabled', type: 'BOOLEAN', defaultValue: false, importance: 'MEDIUM', group: WRITES, orderInGroup: 3, displayName: 'Enable deletes', documentation: 'Whether to treat null record values as deletes. Requires pk.mode to be record_key.' })
  .define({ name: 'table.name.format', type: 'STRING', defaultValue: '${topic}', importance: 'MEDIUM', group: MAPPING, orderInGroup: 1, displayName: 'Table Name Format', documentation: 'A format string for the destination table name, which may contain ${topic} for the originating topic name (schema.table names a schema).', validator: Validators.nonEmptyString() })
  .define({ name: 'pk.mode', type: 'STRING', defaultValue: 'none', importance: 'HIGH', group: MAPPING, orderInGroup: 2, displayName: 'Primary Key Mode', recommendedValues: PK_MODES, validator: Validators.in(...PK_MODES), documentation: 'The primary key mode: none, record_key (the key: a primitive as one column, a struct field by field) or record_value (fields of the value).' })
  .define({ name: 'pk.fields', type: 'LIST', defaultValue: [], importance: 'MEDIUM', group: MAPPING, orderInGroup: 3, displayName: 'Primary Key Fields', documentation: 'The primary key columns: for record_key with a primitive key, the one column name (default __connect_key); with a struct key, the key fields to use (default all); for record_value, the value fields (default all).' })
  .define({ name: 'auto.create', type: 'BOOLEAN', defaultValue: false, importance: 'MEDIUM', group: DDL, orderInGroup: 1, displayName: 'Auto-Create', documentation: 'Whether to create a missing destination table (CREATE TABLE) from the record schema.' })
  .define({ name: 'auto.evolve', type: 'BOOLEAN', defaultValue: false, importance: 'MEDIUM', group: DDL, orderInGroup: 2, displayName: 'Auto-Evolve', documentation: 'Whether to add columns (ALTER TABLE ADD COLUMN) for record fields the table lacks; added columns are nullable.' });

/** Errors that span the sink's keys (Confluent's checks), by key. */
export function sinkCrossErrors(props: Readonly<Record<string, string>>): Map<string, string> {
  const errors = new Map<string, string>();
  const pkMode = props['pk.mode'] ?? 'none';
  if (props['insert.mode'] === 'upsert' && pkMode === 'none') errors.set('pk.mode', 'Invalid value none for configuration pk.mode: insert.mode=upsert needs a primary key (record_key or record_value)');
  if ((props['delete.enabled'] ?? '').trim().toLowerCase() === 'true' && pkMode !== 'record_key') errors.set('delete.enabled', `Invalid value true for configuration delete.enabled: deletes need pk.mode=record_key (got ${pkMode})`);
  urlError(props, errors);
  return errors;
}

const CONN = 'Connection';
const CDC = 'Replication';
const EVENTS = 'Events';

export const CDC_DEF = new ConfigDef()
  .define({ name: 'database.hostname', type: 'STRING', importance: 'HIGH', group: CONN, orderInGroup: 1, displayName: 'Hostname', documentation: 'Resolvable hostname or IP address of the database server.', validator: Validators.nonEmptyString() })
  .define({ name: 'database.port', type: 'INT', defaultValue: 5432, importance: 'HIGH', group: CONN, orderInGroup: 2, displayName: 'Port', documentation: 'Port of the database server.', validator: Validators.between(1, 65535) })
  .define({ name: 'database.user', type: 'STRING', importance: 'HIGH', group: CONN, orderInGroup: 3, displayName: 'User', documentation: 'Name of the database user (needs the REPLICATION attribute, or superuser).', validator: Validators.nonEmptyString() })
  .define({ name: 'database.password', type: 'PASSWORD', defaultValue: null, importance: 'HIGH', group: CONN, orderInGroup: 4, displayName: 'Password', documentation: 'Password of the database user.' })
  .define({ name: 'database.dbname', type: 'STRING', importance: 'HIGH', group: CONN, orderInGroup: 5, displayName: 'Database', documentation: 'The name of the database to capture changes from.', validator: Validators.nonEmptyString() })
  .define({ name: 'topic.prefix', type: 'STRING', importance: 'HIGH', group: EVENTS, orderInGroup: 1, displayName: 'Topic prefix', documentation: 'Topic prefix naming this server: change events of table s.t go to <topic.prefix>.s.t; also the source partition.', validator: Validators.nonEmptyString() })
  .define({ name: 'plugin.name', type: 'STRING', defaultValue: 'pgoutput', importance: 'MEDIUM', group: CDC, orderInGroup: 1, displayName: 'Plugin', recommendedValues: ['pgoutput'], validator: Validators.in('pgoutput'), documentation: 'The logical decoding plugin; only pgoutput (built into PostgreSQL 10+) is supported.' })
  .define({ name: 'slot.name', type: 'STRING', defaultValue: 'debezium', importance: 'MEDIUM', group: CDC, orderInGroup: 2, displayName: 'Slot', documentation: 'The logical replication slot to stream from; created when missing.', validator: Validators.nonEmptyString() })
  .define({ name: 'publication.name', type: 'STRING', defaultValue: 'dbz_publication', importance: 'MEDIUM', group: CDC, orderInGroup: 3, displayName: 'Publication', documentation: 'The publication whose tables are streamed.', validator: Validators.nonEmptyString() })
  .define({ name: 'publication.autocreate.mode', type: 'STRING', defaultValue: 'all_tables', importance: 'LOW', group: CDC, orderInGroup: 4, displayName: 'Publication Auto Create Mode', recommendedValues: ['all_tables', 'filtered', 'disabled'], validator: Validators.in('all_tables', 'filtered', 'disabled'), documentation: 'When the publication is missing: all_tables (FOR ALL TABLES), filtered (FOR TABLE the tables table.include.list matches) or disabled (fail).' })
  .define({ name: 'snapshot.mode', type: 'STRING', defaultValue: 'initial', importance: 'LOW', group: CDC, orderInGroup: 5, displayName: 'Snapshot mode', recommendedValues: ['initial', 'never', 'no_data'], validator: Validators.in('initial', 'never', 'no_data'), documentation: 'initial: when no offset is stored, read every included row (op r) before streaming changes; never or no_data: stream changes only, from where the slot starts.' })
  .define({ name: 'table.include.list', type: 'LIST', defaultValue: [], importance: 'HIGH', group: EVENTS, orderInGroup: 2, displayName: 'Include Tables', documentation: 'Regular expressions matched against schema.table; only matching tables are captured (empty: all the publication has).', validator: (name, value) => (Array.isArray(value) ? value : []).forEach((v) => Validators.regex()(name, v)) })
  .define({ name: 'tombstones.on.delete', type: 'BOOLEAN', defaultValue: true, importance: 'MEDIUM', group: EVENTS, orderInGroup: 3, displayName: 'Change the behaviour of Debezium with regards to delete operations', documentation: 'Whether a delete event is followed by a tombstone (null value) for log compaction.' })
  .define({ name: 'skipped.operations', type: 'LIST', defaultValue: ['t'], importance: 'LOW', group: EVENTS, orderInGroup: 4, displayName: 'Skipped Operations', documentation: 'Operations not emitted: c (inserts), u (updates), d (deletes), t (truncates), or none.', validator: (name, value) => (Array.isArray(value) ? value : []).forEach((v) => Validators.in('c', 'u', 'd', 't', 'none')(name, v)) })
  .define({ name: 'max.batch.size', type: 'INT', defaultValue: 2048, importance: 'MEDIUM', group: EVENTS, orderInGroup: 5, displayName: 'Change event batch size', documentation: 'Most events returned by one poll.', validator: Validators.atLeast(1) })
  .define({ name: 'poll.interval.ms', type: 'LONG', defaultValue: 500, importance: 'MEDIUM', group: EVENTS, orderInGroup: 6, displayName: 'Poll interval (ms)', documentation: 'How long a poll waits for new change events.', validator: Validators.atLeast(1) });

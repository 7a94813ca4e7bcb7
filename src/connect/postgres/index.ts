/** The PostgreSQL connectors (see README.md and docs/connect.md): the JDBC-style source and sink and the pgoutput CDC source. */
import type { ConnectorClass } from '../spi.js';
import { PostgresCdcSourceConnector } from './cdc-source.js';
import { PostgresSinkConnector } from './sink.js';
import { PostgresSourceConnector } from './source.js';

export { PostgresCdcSourceConnector } from './cdc-source.js';
export { PostgresCdcSourceTask } from './cdc-task.js';
export { decodePgOutput, decodeStreamMessage, encodeStandbyStatus, formatLsn, parseLsn } from './pgoutput.js';
export type { PgOutputMessage, StreamMessage } from './pgoutput.js';
export { PostgresSinkConnector, PostgresSinkTask } from './sink.js';
export { PostgresSourceConnector } from './source.js';
export { PostgresSourceTask } from './source-task.js';

/** The connector classes by the class names the plugin registry lists (ours, plus the Confluent/Debezium names their configs use). */
export const POSTGRES_CONNECTORS: readonly (readonly [string, ConnectorClass])[] = [
  ['io.tributary.connect.postgres.PostgresSourceConnector', PostgresSourceConnector],
  ['io.tributary.connect.postgres.PostgresSinkConnector', PostgresSinkConnector],
  ['io.tributary.connect.postgres.PostgresCdcSourceConnector', PostgresCdcSourceConnector],
  ['io.debezium.connector.postgresql.PostgresConnector', PostgresCdcSourceConnector],
];

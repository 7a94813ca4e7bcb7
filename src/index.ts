/**
 * The `tributary` package entry (`import { startCluster } from 'tributary'`).
 *
 * Keep this module light: importing the package must not load the broker
 * (startCluster loads it in its worker thread or child process only).
 */
export { startCluster, START_TIMEOUT_MS_DEFAULT, STOP_TIMEOUT_MS_DEFAULT } from './embedded/cluster.js';
export type { EmbeddedBroker, EmbeddedCluster, EmbeddedNode, Isolation, RestartOptions, StartClusterOptions, StartupTimings } from './embedded/cluster.js';
export { EmbeddedError, EmbeddedErrorCode } from './embedded/errors.js';
export { ConfigError } from './util/config/errors.js';
export type { ConfigErrorCode, ConfigProblem } from './util/config/errors.js';
export type { LogLevel } from './util/config/broker-defs.js';
/** The client library (Producer, Consumer, Admin, errors, serializers): see docs/client.md. */
export * from './client/index.js';

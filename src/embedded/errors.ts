/**
 * Errors `startCluster` and the cluster handle throw. Each has a stable
 * `code` (`ERR_TRIB_EMBEDDED_*`) documented in src/embedded/README.md (an
 * integration test checks it). A bad broker config is not one of these: it
 * rejects with the broker's own `ConfigError` (`ERR_TRIB_CONFIG_INVALID`),
 * with the same message `tributary start` prints.
 */

export const EmbeddedErrorCode = {
  /** An option of startCluster is wrong (brokers outside 1-9, unknown isolation, log.dirs in config...), or node(id) of no node. */
  INVALID_OPTIONS: 'ERR_TRIB_EMBEDDED_INVALID_OPTIONS',
  /** The broker threw while starting (port in use, unreadable data dir...); `cause` is its error. */
  START_FAILED: 'ERR_TRIB_EMBEDDED_START_FAILED',
  /** The broker's graceful shutdown threw; the host was ended and the temporary dir removed anyway. */
  STOP_FAILED: 'ERR_TRIB_EMBEDDED_STOP_FAILED',
  /** The broker did not report ready within startTimeoutMs; it was killed. */
  START_TIMEOUT: 'ERR_TRIB_EMBEDDED_START_TIMEOUT',
  /** The worker or child exited before the broker reported ready or stopped. */
  EXITED: 'ERR_TRIB_EMBEDDED_EXITED',
  /** restart() after stop(): the cluster is gone (and its temporary data with it). */
  STOPPED: 'ERR_TRIB_EMBEDDED_STOPPED',
  /** The operation needs the other isolation mode (a hard restart needs isolation: 'process'). */
  UNSUPPORTED: 'ERR_TRIB_EMBEDDED_UNSUPPORTED',
} as const;
/** One of the `ERR_TRIB_EMBEDDED_*` codes. */
export type EmbeddedErrorCode = (typeof EmbeddedErrorCode)[keyof typeof EmbeddedErrorCode];

/** An error starting, restarting or stopping an embedded cluster. */
export class EmbeddedError extends Error {
  readonly code: EmbeddedErrorCode;

  constructor(code: EmbeddedErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'EmbeddedError';
  }
}

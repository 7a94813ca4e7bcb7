/**
 * The answer to a request whose handler threw (connection.ts): the
 * handler's error response, UNKNOWN_SERVER_ERROR with an error log line,
 * except when storage ran out of file descriptors (README.md, "Connection rules").
 */
import { ApiKey } from '../protocol/api-keys.js';
import { ErrorCode } from '../protocol/errors.js';
import { StorageError } from '../storage/errors.js';
import type { AnyHandler } from './handler.js';
import { requestPartitions } from './metrics/log-context.js';
import type { RequestContext } from './request-context.js';

/** The error response for `err`, thrown by `handler` while serving `body`; logged with the request's context. */
export function failedRequestResponse(handler: AnyHandler, body: unknown, ctx: RequestContext, err: unknown): unknown {
  if (isFileLimit(err)) {
    // Out of file descriptors (storage already closed what it could): a
    // transient shortage, not a broken disk. The log stays online (Kafka
    // would take the log dir offline with KAFKA_STORAGE_ERROR) and the
    // client retries: Produce gets REQUEST_TIMED_OUT, which every producer
    // retries (nothing was appended for the failing partition, so an
    // idempotent retry cannot duplicate); other APIs get
    // UNKNOWN_SERVER_ERROR, which consumers retry. docs/configuration.md, log.open.files.max.
    ctx.logger.warn({ api: handler.name, correlationId: ctx.correlationId, clientId: ctx.clientId, reason: (err as Error).message }, 'request failed: out of file descriptors; the client will retry');
    return handler.errorResponse(body as never, ctx.apiKey === ApiKey.Produce ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.UNKNOWN_SERVER_ERROR, ctx);
  }
  ctx.logger.error(
    { err, api: handler.name, apiVersion: ctx.apiVersion, correlationId: ctx.correlationId, clientId: ctx.clientId, partitions: requestPartitions(body) },
    'request failed',
  );
  return handler.errorResponse(body as never, ErrorCode.UNKNOWN_SERVER_ERROR, ctx);
}

/** A storage call ran out of file descriptors (src/storage/file-handle-pool.ts). */
function isFileLimit(err: unknown): boolean {
  return err instanceof StorageError && err.code === 'ERR_TRIB_STORAGE_FILE_LIMIT';
}

/**
 * The Producer's retry policy: which errors a batch is retried on, the
 * backoff between attempts, and the error a batch fails with when its
 * deliveryTimeoutMs runs out (Java's producer, with the same defaults).
 */
import { errorInfo } from '../protocol/errors.js';
import { REFRESH_METADATA_ERRORS } from './cluster.js';
import {
  ClientErrorCode,
  ConnectionClosedError,
  ConnectionError,
  KafkaProtocolError,
  RequestTimeoutError,
  TributaryClientError,
} from '../net/errors.js';
import type { ProducerBatch } from './producer-accumulator.js';
import { PRODUCER_RETRY_BACKOFF_MS_MAX } from './producer-types.js';

/** True for the errors a batch is retried on: retriable Kafka codes, stale metadata, lost connections and timeouts. */
export function isRetriable(err: unknown): boolean {
  if (err instanceof KafkaProtocolError) return errorInfo(err.errorCode).retriable || REFRESH_METADATA_ERRORS.has(err.errorCode);
  return err instanceof ConnectionError || err instanceof ConnectionClosedError || err instanceof RequestTimeoutError;
}

/** The error of a batch not acknowledged within deliveryTimeoutMs; `cause` is its last error. */
export function deliveryTimeout(batch: ProducerBatch): TributaryClientError {
  const { topic, partition } = batch.queue;
  return new TributaryClientError(ClientErrorCode.DELIVERY_TIMEOUT, `records for ${topic}-${partition} were not acknowledged within deliveryTimeoutMs`, {
    cause: batch.lastError ?? undefined,
  });
}

/** The retry backoff: `baseMs` doubled per attempt, at most PRODUCER_RETRY_BACKOFF_MS_MAX. */
export function backoffMs(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** attempt, PRODUCER_RETRY_BACKOFF_MS_MAX);
}

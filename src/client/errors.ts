/**
 * Errors the client library throws. Every error has a stable `code`
 * (`ERR_TRIB_*`, as undici and fastify do) that callers branch on, and keeps
 * the underlying error as `cause`. Kafka error codes from the wire become a
 * `KafkaProtocolError` carrying the Kafka error name (`NOT_LEADER_OR_FOLLOWER`).
 *
 * Every code listed in `ClientErrorCode` is documented in src/client/README.md
 * (a unit test checks it).
 */
import { errorInfo, type KafkaErrorInfo } from '../protocol/errors.js';

export const ClientErrorCode = {
  /** The TCP connection could not be opened (refused, unreachable, DNS). */
  CONNECTION: 'ERR_TRIB_CONNECTION',
  /** The TCP connection was not established within connectTimeoutMs. */
  CONNECTION_TIMEOUT: 'ERR_TRIB_CONNECTION_TIMEOUT',
  /** The connection closed (by either side) while a request was pending, or before it was sent. */
  CONNECTION_CLOSED: 'ERR_TRIB_CONNECTION_CLOSED',
  /** No response within requestTimeoutMs; the connection is closed, as the Java client does. */
  REQUEST_TIMEOUT: 'ERR_TRIB_REQUEST_TIMEOUT',
  /** The broker sent bytes that do not parse (bad frame, correlation id, body). */
  PROTOCOL: 'ERR_TRIB_PROTOCOL',
  /** A response frame is larger than maxResponseBytes. */
  RESPONSE_TOO_LARGE: 'ERR_TRIB_RESPONSE_TOO_LARGE',
  /** A request is larger than maxRequestBytes. */
  REQUEST_TOO_LARGE: 'ERR_TRIB_REQUEST_TOO_LARGE',
  /** Too many requests are queued on one connection (maxQueuedRequests). */
  QUEUE_FULL: 'ERR_TRIB_QUEUE_FULL',
  /** The broker and the client share no version of an API. */
  UNSUPPORTED_VERSION: 'ERR_TRIB_UNSUPPORTED_VERSION',
  /** The broker answered with a Kafka error code; see `errorName`. */
  KAFKA: 'ERR_TRIB_KAFKA',
  /** None of the bootstrap brokers could be reached. */
  NO_BROKERS: 'ERR_TRIB_NO_BROKERS',
  /** A caller passed an invalid argument (bad host:port, partition, offset). */
  INVALID_ARGUMENT: 'ERR_TRIB_INVALID_ARGUMENT',
  /** The producer was closed before the record could be sent (or send() was called after close()). */
  PRODUCER_CLOSED: 'ERR_TRIB_PRODUCER_CLOSED',
  /** A record is larger than the producer's bufferMemory or maxRequestBytes. */
  RECORD_TOO_LARGE: 'ERR_TRIB_RECORD_TOO_LARGE',
  /** A record was not acknowledged within the producer's deliveryTimeoutMs (retries included). */
  DELIVERY_TIMEOUT: 'ERR_TRIB_DELIVERY_TIMEOUT',
  /** A key or value serializer threw; `cause` is its error. */
  SERIALIZATION: 'ERR_TRIB_SERIALIZATION',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

export class TributaryClientError extends Error {
  readonly code: ClientErrorCode;

  constructor(code: ClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'TributaryClientError';
  }
}

export class ConnectionError extends TributaryClientError {
  constructor(code: typeof ClientErrorCode.CONNECTION | typeof ClientErrorCode.CONNECTION_TIMEOUT, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ConnectionError';
  }
}

export class ConnectionClosedError extends TributaryClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ClientErrorCode.CONNECTION_CLOSED, message, options);
    this.name = 'ConnectionClosedError';
  }
}

export class RequestTimeoutError extends TributaryClientError {
  constructor(message: string) {
    super(ClientErrorCode.REQUEST_TIMEOUT, message);
    this.name = 'RequestTimeoutError';
  }
}

export class ProtocolError extends TributaryClientError {
  constructor(
    code: typeof ClientErrorCode.PROTOCOL | typeof ClientErrorCode.RESPONSE_TOO_LARGE | typeof ClientErrorCode.REQUEST_TOO_LARGE,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = 'ProtocolError';
  }
}

export class UnsupportedVersionError extends TributaryClientError {
  constructor(
    readonly apiKey: number,
    message: string,
  ) {
    super(ClientErrorCode.UNSUPPORTED_VERSION, message);
    this.name = 'UnsupportedVersionError';
  }
}

/** Where in a request a Kafka error applied. */
export interface KafkaErrorContext {
  /** The API that failed, e.g. 'Produce'. */
  api?: string;
  topic?: string;
  partition?: number;
  /** The broker's error message, when the response carries one. */
  serverMessage?: string | null;
}

/** A Kafka error code from a response, e.g. UNKNOWN_TOPIC_OR_PARTITION (3). */
export class KafkaProtocolError extends TributaryClientError {
  readonly errorCode: number;
  /** Kafka's name for the code, e.g. 'NOT_LEADER_OR_FOLLOWER'. */
  readonly errorName: string;
  readonly retriable: boolean;
  readonly topic: string | undefined;
  readonly partition: number | undefined;
  readonly serverMessage: string | undefined;

  constructor(errorCode: number, context: KafkaErrorContext = {}) {
    const info: KafkaErrorInfo = errorInfo(errorCode);
    super(ClientErrorCode.KAFKA, describeKafkaError(info, context));
    this.name = 'KafkaProtocolError';
    this.errorCode = errorCode;
    this.errorName = info.name;
    this.retriable = info.retriable;
    this.topic = context.topic;
    this.partition = context.partition;
    this.serverMessage = context.serverMessage ?? undefined;
  }
}

function describeKafkaError(info: KafkaErrorInfo, context: KafkaErrorContext): string {
  const where: string[] = [];
  if (context.api !== undefined) where.push(context.api);
  if (context.topic !== undefined) where.push(context.partition === undefined ? context.topic : `${context.topic}-${context.partition}`);
  const prefix = where.length > 0 ? `${where.join(' ')}: ` : '';
  const detail = context.serverMessage ? ` (${context.serverMessage})` : '';
  return `${prefix}${info.name}: ${info.description}${detail}`;
}

/** Throws a KafkaProtocolError when `errorCode` is not 0. */
export function throwIfKafkaError(errorCode: number, context: KafkaErrorContext = {}): void {
  if (errorCode !== 0) throw new KafkaProtocolError(errorCode, context);
}

export function isKafkaError(err: unknown, ...names: string[]): err is KafkaProtocolError {
  return err instanceof KafkaProtocolError && (names.length === 0 || names.includes(err.errorName));
}

export function invalidArgument(message: string): TributaryClientError {
  return new TributaryClientError(ClientErrorCode.INVALID_ARGUMENT, message);
}

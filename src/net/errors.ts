/**
 * Errors the connection (src/net) and the client library throw. Every error has a stable `code`
 * (`ERR_TRIB_*`, as undici and fastify do) that callers branch on, and keeps
 * the underlying error as `cause`. Kafka error codes from the wire become a
 * `KafkaProtocolError` carrying the Kafka error name (`NOT_LEADER_OR_FOLLOWER`).
 *
 * Every code listed in `ClientErrorCode` is documented in src/client/README.md
 * (a unit test checks it).
 */
import { errorInfo, type KafkaErrorInfo } from '../protocol/errors.js';
import { TributaryError } from '../util/errors.js';

export { TributaryError };

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
  /** Producer options that contradict each other, e.g. `idempotent: true` with `acks: 1` (Java's ConfigException). */
  INVALID_CONFIG: 'ERR_TRIB_INVALID_CONFIG',
  /** The idempotent producer was fenced (INVALID_PRODUCER_EPOCH, PRODUCER_FENCED): it cannot send any more; `cause` is the Kafka error. */
  PRODUCER_FENCED: 'ERR_TRIB_PRODUCER_FENCED',
  /** The transaction failed (a send or an offset commit of it failed, or TRANSACTION_ABORTABLE): it can only be aborted; `cause` is the error. */
  TRANSACTION_ABORTABLE: 'ERR_TRIB_TRANSACTION_ABORTABLE',
  /** A transaction method called in the wrong state (commit without begin, begin twice, a non-transactional producer). */
  TRANSACTION_STATE: 'ERR_TRIB_TRANSACTION_STATE',
  /** Bytes that do not parse outside a response frame: a record batch, an embedded consumer-protocol blob (`DecodeError`). */
  DECODE: 'ERR_TRIB_DECODE',
  /** The consumer was closed: calls after close(), and commits or seeks that close() cut short. */
  CONSUMER_CLOSED: 'ERR_TRIB_CONSUMER_CLOSED',
  /** A key or value deserializer threw; `cause` is its error. */
  DESERIALIZATION: 'ERR_TRIB_DESERIALIZATION',
  /** A consumer position is out of range (or unknown) and autoOffsetReset is 'none'. */
  OFFSET_OUT_OF_RANGE: 'ERR_TRIB_OFFSET_OUT_OF_RANGE',
  /** After a leader change the consumer's position is past the new leader's log for its epoch: records it read were truncated (KIP-320), and autoOffsetReset is 'none'. */
  LOG_TRUNCATION: 'ERR_TRIB_LOG_TRUNCATION',
} as const;
/** One of the `ERR_TRIB_*` codes of {@link ClientErrorCode}. */
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/**
 * The base of the client's errors: a {@link TributaryError} whose `code` is one
 * of {@link ClientErrorCode}. Branch on `code`, not on the class or message.
 */
export class TributaryClientError extends TributaryError<ClientErrorCode> {
  constructor(code: ClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'TributaryClientError';
  }
}

/** A TCP connection could not be opened (`ERR_TRIB_CONNECTION`) or not in time (`ERR_TRIB_CONNECTION_TIMEOUT`). */
export class ConnectionError extends TributaryClientError {
  constructor(code: typeof ClientErrorCode.CONNECTION | typeof ClientErrorCode.CONNECTION_TIMEOUT, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ConnectionError';
  }
}

/** The connection closed while a request was pending or queued (`ERR_TRIB_CONNECTION_CLOSED`); `cause` says why. */
export class ConnectionClosedError extends TributaryClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ClientErrorCode.CONNECTION_CLOSED, message, options);
    this.name = 'ConnectionClosedError';
  }
}

/** No response within the request timeout (`ERR_TRIB_REQUEST_TIMEOUT`); the connection is closed. */
export class RequestTimeoutError extends TributaryClientError {
  constructor(message: string) {
    super(ClientErrorCode.REQUEST_TIMEOUT, message);
    this.name = 'RequestTimeoutError';
  }
}

/** The broker's bytes do not parse, or a frame is too large (`ERR_TRIB_PROTOCOL`, `ERR_TRIB_RESPONSE_TOO_LARGE`, `ERR_TRIB_REQUEST_TOO_LARGE`). */
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

/** The broker and the client share no version of an API (`ERR_TRIB_UNSUPPORTED_VERSION`). */
export class UnsupportedVersionError extends TributaryClientError {
  constructor(
    /** The API key the broker does not support in a version the client knows. */
    readonly apiKey: number,
    message: string,
  ) {
    super(ClientErrorCode.UNSUPPORTED_VERSION, message);
    this.name = 'UnsupportedVersionError';
  }
}

/** Producer options that contradict each other (`ERR_TRIB_INVALID_CONFIG`), thrown by `Producer.connect`. */
export class ClientConfigError extends TributaryClientError {
  constructor(message: string) {
    super(ClientErrorCode.INVALID_CONFIG, message);
    this.name = 'ClientConfigError';
  }
}

/** The transaction must be aborted (`ERR_TRIB_TRANSACTION_ABORTABLE`); `cause` says why. The producer can go on with a new transaction. */
export class TransactionAbortableError extends TributaryClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ClientErrorCode.TRANSACTION_ABORTABLE, message, options);
    this.name = 'TransactionAbortableError';
  }
}

/**
 * The idempotent or transactional producer was fenced (`ERR_TRIB_PRODUCER_FENCED`):
 * the broker answered INVALID_PRODUCER_EPOCH or PRODUCER_FENCED for its current
 * epoch (for a transactional producer: a newer instance with the same
 * transactional id took over). Every pending and later send fails with it;
 * close the producer and make a new one.
 */
export class ProducerFencedError extends TributaryClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ClientErrorCode.PRODUCER_FENCED, message, options);
    this.name = 'ProducerFencedError';
  }
}

/**
 * The log was truncated under the consumer (`ERR_TRIB_LOG_TRUNCATION`,
 * KIP-320): after a leader change, OffsetForLeaderEpoch for the epoch of the
 * last record consumed ended below the consumer's position, so records it
 * handed out are no longer in the log. Thrown only with autoOffsetReset
 * 'none' (otherwise the consumer moves to `divergentOffset` and warns); the
 * partition stops until `seek()`.
 */
export class LogTruncationError extends TributaryClientError {
  constructor(
    readonly topic: string,
    readonly partition: number,
    /** The consumer's position (next offset to read) when the truncation was found. */
    readonly fetchOffset: bigint,
    /** Where the new leader's log for the consumer's epoch ends; null when the leader knows no such epoch. */
    readonly divergentOffset: bigint | null,
    /** The epoch that offset belongs to, -1 when unknown. */
    readonly divergentEpoch: number,
  ) {
    super(
      ClientErrorCode.LOG_TRUNCATION,
      divergentOffset === null
        ? `${topic}-${partition}: the log was truncated below position ${fetchOffset} (the leader has no end offset for the last consumed epoch) and autoOffsetReset is 'none'`
        : `${topic}-${partition}: the log was truncated: position ${fetchOffset} is past the leader's end offset ${divergentOffset} (epoch ${divergentEpoch}) and autoOffsetReset is 'none' (seek() to go on)`,
    );
    this.name = 'LogTruncationError';
  }
}

/** Where in a request a Kafka error applied. */
export interface KafkaErrorContext {
  /** The API that failed, e.g. 'Produce'. */
  api?: string;
  /** The topic the error applies to. */
  topic?: string;
  /** The partition the error applies to (with `topic`). */
  partition?: number;
  /** The broker's error message, when the response carries one. */
  serverMessage?: string | null;
}

/**
 * A Kafka error code from a response, e.g. UNKNOWN_TOPIC_OR_PARTITION (3);
 * `code` is always `ERR_TRIB_KAFKA`, `kafkaErrorName` says which.
 */
export class KafkaProtocolError extends TributaryClientError {
  /** The Kafka error code from the wire, e.g. 6. */
  readonly kafkaErrorCode: number;
  /** Kafka's name for the code, e.g. 'NOT_LEADER_OR_FOLLOWER' ('UNKNOWN_ERROR_<n>' for a code this client does not know). */
  readonly kafkaErrorName: string;
  /** Whether Kafka classes the error as retriable (the same request may succeed later). */
  readonly retriable: boolean;
  /** The topic the error applies to, when it applies to one. */
  readonly topic: string | undefined;
  /** The partition the error applies to, when it applies to one. */
  readonly partition: number | undefined;
  /** The broker's error message, when the response carries one. */
  readonly serverMessage: string | undefined;

  constructor(errorCode: number, context: KafkaErrorContext = {}) {
    const info: KafkaErrorInfo = errorInfo(errorCode);
    super(ClientErrorCode.KAFKA, describeKafkaError(info, context));
    this.name = 'KafkaProtocolError';
    this.kafkaErrorCode = errorCode;
    this.kafkaErrorName = info.name;
    this.retriable = info.retriable;
    this.topic = context.topic;
    this.partition = context.partition;
    this.serverMessage = context.serverMessage ?? undefined;
  }

  /** The same as `kafkaErrorCode` (the name used before the `kafka` prefix). */
  get errorCode(): number {
    return this.kafkaErrorCode;
  }

  /** The same as `kafkaErrorName` (the name used before the `kafka` prefix). */
  get errorName(): string {
    return this.kafkaErrorName;
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

/** True when `err` is a KafkaProtocolError, and (when names are given) one of those Kafka error names. */
export function isKafkaError(err: unknown, ...names: string[]): err is KafkaProtocolError {
  return err instanceof KafkaProtocolError && (names.length === 0 || names.includes(err.kafkaErrorName));
}

/** True when `err` is a TributaryError, and (when codes are given) has one of those codes. */
export function isTributaryError(err: unknown, ...codes: string[]): err is TributaryError {
  return err instanceof TributaryError && (codes.length === 0 || codes.includes(err.code));
}

/** An `ERR_TRIB_INVALID_ARGUMENT` error (thrown before anything is sent). */
export function invalidArgument(message: string): TributaryClientError {
  return new TributaryClientError(ClientErrorCode.INVALID_ARGUMENT, message);
}

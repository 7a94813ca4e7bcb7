/** Small helpers of the Producer: the per-send sink, a FIFO, error classification, option checks. */
import { errorInfo } from '../protocol/errors.js';
import type { BytesInput, RecordHeaderInput } from '../protocol/record-batch/record.js';
import { REFRESH_METADATA_ERRORS } from './cluster.js';
import {
  ClientErrorCode,
  ConnectionClosedError,
  ConnectionError,
  KafkaProtocolError,
  RequestTimeoutError,
  TributaryClientError,
  invalidArgument,
} from '../net/errors.js';
import type { ProducerBatch, RecordMetadata, Sink } from './producer-accumulator.js';
import { PRODUCER_RETRY_BACKOFF_MS_MAX, type ProducerHeaders } from './producer-types.js';

/** The sink of one send(): a class, not closures, to keep per-record allocation small. */
export class RecordSink implements Sink {
  constructor(
    private readonly resolve: (m: RecordMetadata) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  done(topic: string, partition: number, offset: bigint): void {
    this.resolve({ topic, partition, offset });
  }

  fail(err: Error): void {
    this.reject(err);
  }
}

/** A queue with O(1) shift (Array#shift is O(n) on large arrays). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns the items matching `predicate`, keeping the others in order. */
  removeWhere(predicate: (item: T) => boolean): T[] {
    const live = this.items.slice(this.head);
    this.items = live.filter((x) => !predicate(x));
    this.head = 0;
    return live.filter(predicate);
  }
}

export function isRetriable(err: unknown): boolean {
  if (err instanceof KafkaProtocolError) return errorInfo(err.errorCode).retriable || REFRESH_METADATA_ERRORS.has(err.errorCode);
  return err instanceof ConnectionError || err instanceof ConnectionClosedError || err instanceof RequestTimeoutError;
}

export function deliveryTimeout(batch: ProducerBatch): TributaryClientError {
  const { topic, partition } = batch.queue;
  return new TributaryClientError(ClientErrorCode.DELIVERY_TIMEOUT, `records for ${topic}-${partition} were not acknowledged within deliveryTimeoutMs`, {
    cause: batch.lastError ?? undefined,
  });
}

export function toHeaderList(headers: ProducerHeaders): RecordHeaderInput[] {
  if (Array.isArray(headers)) return headers as RecordHeaderInput[];
  return Object.entries(headers as Record<string, BytesInput>).map(([key, value]) => ({ key, value }));
}

export function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw invalidArgument(`${name} must be a positive number, got ${value}`);
  return value;
}

export function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw invalidArgument(`${name} must be >= 0, got ${value}`);
  return value;
}

/** The retry backoff: `baseMs` doubled per attempt, at most PRODUCER_RETRY_BACKOFF_MS_MAX. */
export function backoffMs(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** attempt, PRODUCER_RETRY_BACKOFF_MS_MAX);
}


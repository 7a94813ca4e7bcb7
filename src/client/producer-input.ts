/**
 * Where a send() meets the Producer: the option checks, the header forms a
 * caller may pass, and the sink that settles one send()'s promise.
 */
import type { BytesInput, RecordHeaderInput } from '../protocol/record-batch/record.js';
import { invalidArgument } from '../net/errors.js';
import type { BatchAck, RecordMetadata, Sink } from './producer-accumulator.js';
import type { ProducerHeaders } from './producer-types.js';

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

/**
 * The sink of one sendBatch(): resolves with the acknowledged runs once every
 * record is settled, or rejects with the first error. It keeps no reference
 * to the records, so they are garbage as soon as they are accepted.
 */
export class BatchSink implements Sink {
  readonly promise: Promise<BatchAck[]>;
  private readonly acks: BatchAck[] = [];
  private failed: Error | null = null;
  private resolve!: (acks: BatchAck[]) => void;
  private reject!: (err: Error) => void;

  constructor(private remaining: number) {
    this.promise = new Promise<BatchAck[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  done(topic: string, partition: number, baseOffset: bigint, recordCount: number): void {
    this.acks.push({ topic, partition, baseOffset, recordCount });
    this.settle(recordCount);
  }

  fail(err: Error, count: number): void {
    this.failed ??= err;
    this.settle(count);
  }

  /** Accepting the records threw: the promise rejects (records accepted before still complete, unobserved). */
  abort(err: unknown): void {
    this.reject(err as Error);
  }

  private settle(count: number): void {
    this.remaining -= count;
    if (this.remaining > 0) return;
    if (this.failed === null) this.resolve(this.acks);
    else this.reject(this.failed);
  }
}

/** Headers as a list, from either form a caller may pass (an object, or a list of `{ key, value }`). */
export function toHeaderList(headers: ProducerHeaders): RecordHeaderInput[] {
  if (Array.isArray(headers)) return headers as RecordHeaderInput[];
  return Object.entries(headers as Record<string, BytesInput>).map(([key, value]) => ({ key, value }));
}

/** `value` when it is a finite number > 0; ERR_TRIB_INVALID_ARGUMENT otherwise. */
export function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw invalidArgument(`${name} must be a positive number, got ${value}`);
  return value;
}

/** `value` when it is a finite number >= 0; ERR_TRIB_INVALID_ARGUMENT otherwise. */
export function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw invalidArgument(`${name} must be >= 0, got ${value}`);
  return value;
}

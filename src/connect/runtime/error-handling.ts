/**
 * Per-record error handling (Kafka's RetryWithToleranceOperator, KIP-298):
 * an operation that throws RetriableError is retried with a doubling
 * backoff (capped by errors.retry.delay.max.ms) until errors.retry.timeout.ms
 * (0: no retries, -1: forever); any other error, or a retriable one out of
 * time, fails the task with errors.tolerance=none, or skips the record with
 * errors.tolerance=all (logged when errors.log.enable, and sent to the dead
 * letter queue by sink tasks that have one).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RetriableError } from '../spi.js';

export type ErrorStage = 'KEY_CONVERTER' | 'VALUE_CONVERTER' | 'HEADER_CONVERTER' | 'TRANSFORMATION' | 'TASK_PUT' | 'TASK_POLL' | 'KAFKA_PRODUCE' | 'KAFKA_CONSUME';

export interface ErrorPolicy {
  tolerance: 'none' | 'all';
  retryTimeoutMs: number;
  retryDelayMaxMs: number;
  logEnabled: boolean;
  logIncludeMessages: boolean;
}

export function errorPolicy(props: Readonly<Record<string, string>>): ErrorPolicy {
  return {
    tolerance: (props['errors.tolerance'] ?? 'none').trim().toLowerCase() === 'all' ? 'all' : 'none',
    retryTimeoutMs: Number(props['errors.retry.timeout.ms'] ?? '0'),
    retryDelayMaxMs: Number(props['errors.retry.delay.max.ms'] ?? '60000'),
    logEnabled: (props['errors.log.enable'] ?? 'false').trim().toLowerCase() === 'true',
    logIncludeMessages: (props['errors.log.include.messages'] ?? 'false').trim().toLowerCase() === 'true',
  };
}

/** A record given up on: which stage failed and why. */
export interface ErrorContext {
  stage: ErrorStage;
  error: Error;
}

/** The task must fail: tolerance none, or a failure outside record processing. */
export class ToleranceExceededError extends Error {
  override readonly name = 'ConnectException';
  constructor(
    readonly stage: ErrorStage,
    cause: Error,
  ) {
    super(`Tolerance exceeded in error handler (stage ${stage}): ${cause.message}`, { cause });
  }
}

const RETRY_BACKOFF_MS_FIRST = 300;

export class RetryWithTolerance {
  /** Records skipped since start (for metrics). */
  skipped = 0;

  constructor(
    private readonly policy: ErrorPolicy,
    private readonly log: (message: string) => void,
    private readonly stopping: () => boolean,
  ) {}

  get tolerateAll(): boolean {
    return this.policy.tolerance === 'all';
  }

  /**
   * Runs op with retries; returns its result, or `{ failed }` when the record
   * is to be skipped (tolerance all). Throws ToleranceExceededError otherwise.
   */
  async execute<T>(stage: ErrorStage, op: () => T | Promise<T>, describe: () => string = () => ''): Promise<{ ok: T } | { failed: ErrorContext }> {
    const deadline = this.policy.retryTimeoutMs < 0 ? Infinity : Date.now() + this.policy.retryTimeoutMs;
    let backoffMs = RETRY_BACKOFF_MS_FIRST;
    for (;;) {
      try {
        return { ok: await op() };
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        const retriable = error instanceof RetriableError || error.name === 'RetriableException';
        const waitMs = Math.min(backoffMs, this.policy.retryDelayMaxMs, deadline - Date.now());
        if (retriable && waitMs > 0 && !this.stopping()) {
          await sleep(waitMs);
          backoffMs *= 2;
          continue;
        }
        return this.giveUp(stage, error, describe);
      }
    }
  }

  private giveUp(stage: ErrorStage, error: Error, describe: () => string): { failed: ErrorContext } {
    if (this.policy.logEnabled) {
      const detail = this.policy.logIncludeMessages ? ` ${describe()}` : '';
      this.log(`Error encountered in task. Executing stage '${stage}' with class '${error.name}'${detail}: ${error.message}`);
    }
    if (this.policy.tolerance === 'none') throw new ToleranceExceededError(stage, error);
    this.skipped++;
    return { failed: { stage, error } };
  }
}

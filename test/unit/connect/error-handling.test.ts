/**
 * RetryWithTolerance: retriable errors are retried within
 * errors.retry.timeout.ms, other errors are not; tolerance none throws,
 * tolerance all skips (and logs with errors.log.enable).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RetryWithTolerance, ToleranceExceededError, errorPolicy } from '../../../src/connect/runtime/error-handling.js';
import { RetriableError } from '../../../src/connect/spi.js';

function flaky(failures: number, error: () => Error): { op: () => string; calls: () => number } {
  let calls = 0;
  return {
    op: () => {
      calls++;
      if (calls <= failures) throw error();
      return 'done';
    },
    calls: () => calls,
  };
}

test('retriable errors are retried until errors.retry.timeout.ms', async () => {
  const policy = errorPolicy({ 'errors.retry.timeout.ms': '5000', 'errors.retry.delay.max.ms': '10' });
  const f = flaky(2, () => new RetriableError('busy'));
  const r = await new RetryWithTolerance(policy, () => undefined, () => false).execute('TASK_PUT', f.op);
  assert.deepEqual(r, { ok: 'done' });
  assert.equal(f.calls(), 3);
});

test('without a retry timeout, or for other errors, tolerance none fails at once', async () => {
  const none = new RetryWithTolerance(errorPolicy({}), () => undefined, () => false);
  const f = flaky(1, () => new RetriableError('busy'));
  await assert.rejects(none.execute('TASK_PUT', f.op), (err: unknown) => err instanceof ToleranceExceededError && err.stage === 'TASK_PUT');
  assert.equal(f.calls(), 1);
  const retrying = new RetryWithTolerance(errorPolicy({ 'errors.retry.timeout.ms': '5000' }), () => undefined, () => false);
  const g = flaky(1, () => new Error('bad data'));
  await assert.rejects(retrying.execute('VALUE_CONVERTER', g.op), /stage VALUE_CONVERTER\): bad data/);
  assert.equal(g.calls(), 1);
});

test('a retriable error that outlasts the timeout is given up', async () => {
  const policy = errorPolicy({ 'errors.retry.timeout.ms': '50', 'errors.retry.delay.max.ms': '10', 'errors.tolerance': 'all' });
  const f = flaky(1_000, () => new RetriableError('down'));
  const r = await new RetryWithTolerance(policy, () => undefined, () => false).execute('TASK_PUT', f.op);
  assert.ok('failed' in r);
  assert.ok(f.calls() > 1 && f.calls() < 20, `retried a few times (${f.calls()})`);
});

test('tolerance all skips and logs when errors.log.enable', async () => {
  const logs: string[] = [];
  const h = new RetryWithTolerance(errorPolicy({ 'errors.tolerance': 'ALL', 'errors.log.enable': 'true', 'errors.log.include.messages': 'true' }), (m) => logs.push(m), () => false);
  const r = await h.execute('TRANSFORMATION', () => {
    throw new TypeError('nope');
  }, () => 'record at t-0@5');
  assert.ok('failed' in r && r.failed.stage === 'TRANSFORMATION');
  assert.equal(h.skipped, 1);
  assert.deepEqual(logs, ["Error encountered in task. Executing stage 'TRANSFORMATION' with class 'TypeError' record at t-0@5: nope"]);
});

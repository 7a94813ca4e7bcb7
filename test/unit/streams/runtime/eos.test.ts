/**
 * exactly_once_v2 pieces without a broker: the config's defaults (Kafka's
 * commit.interval.ms of 100 under exactly-once), how a failed transaction is
 * classified (fenced, abortable, group generation gone: through `cause`
 * chains), and the checkpoint rule helpers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaProtocolError, ProducerFencedError, TransactionAbortableError } from '../../../../src/client/index.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { resolveConfig } from '../../../../src/streams/runtime/config.js';
import { isAbortable, isFenced, isMigrated } from '../../../../src/streams/runtime/eos-recovery.js';
import { deleteCheckpoint, readCheckpoint, writeCheckpoint } from '../../../../src/streams/runtime/checkpoint.js';
import { StreamsError, StreamsErrorCode } from '../../../../src/streams/index.js';

test('commit interval: 30000 under at_least_once, 100 under exactly_once_v2 (Kafka), an explicit value wins', () => {
  const base = { applicationId: 'a', bootstrapServers: 'x:1' };
  assert.equal(resolveConfig(base).commitIntervalMs, 30_000);
  assert.equal(resolveConfig({ ...base, processingGuarantee: 'exactly_once_v2' }).commitIntervalMs, 100);
  assert.equal(resolveConfig({ ...base, processingGuarantee: 'exactly_once_v2', commitIntervalMs: 500 }).commitIntervalMs, 500);
  assert.equal(resolveConfig({ ...base, processingGuarantee: 'exactly_once_v2' }).processingGuarantee, 'exactly_once_v2');
});

test('a failed transaction is classified through its cause chain', () => {
  const fenced = new ProducerFencedError('fenced');
  const wrapped = new StreamsError(StreamsErrorCode.PROCESSING, 'output failed', { cause: fenced });
  assert.equal(isFenced(wrapped), true);
  assert.equal(isAbortable(wrapped), false);
  const generation = new TransactionAbortableError('abort', { cause: new KafkaProtocolError(ErrorCode.ILLEGAL_GENERATION, { api: 'TxnOffsetCommit' }) });
  assert.equal(isAbortable(generation), true);
  assert.equal(isMigrated(generation), true, 'a TxnOffsetCommit refused for the generation means a rejoin');
  const timeout = new TransactionAbortableError('abort', { cause: new KafkaProtocolError(ErrorCode.REQUEST_TIMED_OUT, { api: 'Produce' }) });
  assert.equal(isMigrated(timeout), false);
  assert.equal(isFenced(new Error('other')) || isAbortable(new Error('other')) || isMigrated(new Error('other')), false);
});

test('deleteCheckpoint removes the checkpoint only, and tolerates its absence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eos-ckpt-'));
  try {
    writeCheckpoint(dir, new Map([['app-store-changelog:0', 42n]]));
    writeFileSync(join(dir, 'data'), 'x');
    assert.deepEqual(readCheckpoint(dir), new Map([['app-store-changelog:0', 42n]]));
    deleteCheckpoint(dir);
    assert.equal(readCheckpoint(dir), null);
    assert.equal(existsSync(join(dir, 'data')), true);
    deleteCheckpoint(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

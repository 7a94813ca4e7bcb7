/**
 * The transactional producer's partition gate (producer-transactions.ts):
 * a batch that reaches the gate after the transaction turned abortable (its
 * records waited for metadata while another partition's AddPartitionsToTxn
 * failed) can never join the transaction. It must fail, or the sendBatch()
 * awaiting it, and the abort after it, wait forever; a chaos run
 * (ctp-processes) hung that way for its whole timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../src/client/cluster.js';
import { TransactionManager, type TxnSenderControl } from '../../../src/client/producer-transactions.js';

function recordingSender(): { sender: TxnSenderControl; failed: { topic: string; partition: number; err: Error }[] } {
  const failed: { topic: string; partition: number; err: Error }[] = [];
  const sender: TxnSenderControl = {
    assignProducerId: () => undefined,
    scheduleDrain: () => undefined,
    fail: () => undefined,
    failUnsent: (topic, partition, err) => failed.push({ topic, partition, err }),
  };
  return { sender, failed };
}

// The gate makes no request in the states below; the cluster is never used.
const noCluster = {} as unknown as Cluster;

for (const state of ['abortable', 'fenced'] as const) {
  test(`a partition meeting the gate of a ${state} transaction: held back, and its unsent batches fail`, async () => {
    const { sender, failed } = recordingSender();
    const tm = new TransactionManager(noCluster, 'txn-gate', 60_000, sender);
    tm.state = state;
    assert.equal(tm.gate('orders', 2), false);
    await new Promise<void>((r) => queueMicrotask(r));
    assert.equal(failed.length, 1);
    assert.deepEqual({ topic: failed[0]?.topic, partition: failed[0]?.partition }, { topic: 'orders', partition: 2 });
    assert.ok(failed[0]?.err instanceof Error);
  });
}

test('no transaction open yet (ready): the gate holds batches back and fails nothing', async () => {
  const { sender, failed } = recordingSender();
  const tm = new TransactionManager(noCluster, 'txn-gate', 60_000, sender);
  tm.state = 'ready';
  assert.equal(tm.gate('orders', 0), false);
  await new Promise<void>((r) => queueMicrotask(r));
  assert.deepEqual(failed, []);
});

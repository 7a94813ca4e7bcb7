// The hanging-transaction rule (hanging.ts): open past the maximum timeout
// and unknown to every coordinator; a coordinator that will still end it
// (Ongoing with the partition, or a Prepare* state) keeps it from hanging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coordinatorKnows, findHanging, type CoordinatorTxnView, type OpenPartitionTxn } from '../../../../src/coordinator/transaction/hanging.js';

const open: OpenPartitionTxn = { topic: 't', partition: 0, producerId: 7n, producerEpoch: 2, coordinatorEpoch: 1, firstOffset: 10n };
const view = (state: string, partitions = [{ topic: 't', partition: 0 }], producerId = 7n): CoordinatorTxnView => ({ transactionalId: 'tx', state, producerId, producerEpoch: 2, partitions });

test('a coordinator knows an open transaction while it will still end it', () => {
  assert.equal(coordinatorKnows(open, [view('Ongoing')]), true);
  assert.equal(coordinatorKnows(open, [view('PrepareAbort', [])]), true);
  assert.equal(coordinatorKnows(open, [view('PrepareCommit', [])]), true);
  assert.equal(coordinatorKnows(open, [view('Ongoing', [{ topic: 't', partition: 1 }])]), false, 'Ongoing without this partition');
  assert.equal(coordinatorKnows(open, [view('CompleteCommit', [])]), false, 'already ended');
  assert.equal(coordinatorKnows(open, [view('Empty', [])]), false);
  assert.equal(coordinatorKnows(open, [view('Ongoing', undefined, 8n)]), false, 'another producer');
  assert.equal(coordinatorKnows(open, []), false, 'nobody lists the producer');
});

test('only transactions open at least the maximum timeout can hang', () => {
  const young = { ...open, partition: 1 };
  const ages = new Map([[open, 60_000], [young, 59_999]]);
  assert.deepEqual(findHanging([open, young], (t) => ages.get(t) ?? 0, 60_000, []), [open]);
  assert.deepEqual(findHanging([open, young], (t) => ages.get(t) ?? 0, 60_000, [view('Ongoing')]), []);
});

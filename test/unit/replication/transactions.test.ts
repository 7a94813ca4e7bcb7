/**
 * The partition leader's side of transactions on the data path
 * (ReplicaManager): read_committed fetches bounded by the LSO with the
 * aborted transactions listed, long polls woken by markers, WriteTxnMarkers
 * (txn-markers.ts) with its fencing, KIP-890 verification of the first
 * transactional append (txn-verification.ts, with a fake verifier), and a
 * follower's producer state following replicated markers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { setBaseOffset } from '../../../src/protocol/record-batch/header.js';
import { ReplicaManager, type AppendRequest } from '../../../src/replication/replica-manager.js';
import type { TopicRules } from '../../../src/replication/topic-rules.js';
import type { TransactionVerifier, TxnVerificationOutcome, TxnVerificationRequest } from '../../../src/replication/txn-verification.js';
import type { TransactionCompleted } from '../../../src/replication/txn-markers.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { VirtualTimers } from '../../helpers/virtual-timers.js';
import { marker, txnBatch } from '../storage/txn-fixture.js';

const SELF = 1;
const RULES: TopicRules = {
  maxMessageBytes: 1_048_588, segmentBytes: 1 << 30, messageTimestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: 1, compacted: false,
};
const A = 10n;
const B = 20n;

function env(indexIntervalBytes = DEFAULT_LOG_CONFIG.indexIntervalBytes) {
  const fs = new MemoryFileSystem();
  const timers = new VirtualTimers();
  const cfg = { ...DEFAULT_LOG_CONFIG, indexIntervalBytes };
  const { manager } = LogManager.open({ fs, clock: timers.clock, dataDir: '/data', defaultConfig: cfg });
  const rm = new ReplicaManager({
    logManager: manager, localNodeId: SELF, logConfigFor: () => ({ ...cfg }), topicRules: () => RULES,
    topicExists: (topic) => topic !== 'nope', clock: timers.clock, timers, logger: pino({ level: 'silent' }),
  });
  const assign = (leader = SELF, leaderEpoch = 0) =>
    rm.applyAssignment({ topic: 't', topicId: 't-id', partition: 0, leader, leaderEpoch, partitionEpoch: 0, replicas: [SELF, 2], isr: leader === SELF ? [SELF] : [2, SELF] });
  return { rm, timers, assign };
}

const produce = (records: Buffer, transactionalId: string | null = 'tx'): AppendRequest => ({
  origin: 'client', acks: 1, timeoutMs: 1000, transactionalId, entries: [{ topic: 't', partition: 0, records }],
});

async function send(rm: ReplicaManager, records: Buffer, transactionalId: string | null = 'tx'): Promise<number> {
  return (await rm.appendRecords(produce(records, transactionalId)))[0]?.errorCode ?? -1;
}

const endTxn = (rm: ReplicaManager, producerId: bigint, commit: boolean, coordinatorEpoch = 0, producerEpoch = 0, topic = 't') =>
  rm.txnMarkers.write({ producerId, producerEpoch, coordinatorEpoch, commit, partitions: [{ topic, partition: 0 }] });

function fetch(rm: ReplicaManager, readCommitted: boolean, fetchOffset = 0n, maxWaitMs = 0, minBytes = 1) {
  return rm.fetchRecords({
    topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 }] }],
    readCommitted, maxBytes: 1 << 20, minBytes, maxWaitMs,
  }).then((r) => r.topics[0]?.partitions[0]);
}

test('read_committed reads up to the LSO and lists the aborted transactions; read_uncommitted up to the high watermark', async () => {
  const { rm, assign } = env();
  const p = assign();
  assert.equal(await send(rm, txnBatch(A, 0, 2)), ErrorCode.NONE); // 0-1
  assert.equal(await send(rm, txnBatch(B, 0, 1)), ErrorCode.NONE); // 2
  assert.equal(p?.lastStableOffset, 0n);
  assert.equal((await fetch(rm, true))?.bytes, 0, 'nothing stable yet');
  assert.equal((await endTxn(rm, A, false))[0]?.errorCode, ErrorCode.NONE); // 3: abort A
  assert.equal(p?.lastStableOffset, 2n, 'B still open');
  const committed = await fetch(rm, true);
  assert.equal(committed?.lastStableOffset, 2n);
  assert.deepEqual(committed?.abortedTransactions, [{ producerId: A, firstOffset: 0n, lastOffset: 3n, lastStableOffset: 2n }]);
  await endTxn(rm, B, true); // 4
  assert.equal(p?.lastStableOffset, 5n);
  assert.deepEqual((await fetch(rm, true, 4n))?.abortedTransactions, [], 'no abort overlaps offsets 4 on');
  const uncommitted = await fetch(rm, false);
  assert.equal(uncommitted?.abortedTransactions, undefined);
  assert.equal(uncommitted?.highWatermark, 5n);
});

test('a read_committed long poll waits while only open-transaction data arrives and wakes on the marker', async () => {
  const { rm, timers, assign } = env();
  assign();
  const waiting = fetch(rm, true, 0n, 5000);
  await timers.advance(10);
  await send(rm, txnBatch(A, 0, 1));
  await timers.advance(10);
  assert.equal(rm.delayedOperations.fetches, 1, 'transactional data above the LSO does not wake it');
  await endTxn(rm, A, true);
  const woken = await waiting;
  assert.ok((woken?.bytes ?? 0) > 0);
  assert.equal(woken?.lastStableOffset, 2n);
});

test('WriteTxnMarkers: fencing by coordinator and producer epoch, leadership, unknown topics, completion listeners', async () => {
  const { rm, assign } = env();
  assign();
  const heard: TransactionCompleted[] = [];
  rm.txnMarkers.onTransactionCompleted((e) => heard.push(e));
  await send(rm, txnBatch(A, 0, 1, { epoch: 2 }));
  assert.equal((await endTxn(rm, A, true, 5, 2))[0]?.errorCode, ErrorCode.NONE);
  assert.deepEqual(heard, [{ topic: 't', partition: 0, producerId: A, producerEpoch: 2, commit: true }]);
  assert.equal((await endTxn(rm, A, true, 4, 2))[0]?.errorCode, ErrorCode.TRANSACTION_COORDINATOR_FENCED);
  assert.equal((await endTxn(rm, A, false, 5, 1))[0]?.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  assert.equal((await endTxn(rm, A, false, 6, 3))[0]?.errorCode, ErrorCode.NONE, 'a newer coordinator and epoch are taken');
  assert.equal((await endTxn(rm, A, true, 0, 0, 'nope'))[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assign(2, 1);
  assert.equal((await endTxn(rm, A, true, 7, 3))[0]?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.equal(heard.length, 2, 'only written markers are heard');
});

class FakeVerifier implements TransactionVerifier {
  readonly asked: TxnVerificationRequest[] = [];
  answer: TxnVerificationOutcome = { kind: 'verified' };
  gate: Promise<void> = Promise.resolve();

  async verify(request: TxnVerificationRequest): Promise<TxnVerificationOutcome> {
    this.asked.push(request);
    await this.gate;
    return this.answer;
  }
}

test('KIP-890: the first transactional append of a transaction is verified with the coordinator', async () => {
  const { rm, assign } = env();
  const p = assign();
  const verifier = new FakeVerifier();
  rm.txnVerification.setVerifier(verifier);
  verifier.answer = { kind: 'refused', errorCode: ErrorCode.INVALID_TXN_STATE, message: 'partition not in the transaction' };
  assert.equal(await send(rm, txnBatch(A, 0, 1)), ErrorCode.INVALID_TXN_STATE);
  assert.equal(p?.logEndOffset, 0n, 'nothing written');
  verifier.answer = { kind: 'verified' };
  assert.equal(await send(rm, txnBatch(A, 0, 1)), ErrorCode.NONE);
  assert.equal(await send(rm, txnBatch(A, 1, 1)), ErrorCode.NONE);
  assert.deepEqual(verifier.asked.map((r) => [r.transactionalId, r.producerId, r.producerEpoch, r.topic, r.partition]), [['tx', A, 0, 't', 0], ['tx', A, 0, 't', 0]]);
  await endTxn(rm, A, true);
  assert.equal(await send(rm, txnBatch(A, 2, 1)), ErrorCode.NONE);
  assert.equal(verifier.asked.length, 3, 'the next transaction is verified again');
  assert.equal(await send(rm, txnBatch(B, 0, 1, { transactional: false })), ErrorCode.NONE, 'idempotent batches are never verified');
  assert.equal(await send(rm, txnBatch(B, 1, 1), null), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  verifier.answer = { kind: 'refused', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, message: 'loading' };
  assert.equal(await send(rm, txnBatch(B, 1, 1)), ErrorCode.NOT_ENOUGH_REPLICAS, 'retriable for Produce v0-7 clients');
});

test('KIP-890: a marker written while a verification is in flight makes the append fail', async () => {
  const { rm, assign } = env();
  const p = assign();
  const verifier = new FakeVerifier();
  rm.txnVerification.setVerifier(verifier);
  let release = (): void => {};
  verifier.gate = new Promise((resolve) => { release = resolve; });
  const pending = send(rm, txnBatch(A, 0, 1));
  for (let i = 0; i < 100 && verifier.asked.length === 0; i++) await Promise.resolve();
  assert.equal(verifier.asked.length, 1, 'the verification is in flight');
  await endTxn(rm, A, false);
  release();
  assert.equal(await pending, ErrorCode.INVALID_TXN_STATE);
  assert.equal(p?.log.producerState.firstUnstableOffset(), null, 'no hanging transaction was opened');
});

test('a follower replicating transactional batches and markers ends with the same LSO and aborted index', async () => {
  const { rm, assign } = env();
  const p = assign(2, 1);
  const batches = [txnBatch(A, 0, 2), txnBatch(B, 0, 1), marker(A, false), txnBatch(B, 1, 1)];
  let next = 0n;
  for (const b of batches) {
    setBaseOffset(b, next);
    const [r] = await rm.appendRecords({ origin: 'replica', acks: 1, timeoutMs: 1000, entries: [{ topic: 't', partition: 0, records: b }] });
    assert.equal(r?.errorCode, ErrorCode.NONE);
    next += BigInt(b.readInt32BE(23)) + 1n;
  }
  p?.updateFollowerHighWatermark(5n);
  assert.equal(p?.lastStableOffset, 2n, 'B is open on the follower too');
  assert.deepEqual(p?.log.collectAbortedTransactions(0n, 5n), [{ producerId: A, firstOffset: 0n, lastOffset: 3n, lastStableOffset: 2n }]);
  // Becoming leader keeps all of it.
  assign(SELF, 2);
  assert.equal(p?.lastStableOffset, 2n);
});

test('read_committed lists only the aborted transactions overlapping the batches returned (offset index bound), not all up to the LSO', async () => {
  const { rm, assign } = env(1); // every batch indexed: the bound is the next batch's offset
  const p = assign();
  // Ten aborted transactions of A, one batch each, each closed by its marker: offsets 2k (data), 2k+1 (marker).
  for (let k = 0; k < 10; k++) {
    assert.equal(await send(rm, txnBatch(A, k)), ErrorCode.NONE);
    await endTxn(rm, A, false);
  }
  assert.equal(p?.lastStableOffset, 20n);
  const one = await rm.fetchRecords({
    topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 4n, partitionMaxBytes: 1, currentLeaderEpoch: -1 }] }],
    readCommitted: true, maxBytes: 1, minBytes: 1, maxWaitMs: 0,
  }).then((r) => r.topics[0]?.partitions[0]);
  // minOneBatch: exactly the batch at offset 4 comes back; the next indexed batch (its marker, 5) bounds the list.
  assert.ok(one !== undefined && one.bytes > 0);
  assert.deepEqual(one.abortedTransactions?.map((t) => t.firstOffset), [4n]);
  const fromMarker = await rm.fetchRecords({
    topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 5n, partitionMaxBytes: 1, currentLeaderEpoch: -1 }] }],
    readCommitted: true, maxBytes: 1, minBytes: 1, maxWaitMs: 0,
  }).then((r) => r.topics[0]?.partitions[0]);
  assert.deepEqual(fromMarker?.abortedTransactions?.map((t) => t.firstOffset), [4n], 'the marker at 5 still ends the transaction of 4');
  const all = await fetch(rm, true, 4n);
  assert.deepEqual(all?.abortedTransactions?.map((t) => t.firstOffset), [4n, 6n, 8n, 10n, 12n, 14n, 16n, 18n]);
});

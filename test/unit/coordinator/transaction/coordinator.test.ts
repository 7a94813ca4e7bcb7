// The transaction coordinator's rules (coordinator.ts, completion.ts) with an
// in-memory __transaction_state (writes acknowledged at once, or failing on
// demand) and a marker sink that records the markers and completes them when
// the test says so. Kafka's TransactionCoordinatorTest in small.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TransactionCoordinator } from '../../../../src/coordinator/transaction/coordinator.js';
import { decodeTxnKey, decodeTxnValue, encodeTxnKey, encodeTxnValue, type TxnLogEntry } from '../../../../src/coordinator/transaction/records.js';
import { isValidTransition } from '../../../../src/coordinator/transaction/state.js';
import type { MarkerRequest } from '../../../../src/coordinator/transaction/types.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { ManualClock } from '../../../../src/util/clock.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function world(options: { failWrites?: () => number } = {}) {
  const clock = new ManualClock();
  const log: { id: string; entry: TxnLogEntry | null }[] = [];
  const markers: { req: MarkerRequest; done: (o: 'done' | 'stopped') => void }[] = [];
  let pid = 100n;
  const coordinator = new TransactionCoordinator({
    clock,
    persistence: {
      write: (_n, id, entry) => {
        const code = options.failWrites?.() ?? ErrorCode.NONE;
        if (code === ErrorCode.NONE) log.push({ id, entry });
        return Promise.resolve(code);
      },
    },
    producerIds: { newProducerId: () => Promise.resolve(pid++) },
    markers: { writeMarkers: (req) => new Promise((done) => markers.push({ req, done })) },
    config: { numPartitions: 1, maxTimeoutMs: 900_000, idExpirationMs: 3_600_000 },
  });
  coordinator.loadPartition(0, 5, new Map());
  return { clock, log, markers, coordinator };
}

async function ongoing(w: ReturnType<typeof world>, id = 'tx') {
  const init = await w.coordinator.initProducerId({ transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);
  const ref = { transactionalId: id, producerId: init.producerId, producerEpoch: init.producerEpoch };
  assert.equal(await w.coordinator.addPartitions(ref, [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]), ErrorCode.NONE);
  return ref;
}

describe('transaction coordinator', () => {
  it('InitProducerId: epoch 0, then a bump per call; timeouts above the maximum are refused', async () => {
    const w = world();
    const a = await w.coordinator.initProducerId({ transactionalId: 'tx', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 });
    const b = await w.coordinator.initProducerId({ transactionalId: 'tx', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 });
    assert.deepEqual([a.producerId, a.producerEpoch, b.producerId, b.producerEpoch], [100n, 0, 100n, 1]);
    const big = await w.coordinator.initProducerId({ transactionalId: 'tx', transactionTimeoutMs: 900_001, producerId: -1n, producerEpoch: -1 });
    assert.equal(big.errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    assert.equal((await w.coordinator.initProducerId({ transactionalId: '', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 })).errorCode, ErrorCode.INVALID_REQUEST);
  });

  it('EndTxn v1: PrepareCommit is answered, markers carry the coordinator epoch, then CompleteCommit', async () => {
    const w = world();
    const ref = await ongoing(w);
    const end = await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 1 });
    assert.equal(end.errorCode, ErrorCode.NONE);
    assert.equal(w.coordinator.queries.describe('tx', w.coordinator.shardOf('tx')).state, 'PrepareCommit');
    // A retry while the markers are written: CONCURRENT_TRANSACTIONS; the other outcome: INVALID_TXN_STATE.
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 1 })).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: false, transactionVersion: 1 })).errorCode, ErrorCode.INVALID_TXN_STATE);
    const [m] = w.markers;
    assert.ok(m);
    assert.deepEqual([m.req.committed, m.req.coordinatorEpoch, m.req.producerEpoch, m.req.partitions.length], [true, 5, 0, 2]);
    m.done('done');
    await tick();
    assert.equal(w.coordinator.queries.describe('tx', w.coordinator.shardOf('tx')).state, 'CompleteCommit');
    assert.deepEqual(w.log.map((r) => r.entry?.state), ['Empty', 'Ongoing', 'PrepareCommit', 'CompleteCommit']);
    // A retry after completion succeeds (the outcome is known), the other end is refused.
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 1 })).errorCode, ErrorCode.NONE);
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: false, transactionVersion: 1 })).errorCode, ErrorCode.INVALID_TXN_STATE);
  });

  it('EndTxn v5 bumps the epoch; a delayed EndTxn of the old epoch never ends the next transaction (KAFKA-17754)', async () => {
    const w = world();
    const ref = await ongoing(w);
    const end = await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 2 });
    assert.deepEqual([end.errorCode, end.producerEpoch], [ErrorCode.NONE, 1]);
    w.markers[0]?.done('done');
    await tick();
    const next = { ...ref, producerEpoch: end.producerEpoch };
    assert.equal(await w.coordinator.addPartitions(next, [{ topic: 't', partition: 0 }]), ErrorCode.NONE);
    const delayed = await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 2 });
    assert.equal(delayed.errorCode, ErrorCode.PRODUCER_FENCED);
    assert.equal(w.coordinator.queries.describe('tx', w.coordinator.shardOf('tx')).state, 'Ongoing');
  });

  it('a new producer instance fences the old one: its open transaction is aborted with a bumped epoch', async () => {
    const w = world();
    const ref = await ongoing(w);
    const second = await w.coordinator.initProducerId({ transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
    assert.equal(second.errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
    await tick();
    const [m] = w.markers;
    assert.deepEqual([m?.req.committed, m?.req.producerEpoch], [false, 1]);
    m?.done('done');
    await tick();
    const again = await w.coordinator.initProducerId({ transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
    assert.deepEqual([again.errorCode, again.producerEpoch], [ErrorCode.NONE, 2]);
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 1 })).errorCode, ErrorCode.PRODUCER_FENCED);
    assert.equal(await w.coordinator.addPartitions(ref, [{ topic: 't', partition: 0 }]), ErrorCode.PRODUCER_FENCED);
  });

  it('aborts a transaction past its timeout; verifyOnly answers per partition', async () => {
    const w = world();
    const ref = await ongoing(w);
    const v = w.coordinator.verifyPartitions(ref, [{ topic: 't', partition: 0 }, { topic: 't', partition: 9 }]);
    assert.deepEqual([...v.partitions.values()], [ErrorCode.NONE, ErrorCode.INVALID_TXN_STATE]);
    w.clock.advance(60_001);
    assert.equal(w.coordinator.abortTimedOut(), 1);
    await tick();
    assert.equal(w.markers[0]?.req.committed, false);
    assert.equal(w.coordinator.queries.list(['PrepareAbort'], []).length, 1);
  });

  it('InitProducerId naming a producer: any for a new id (Kafka\'s epoch -1 rule), only the current one afterwards', async () => {
    const w = world();
    // @platformatic/kafka names the producer id of its idempotent session on its first transaction.
    const first = await w.coordinator.initProducerId({ transactionalId: 'pk', transactionTimeoutMs: 1000, producerId: 7n, producerEpoch: 0 });
    assert.deepEqual([first.errorCode, first.producerId, first.producerEpoch], [ErrorCode.NONE, 100n, 0]);
    const stranger = await w.coordinator.initProducerId({ transactionalId: 'pk', transactionTimeoutMs: 1000, producerId: 7n, producerEpoch: 0 });
    assert.equal(stranger.errorCode, ErrorCode.PRODUCER_FENCED);
    const stale = await w.coordinator.initProducerId({ transactionalId: 'pk', transactionTimeoutMs: 1000, producerId: 100n, producerEpoch: 3 });
    assert.equal(stale.errorCode, ErrorCode.PRODUCER_FENCED);
    const own = await w.coordinator.initProducerId({ transactionalId: 'pk', transactionTimeoutMs: 1000, producerId: 100n, producerEpoch: 0 });
    assert.deepEqual([own.errorCode, own.producerEpoch], [ErrorCode.NONE, 1]);
  });

  it('EndTxn before any partition is INVALID_TXN_STATE; a stale epoch is PRODUCER_FENCED', async () => {
    const w = world();
    await w.coordinator.initProducerId({ transactionalId: 'early', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 });
    const init = await w.coordinator.initProducerId({ transactionalId: 'early', transactionTimeoutMs: 1000, producerId: -1n, producerEpoch: -1 });
    assert.equal(init.producerEpoch, 1);
    const ref = { transactionalId: 'early', producerId: init.producerId, producerEpoch: init.producerEpoch };
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 1 })).errorCode, ErrorCode.INVALID_TXN_STATE);
    assert.equal((await w.coordinator.endTxn({ ...ref, producerEpoch: ref.producerEpoch - 1, committed: false, transactionVersion: 1 })).errorCode, ErrorCode.PRODUCER_FENCED);
  });

  it('a failed write changes nothing; an unknown id or producer is INVALID_PRODUCER_ID_MAPPING', async () => {
    let code: number = ErrorCode.NONE;
    const w = world({ failWrites: () => code });
    const ref = await ongoing(w);
    code = ErrorCode.NOT_ENOUGH_REPLICAS;
    assert.equal((await w.coordinator.endTxn({ ...ref, committed: true, transactionVersion: 1 })).errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(w.coordinator.queries.describe('tx', w.coordinator.shardOf('tx')).state, 'Ongoing');
    assert.equal(await w.coordinator.addPartitions({ ...ref, producerId: 1n }, []), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    assert.equal(await w.coordinator.addPartitions({ ...ref, transactionalId: 'other' }, []), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    w.coordinator.unloadPartition(0);
    assert.equal(w.coordinator.shardOf('tx'), ErrorCode.NOT_COORDINATOR);
    w.coordinator.beginLoad(0);
    assert.equal(w.coordinator.shardOf('tx'), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  });

  it('a reloaded Prepare* transaction resends its markers with the new coordinator epoch', async () => {
    const w = world();
    const ref = await ongoing(w);
    await w.coordinator.endTxn({ ...ref, committed: false, transactionVersion: 1 });
    const latest = new Map(w.log.map((r) => [r.id, r.entry as TxnLogEntry]));
    w.coordinator.unloadPartition(0);
    w.coordinator.loadPartition(0, 6, latest);
    assert.deepEqual(w.markers.map((m) => m.req.coordinatorEpoch), [5, 6]);
  });
});

describe('__transaction_state records and transitions', () => {
  it('round-trips TransactionLogKey/Value v0 and v1 (tagged fields)', () => {
    const entry: TxnLogEntry = {
      producerId: 7n, previousProducerId: 3n, nextProducerId: -1n, producerEpoch: 4, nextProducerEpoch: -1, txnTimeoutMs: 60_000,
      state: 'PrepareCommit', partitions: [{ topic: 'a', partition: 0 }, { topic: 'a', partition: 2 }, { topic: 'b', partition: 1 }],
      txnLastUpdateTimestampMs: 1_700_000_000_123, txnStartTimestampMs: 1_700_000_000_000, clientTransactionVersion: 2,
    };
    assert.equal(decodeTxnKey(encodeTxnKey('tx')), 'tx');
    assert.deepEqual(decodeTxnValue(encodeTxnValue(entry)), entry);
    const v0 = { ...entry, previousProducerId: -1n, clientTransactionVersion: 1 };
    const bytes = encodeTxnValue(v0);
    assert.equal(bytes.readInt16BE(0), 0, 'version 1 clients get value v0');
    assert.deepEqual(decodeTxnValue(bytes), v0);
  });

  it('follows Kafka\'s valid previous states', () => {
    assert.ok(isValidTransition('Ongoing', 'PrepareCommit', 1));
    assert.ok(!isValidTransition('Empty', 'PrepareCommit', 1));
    assert.ok(!isValidTransition('CompleteCommit', 'PrepareAbort', 1));
    assert.ok(isValidTransition('CompleteCommit', 'PrepareAbort', 2), 'transaction version 2 may abort with nothing open');
    assert.ok(!isValidTransition('PrepareCommit', 'CompleteAbort', 1));
    assert.ok(isValidTransition('CompleteAbort', 'Dead', 1));
  });
});

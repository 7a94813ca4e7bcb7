// The broker half of the idempotent producer over raw connections, against a
// real broker process: InitProducerId (new ids, KIP-360 epoch bump, fencing,
// transactional ids go to the transaction coordinator), sequenced batches (a replay gets the original
// offset, gaps and stale epochs are refused), and the producer state surviving
// kill -9 (rebuilt from the log) and a torn snapshot file (rebuilt from an
// older snapshot or the log).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, truncateSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawConnection, crc32c, createTopicsRaw, parseProduceV7Response, produceRequest, recordBatch, requestFrame, waitForLeaders } from '../helpers/raw-kafka.js';
import { uniqueName } from '../helpers/records.js';
import { decode, encode } from '../../src/protocol/codec.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../src/protocol/messages/22-init-producer-id.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js';
import { ErrorCode } from '../../src/protocol/errors.js';

let correlation = 1;

async function initProducerId(
  conn: RawConnection,
  version: number,
  req: { transactionalId?: string | null; producerId?: bigint; producerEpoch?: number } = {},
): Promise<{ errorCode: number; producerId: bigint; producerEpoch: number }> {
  const body = encode(InitProducerIdRequest, version, {
    transactionalId: req.transactionalId ?? null,
    transactionTimeoutMs: 60_000,
    producerId: req.producerId ?? -1n,
    producerEpoch: req.producerEpoch ?? -1,
  });
  const flexible = version >= 2;
  const frame = await conn.request(requestFrame(22, version, correlation++, body, { flexible }));
  // Response header: correlation id, plus an empty tag buffer when flexible.
  return decode(InitProducerIdResponse, version, frame, flexible ? 5 : 4);
}

interface Seq {
  producerId: bigint;
  epoch: number;
  baseSequence: number;
  count?: number;
  transactional?: boolean;
}

/** A batch of `count` records with the producer fields set (CRC recomputed). */
function sequencedBatch(s: Seq, tag: string): Buffer {
  const records = Array.from({ length: s.count ?? 1 }, (_, i) => ({ key: null, value: Buffer.from(`${tag}-${s.baseSequence + i}`) }));
  const b = recordBatch(records);
  b.writeBigInt64BE(s.producerId, 43);
  b.writeInt16BE(s.epoch, 51);
  b.writeInt32BE(s.baseSequence, 53);
  if (s.transactional === true) b.writeInt16BE(0x10, 21);
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

async function produce(conn: RawConnection, topic: string, batch: Buffer): Promise<{ errorCode: number; baseOffset: bigint }> {
  const frame = await conn.request(produceRequest(7, correlation++, -1, [{ name: topic, partitions: [{ index: 0, records: batch }] }]));
  const p = parseProduceV7Response(frame).topics[0]?.partitions[0];
  assert.ok(p !== undefined, 'one partition answered');
  return { errorCode: p.errorCode, baseOffset: p.baseOffset };
}

describe('idempotent producer on a raw connection', { timeout: 120_000 }, () => {
  let broker: BrokerProcess;
  let conn: RawConnection;
  const topic = uniqueName('idem-raw');

  before(async () => {
    broker = await startBroker({ name: 'idem-raw' });
    await createTopicsRaw(broker.port, [{ name: topic, partitions: 1, replicationFactor: 1 }]);
    await waitForLeaders(broker.port, [topic]);
    conn = await RawConnection.connect(broker.port);
  });
  after(async () => {
    conn?.close();
    await broker?.cleanup();
  });

  it('hands out distinct producer ids at epoch 0 (v0-v4)', async () => {
    const seen = new Set<bigint>();
    for (const v of [0, 1, 2, 3, 4]) {
      const r = await initProducerId(conn, v);
      assert.equal(r.errorCode, ErrorCode.NONE);
      assert.equal(r.producerEpoch, 0);
      assert.ok(r.producerId >= 0n && !seen.has(r.producerId));
      seen.add(r.producerId);
    }
  });

  it('sends transactional ids to their coordinator: FindCoordinator key type 1 answers it; bad transactional input gets Kafka\'s codes', async () => {
    let fc = { errorCode: -2, nodeId: -1 } as { errorCode: number; nodeId: number };
    for (let i = 0; i < 100 && fc.errorCode !== ErrorCode.NONE; i++) {
      const body = encode(FindCoordinatorRequest, 1, { key: 'tx-1', keyType: 1 });
      fc = decode(FindCoordinatorResponse, 1, await conn.request(requestFrame(10, 1, correlation++, body)), 4);
      if (fc.errorCode !== ErrorCode.NONE) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(fc.errorCode, ErrorCode.NONE, 'the transaction coordinator is found (__transaction_state created)');
    assert.ok(fc.nodeId >= 0);
    assert.equal((await initProducerId(conn, 4, { transactionalId: '' })).errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal((await initProducerId(conn, 4, { producerId: 5n })).errorCode, ErrorCode.INVALID_REQUEST);
  });

  it('answers a replayed batch with its original offset, refuses gaps, stale epochs and transactional batches without a transactionalId', async () => {
    const { producerId } = await initProducerId(conn, 4);
    const first = sequencedBatch({ producerId, epoch: 0, baseSequence: 0, count: 3 }, 'a');
    const r0 = await produce(conn, topic, Buffer.from(first));
    assert.equal(r0.errorCode, ErrorCode.NONE);
    const r1 = await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 3, count: 2 }, 'a'));
    assert.equal(r1.baseOffset, r0.baseOffset + 3n);
    // The exact bytes again (a retry after a lost response): success with the original offset.
    const replay = await produce(conn, topic, Buffer.from(first));
    assert.deepEqual(replay, { errorCode: ErrorCode.NONE, baseOffset: r0.baseOffset });
    const gap = await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 9 }, 'a'));
    assert.equal(gap.errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const next = await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 5 }, 'a'));
    assert.deepEqual(next, { errorCode: ErrorCode.NONE, baseOffset: r1.baseOffset + 2n });

    // KIP-360 bump: same id, epoch 1; the old epoch is fenced in the partition and in InitProducerId.
    const bumped = await initProducerId(conn, 4, { producerId, producerEpoch: 0 });
    assert.deepEqual(bumped, { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 1 });
    assert.equal((await initProducerId(conn, 4, { producerId, producerEpoch: 0 })).errorCode, ErrorCode.PRODUCER_FENCED);
    assert.equal((await initProducerId(conn, 3, { producerId, producerEpoch: 0 })).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
    assert.equal((await produce(conn, topic, sequencedBatch({ producerId, epoch: 1, baseSequence: 6 }, 'b'))).errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert.equal((await produce(conn, topic, sequencedBatch({ producerId, epoch: 1, baseSequence: 0 }, 'b'))).errorCode, ErrorCode.NONE);
    assert.equal((await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 6 }, 'a'))).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
    // A transactional batch in a request without a transactionalId: refused as Kafka does.
    assert.equal((await produce(conn, topic, sequencedBatch({ producerId, epoch: 1, baseSequence: 1, transactional: true }, 'b'))).errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    // An id this broker never issued is a new producer: a fresh id at epoch 0.
    const unknown = await initProducerId(conn, 4, { producerId: 1n << 40n, producerEpoch: 3 });
    assert.equal(unknown.errorCode, ErrorCode.NONE);
    assert.notEqual(unknown.producerId, 1n << 40n);
    assert.equal(unknown.producerEpoch, 0);
  });

  it('validates several batches for one partition in one request in order', async () => {
    const { producerId } = await initProducerId(conn, 4);
    const b = (seq: number): Buffer => sequencedBatch({ producerId, epoch: 0, baseSequence: seq }, 'm');
    const request = (batches: Buffer[]): Buffer =>
      produceRequest(7, correlation++, -1, [{ name: topic, partitions: batches.map((records) => ({ index: 0, records })) }]);
    const first = parseProduceV7Response(await conn.request(request([b(0), b(1), b(0)]))).topics[0]?.partitions ?? [];
    assert.deepEqual(first.map((p) => p.errorCode), [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.NONE]);
    assert.equal(first[1]?.baseOffset, (first[0]?.baseOffset ?? -2n) + 1n);
    assert.equal(first[2]?.baseOffset, first[0]?.baseOffset, 'the third is a duplicate of the first');
    const second = parseProduceV7Response(await conn.request(request([b(3), b(2), b(3)]))).topics[0]?.partitions ?? [];
    assert.deepEqual(second.map((p) => p.errorCode), [ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, ErrorCode.NONE, ErrorCode.NONE]);
  });

  it('recognises a retry after kill -9 (state rebuilt from the log) and after a torn snapshot', async () => {
    const { producerId } = await initProducerId(conn, 4);
    const batches = [0, 1, 2].map((i) => sequencedBatch({ producerId, epoch: 0, baseSequence: i * 2, count: 2 }, 'k'));
    const offsets: bigint[] = [];
    for (const b of batches) {
      const r = await produce(conn, topic, Buffer.from(b));
      assert.equal(r.errorCode, ErrorCode.NONE);
      offsets.push(r.baseOffset);
    }
    conn.close();
    await broker.kill9();
    await broker.restart();
    conn = await RawConnection.connect(broker.port);
    await waitForLeaders(broker.port, [topic]);
    for (let i = 0; i < batches.length; i++) {
      assert.deepEqual(await produce(conn, topic, Buffer.from(batches[i] as Buffer)), { errorCode: ErrorCode.NONE, baseOffset: offsets[i] }, `batch ${i} after kill -9`);
    }
    // Ids come from a new controller block after the restart: never one handed out before.
    const fresh = await initProducerId(conn, 4);
    assert.ok(fresh.producerId > producerId, `id ${fresh.producerId} after the restart is above ${producerId}`);
    const fourth = sequencedBatch({ producerId, epoch: 0, baseSequence: 6 }, 'k');
    const r3 = await produce(conn, topic, Buffer.from(fourth));
    assert.equal(r3.errorCode, ErrorCode.NONE);

    // Clean stop writes a snapshot at the log end; tear it, restart: the retry is still a duplicate.
    conn.close();
    await broker.stop();
    const dir = join(broker.dataDir, `${topic}-0`);
    const snaps = readdirSync(dir).filter((n) => n.endsWith('.snapshot')).sort();
    assert.ok(snaps.length > 0, 'a clean stop leaves a snapshot');
    const newest = join(dir, snaps.at(-1) as string);
    truncateSync(newest, Math.max(0, statSync(newest).size - 5));
    await broker.restart();
    conn = await RawConnection.connect(broker.port);
    await waitForLeaders(broker.port, [topic]);
    assert.deepEqual(await produce(conn, topic, Buffer.from(fourth)), { errorCode: ErrorCode.NONE, baseOffset: r3.baseOffset });
    assert.match(broker.tail(400), /ignored unusable producer state snapshots/);
    assert.equal((await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 8 }, 'k'))).errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  });
});


describe('producer.id.expiration.ms', { timeout: 60_000 }, () => {
  let broker: BrokerProcess;
  let conn: RawConnection;
  const topic = uniqueName('idem-expiry');

  before(async () => {
    broker = await startBroker({
      name: 'idem-expiry',
      overrides: { 'producer.id.expiration.ms': '500', 'producer.id.expiration.check.interval.ms': '100', 'log.flush.scheduler.interval.ms': '100' },
    });
    await createTopicsRaw(broker.port, [{ name: topic, partitions: 1, replicationFactor: 1 }]);
    await waitForLeaders(broker.port, [topic]);
    conn = await RawConnection.connect(broker.port);
  });
  after(async () => {
    conn?.close();
    await broker?.cleanup();
  });

  it('forgets an idle producer at the periodic check: its next batch is accepted at any sequence', async () => {
    const { producerId } = await initProducerId(conn, 4);
    assert.equal((await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 0 }, 'e'))).errorCode, ErrorCode.NONE);
    // Bounded wait for the broker's tick to expire it; until then the gap is refused.
    const deadline = Date.now() + 20_000;
    let code: number = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;
    while (code === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      code = (await produce(conn, topic, sequencedBatch({ producerId, epoch: 0, baseSequence: 50 }, 'e'))).errorCode;
    }
    assert.equal(code, ErrorCode.NONE);
    assert.match(broker.tail(400), /expired idle producer ids/);
  });
});

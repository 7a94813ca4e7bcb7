// The partition leader's side of transactions against a real broker process,
// driven by hand over the wire (the transaction coordinator's part is played
// by this test): transactional batches in Produce, WriteTxnMarkers v1,
// read_committed Fetch bounded by the last stable offset with the aborted
// transactions listed, ListOffsets by isolation level, consumers (kafkajs
// with readUncommitted false and true, ours with isolationLevel) seeing only
// committed records or everything, and kill -9 + restart rebuilding the LSO
// and the aborted transaction index.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { RawConnection, createTopicsRaw, parseProduceV7Response, produceRequest, requestFrame, waitForLeaders } from '../../helpers/raw-kafka.js';
import { uniqueName } from '../../helpers/records.js';
import { waitUntil } from '../../helpers/groups.js';
import { decode, encode } from '../../../src/protocol/codec.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../../src/protocol/messages/22-init-producer-id.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../../src/protocol/messages/27-write-txn-markers.js';
import { FetchRequest, FetchResponse } from '../../../src/protocol/messages/01-fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../src/protocol/messages/02-list-offsets.js';
import { Consumer, deserializers } from '../../../src/client/index.js';

const TXN_ID = 'tx-partition-leader';
let correlation = 1;

async function call<T>(conn: RawConnection, apiKey: number, version: number, flexible: boolean, body: Buffer, decodeBody: (frame: Buffer, at: number) => T): Promise<T> {
  const frame = await conn.request(requestFrame(apiKey, version, correlation++, body, { flexible }));
  return decodeBody(frame, flexible ? 5 : 4);
}

async function newProducerId(conn: RawConnection): Promise<bigint> {
  const body = encode(InitProducerIdRequest, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  const r = await call(conn, 22, 4, true, body, (f, at) => decode(InitProducerIdResponse, 4, f, at));
  assert.equal(r.errorCode, ErrorCode.NONE);
  return r.producerId;
}

async function produceTxn(conn: RawConnection, topic: string, producerId: bigint, baseSequence: number, values: string[]): Promise<bigint> {
  const batch = buildRecordBatchSync({ records: values.map((value) => ({ key: null, value })), producerId, producerEpoch: 0, baseSequence, transactional: true });
  const frame = await conn.request(produceRequest(7, correlation++, -1, [{ name: topic, partitions: [{ index: 0, records: batch }] }], 10_000, TXN_ID));
  const p = parseProduceV7Response(frame).topics[0]?.partitions[0];
  assert.equal(p?.errorCode, ErrorCode.NONE);
  return p?.baseOffset ?? -1n;
}

async function writeMarker(conn: RawConnection, topic: string, producerId: bigint, commit: boolean, coordinatorEpoch = 0): Promise<number> {
  const body = encode(WriteTxnMarkersRequest, 1, {
    markers: [{ producerId, producerEpoch: 0, transactionResult: commit, topics: [{ name: topic, partitionIndexes: [0] }], coordinatorEpoch }],
  });
  const r = await call(conn, 27, 1, true, body, (f, at) => decode(WriteTxnMarkersResponse, 1, f, at));
  return r.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? -1;
}

async function fetchCommitted(conn: RawConnection, topic: string, fetchOffset: bigint, isolationLevel: 0 | 1) {
  const body = encode(FetchRequest, 11, {
    maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [],
  });
  const r = await call(conn, 1, 11, false, body, (f, at) => decode(FetchResponse, 11, f, at));
  const p = r.responses[0]?.partitions[0];
  assert.ok(p !== undefined);
  return p;
}

async function latest(conn: RawConnection, topic: string, isolationLevel: 0 | 1): Promise<bigint> {
  const body = encode(ListOffsetsRequest, 2, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
  const r = await call(conn, 2, 2, false, body, (f, at) => decode(ListOffsetsResponse, 2, f, at));
  return r.topics[0]?.partitions[0]?.offset ?? -2n;
}

async function kafkajsValues(bootstrap: string, topic: string, readUncommitted: boolean, expected: number): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'txn-partition', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5 } });
  const consumer = kafka.consumer({ groupId: uniqueName('txn-kafkajs'), readUncommitted, maxWaitTimeInMs: 100 });
  const seen: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value?.toString() ?? ''); } });
    await waitUntil(`${expected} records (readUncommitted ${readUncommitted})`, () => seen.length >= expected, 30_000);
    // Anything extra (an aborted record) would arrive with the same fetches: give it a moment.
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

describe('transactions on the partition leader, over the wire', { timeout: 180_000 }, () => {
  let broker: BrokerProcess;
  let conn: RawConnection;
  const topic = uniqueName('txn-leader');
  let p1 = -1n;
  let p2 = -1n;

  before(async () => {
    // Markers are written by hand here, with no coordinator behind them: leaders must not ask one (as Kafka with this off).
    broker = await startBroker({ name: 'txn-leader', overrides: { 'transaction.partition.verification.enable': 'false' } });
    await createTopicsRaw(broker.port, [{ name: topic, partitions: 1, replicationFactor: 1 }]);
    await waitForLeaders(broker.port, [topic]);
    conn = await RawConnection.connect(broker.port);
    p1 = await newProducerId(conn);
    p2 = await newProducerId(conn);
  });
  after(async () => {
    conn?.close();
    await broker?.cleanup();
  });

  it('read_committed stops at the LSO and lists aborted transactions; markers move the LSO', async () => {
    assert.equal(await produceTxn(conn, topic, p1, 0, ['a1', 'a2']), 0n); // 0-1
    assert.equal(await produceTxn(conn, topic, p2, 0, ['c1']), 2n); // 2
    assert.equal(await latest(conn, topic, 1), 0n, 'LSO at the first open transaction');
    assert.equal(await latest(conn, topic, 0), 3n);
    const early = await fetchCommitted(conn, topic, 0n, 1);
    assert.equal(early.lastStableOffset, 0n);
    assert.ok(early.records === null || (Buffer.isBuffer(early.records) && early.records.length === 0), 'nothing below the LSO yet');
    assert.equal(await writeMarker(conn, topic, p1, false), ErrorCode.NONE); // 3: abort p1
    assert.equal(await produceTxn(conn, topic, p2, 1, ['c2']), 4n);
    assert.equal(await writeMarker(conn, topic, p2, true), ErrorCode.NONE); // 5: commit p2
    assert.equal(await produceTxn(conn, topic, p1, 2, ['open']), 6n); // 6: p1's next transaction stays open
    assert.equal(await writeMarker(conn, topic, p2, true, -1), ErrorCode.TRANSACTION_COORDINATOR_FENCED, 'an older coordinator epoch is fenced');
    const committed = await fetchCommitted(conn, topic, 0n, 1);
    assert.equal(committed.highWatermark, 7n);
    assert.equal(committed.lastStableOffset, 6n);
    assert.deepEqual(committed.abortedTransactions, [{ producerId: p1, firstOffset: 0n }]);
    const uncommitted = await fetchCommitted(conn, topic, 0n, 0);
    assert.equal(uncommitted.abortedTransactions, null);
    assert.equal(await latest(conn, topic, 1), 6n);
  });

  it('kafkajs read_committed sees only committed records; read_uncommitted sees aborted and open ones', async () => {
    assert.deepEqual(await kafkajsValues(broker.bootstrap, topic, false, 2), ['c1', 'c2']);
    assert.deepEqual(await kafkajsValues(broker.bootstrap, topic, true, 5), ['a1', 'a2', 'c1', 'c2', 'open']);
  });

  it('our Consumer with isolationLevel read_committed filters aborted records and skips markers', async () => {
    const c = new Consumer<string | null, string | null>({ bootstrap: broker.bootstrap, isolationLevel: 'read_committed', valueDeserializer: deserializers.string, keyDeserializer: deserializers.string, fetchMaxWaitMs: 100 });
    c.assign([{ topic, partition: 0 }]);
    c.seek({ topic, partition: 0 }, 0n);
    const seen: string[] = [];
    const offsets: bigint[] = [];
    const loop = (async () => {
      for await (const r of c) {
        seen.push(r.value ?? '');
        offsets.push(r.offset);
      }
    })();
    await waitUntil('2 committed records', () => seen.length >= 2, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    await c.close();
    await loop;
    assert.deepEqual(seen, ['c1', 'c2']);
    assert.deepEqual(offsets, [2n, 4n]);
  });

  it('kill -9 and restart: the LSO and the aborted index are rebuilt from the log', async () => {
    await broker.kill9();
    conn.close();
    await broker.restart();
    await waitForLeaders(broker.port, [topic]);
    conn = await RawConnection.connect(broker.port);
    const after = await fetchCommitted(conn, topic, 0n, 1);
    assert.equal(after.lastStableOffset, 6n, 'p1\'s open transaction holds the LSO again');
    assert.deepEqual(after.abortedTransactions, [{ producerId: p1, firstOffset: 0n }]);
    assert.equal(await writeMarker(conn, topic, p1, false), ErrorCode.NONE); // 7: abort the open one
    const end = await fetchCommitted(conn, topic, 6n, 1);
    assert.equal(end.lastStableOffset, 8n);
    assert.deepEqual(end.abortedTransactions, [{ producerId: p1, firstOffset: 6n }]);
  });
});

/**
 * The network layer's ordering rules, against an in-process broker: responses
 * leave in request order even when an earlier request (a long-poll Fetch)
 * finishes later; a waiting Fetch does not stop a later request on the same
 * connection from being processed; acks=0 produces send nothing; oversized
 * frames close only their own connection.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { splitBatches, decodeRecordBatchSync } from '../../../src/protocol/record-batch/reader.js';
import { RawClient, startInProcessBroker, type InProcessBroker } from '../../helpers/in-process-broker.js';

let node: InProcessBroker;

before(async () => {
  node = await startInProcessBroker({ 'socket.request.max.bytes': String(1024 * 1024) });
  const created = await node.broker.services.metadata.createTopics(
    [{ name: 'pipe', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    false,
  );
  assert.equal(created[0]?.errorCode, 0);
});

after(async () => {
  await node.stop();
});

function produceBody(acks: number, values: string[]) {
  const records = buildRecordBatchSync({ records: values.map((v) => ({ key: null, value: v })) });
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: 'pipe', partitionData: [{ index: 0, records }] }] };
}

function fetchBody(offset: bigint, maxWaitMs: number) {
  return {
    replicaId: -1,
    maxWaitMs,
    minBytes: 1,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    topics: [{ topic: 'pipe', partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 1 << 20 }] }],
  };
}

test('a long-poll fetch does not block later requests, and responses stay in request order', async () => {
  const c = await RawClient.connect(node.port);
  try {
    const start = node.broker.services.replicaManager.get('pipe', 0)?.logEndOffset ?? 0n;
    c.send(1, 11, 1, fetchBody(start, 5000)); // waits for data
    c.send(0, 7, 2, produceBody(1, ['during-long-poll'])); // processed now, answered after the fetch
    c.send(18, 2, 3, {});
    await c.waitFor(3);
    assert.deepEqual(c.arrivals.map((a) => a.correlationId), [1, 2, 3]);
    const fetched = c.decode(1, 11, c.arrivals[0]!.body) as { responses: { partitions: { records: Buffer }[] }[] };
    const records = fetched.responses[0]!.partitions[0]!.records;
    const batch = decodeRecordBatchSync(splitBatches(records)[0]!);
    assert.equal(batch.records[0]!.value!.toString(), 'during-long-poll');
    // The produce woke the fetch well before its 5 s wait ran out.
    assert.ok(c.arrivals[0]!.atMs - c.arrivals[0]!.atMs < 5000);
  } finally {
    c.close();
  }
});

test('a fetch with nothing to read answers after maxWaitMs with no records', async () => {
  const c = await RawClient.connect(node.port);
  try {
    const end = node.broker.services.replicaManager.get('pipe', 0)!.logEndOffset;
    const sent = performance.now();
    c.send(1, 12, 7, fetchBody(end, 300));
    await c.waitFor(1);
    const waited = c.arrivals[0]!.atMs - sent;
    assert.ok(waited >= 250, `answered after ${waited} ms`);
    const r = c.decode(1, 12, c.arrivals[0]!.body) as { responses: { partitions: { records: Buffer | null; highWatermark: bigint }[] }[] };
    assert.equal(r.responses[0]!.partitions[0]!.highWatermark, end);
    assert.equal((r.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0)).length, 0);
  } finally {
    c.close();
  }
});

test('acks=0 produce sends no response and the next response is the following request', async () => {
  const c = await RawClient.connect(node.port);
  try {
    const before = node.broker.services.replicaManager.get('pipe', 0)!.logEndOffset;
    c.send(0, 7, 10, produceBody(0, ['fire', 'and', 'forget']));
    c.send(18, 3, 11, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    await c.waitFor(1);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(c.arrivals.map((a) => a.correlationId), [11]);
    assert.equal(node.broker.services.replicaManager.get('pipe', 0)!.logEndOffset, before + 3n);
  } finally {
    c.close();
  }
});

test('many pipelined requests are answered in order', async () => {
  const c = await RawClient.connect(node.port);
  try {
    for (let i = 0; i < 200; i++) {
      if (i % 3 === 0) c.send(0, 7, 100 + i, produceBody(1, [`p${i}`]));
      else if (i % 3 === 1) c.send(3, 9, 100 + i, { topics: [{ name: 'pipe' }], allowAutoTopicCreation: false });
      else c.send(18, 3, 100 + i, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    }
    await c.waitFor(200);
    assert.deepEqual(
      c.arrivals.map((a) => a.correlationId),
      Array.from({ length: 200 }, (_, i) => 100 + i),
    );
  } finally {
    c.close();
  }
});

test('an oversized frame closes that connection only', async () => {
  const bad = await RawClient.connect(node.port);
  const good = await RawClient.connect(node.port);
  try {
    const header = Buffer.alloc(4);
    header.writeInt32BE(64 * 1024 * 1024); // above socket.request.max.bytes (1 MiB here)
    bad.socket.write(header);
    await bad.waitFor(1, 3000).catch(() => undefined);
    assert.equal(bad.closed, true);
    good.send(18, 3, 1, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    await good.waitFor(1);
    const r = good.decode(18, 3, good.arrivals[0]!.body) as { errorCode: number };
    assert.equal(r.errorCode, 0);
  } finally {
    bad.close();
    good.close();
  }
});

test('pipelined fetches of large batches each get their own data while the read buffers are recycled', async () => {
  // Fetch reads go into pooled buffers that return to the pool only once their response is written. A
  // release any earlier would let the next fetch read into a buffer whose response is still queued (24
  // responses of ~100 KB exceed the socket's buffer), and that response would carry the wrong batch.
  await node.broker.services.metadata.createTopics([{ name: 'pooled', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], false);
  const BATCHES = 24;
  const valueOf = (batch: number, i: number): string => `${batch}:${i}:`.padEnd(1000, String.fromCharCode(97 + (batch % 26)));
  const c = await RawClient.connect(node.port);
  try {
    for (let b = 0; b < BATCHES; b++) {
      const records = buildRecordBatchSync({ records: Array.from({ length: 100 }, (_, i) => ({ key: null, value: valueOf(b, i) })) });
      c.send(0, 7, 1000 + b, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'pooled', partitionData: [{ index: 0, records }] }] });
    }
    await c.waitFor(BATCHES);
    const pool = node.broker.services.ioBuffers;
    for (let round = 0; round < 2; round++) {
      const before = c.arrivals.length;
      for (let b = 0; b < BATCHES; b++) {
        // partitionMaxBytes 1: exactly the first batch at the offset, returned whole (KIP-74).
        const body = { ...fetchBody(BigInt(b * 100), 0), topics: [{ topic: 'pooled', partitions: [{ partition: 0, fetchOffset: BigInt(b * 100), partitionMaxBytes: 1 }] }] };
        c.send(1, 11, 2000 + round * 100 + b, body);
      }
      await c.waitFor(before + BATCHES);
      for (let b = 0; b < BATCHES; b++) {
        const fetched = c.decode(1, 11, c.arrivals[before + b]!.body) as { responses: { partitions: { records: Buffer }[] }[] };
        const [batch, ...rest] = splitBatches(fetched.responses[0]!.partitions[0]!.records);
        assert.equal(rest.length, 0);
        const decoded = decodeRecordBatchSync(batch!); // checks the CRC
        assert.equal(decoded.header.baseOffset, BigInt(b * 100), `round ${round} batch ${b}`);
        decoded.records.forEach((r, i) => assert.equal(r.value!.toString(), valueOf(b, i)));
      }
    }
    assert.ok(pool.stats().reused >= BATCHES, `buffers reused: ${JSON.stringify(pool.stats())}`);
  } finally {
    c.close();
  }
});

test('pipelined large produce requests are assembled in recycled buffers without one overwriting another still in use', async () => {
  // A Produce request spanning socket reads is assembled in a services.ioBuffers buffer, released once the
  // handler settles. On a topic with compression.type=gzip the append waits for the recompression, so the
  // request bytes are read after later requests arrived: a release at dispatch would let the next request
  // overwrite them, and the log would hold the wrong records (or a batch failing its CRC).
  const topic = 'pooled-produce';
  await node.broker.services.metadata.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'compression.type', value: 'gzip' }] }], false);
  const REQUESTS = 12;
  const valueOf = (request: number, i: number): string => `${request}:${i}:`.padEnd(1500, String.fromCharCode(65 + (request % 26)));
  const pool = node.broker.services.ioBuffers;
  const reusedBefore = pool.stats().reused;
  const c = await RawClient.connect(node.port);
  try {
    // Two waves: inside a wave the requests are pipelined (their buffers are all in use at once); the
    // second wave starts once the first is answered, so its buffers are the first wave's, recycled.
    for (let wave = 0; wave < 2; wave++) {
      for (let r = wave * (REQUESTS / 2); r < (wave + 1) * (REQUESTS / 2); r++) {
        const records = buildRecordBatchSync({ records: Array.from({ length: 100 }, (_, i) => ({ key: null, value: valueOf(r, i) })) });
        c.send(0, 7, 3000 + r, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
      }
      await c.waitFor((wave + 1) * (REQUESTS / 2));
    }
    for (const a of c.arrivals) {
      const r = c.decode(0, 7, a.body) as { responses: { partitionResponses: { errorCode: number }[] }[] };
      assert.equal(r.responses[0]!.partitionResponses[0]!.errorCode, 0);
    }
    assert.ok(pool.stats().reused > reusedBefore, `request buffers reused: ${JSON.stringify(pool.stats())}`);
    c.send(1, 11, 4000, { ...fetchBody(0n, 0), topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 8 << 20 }] }] });
    await c.waitFor(REQUESTS + 1);
    const fetched = c.decode(1, 11, c.arrivals[REQUESTS]!.body) as { responses: { partitions: { records: Buffer }[] }[] };
    const batches = splitBatches(fetched.responses[0]!.partitions[0]!.records).map((b) => decodeRecordBatchSync(b));
    assert.equal(batches.length, REQUESTS);
    batches.forEach((batch, r) => {
      assert.equal(batch.records.length, 100);
      batch.records.forEach((rec, i) => assert.equal(rec.value!.toString(), valueOf(r, i), `request ${r} record ${i}`));
    });
  } finally {
    c.close();
  }
});

/**
 * Compacted topics through the broker: records without a key are refused
 * with INVALID_RECORD (keyed ones in the same request are appended), and the
 * background cleaner compacts rolled segments while offsets stay put.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { Compression } from '../../../src/protocol/record-batch/header.js';
import { decodeRecordBatchSync, splitBatches } from '../../../src/protocol/record-batch/reader.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { RawClient, startInProcessBroker, type InProcessBroker } from '../../helpers/in-process-broker.js';

let node: InProcessBroker;

before(async () => {
  node = await startInProcessBroker({ 'log.cleaner.backoff.ms': '10', 'log.flush.interval.messages': '1' });
  const created = await node.broker.services.metadata.createTopics(
    [
      {
        name: 'compacted',
        numPartitions: 1,
        replicationFactor: 1,
        assignments: [],
        configs: [
          { name: 'cleanup.policy', value: 'compact' },
          { name: 'segment.bytes', value: '2048' },
          { name: 'min.cleanable.dirty.ratio', value: '0.01' },
        ],
      },
    ],
    false,
  );
  assert.equal(created[0]?.errorCode, 0, created[0]?.errorMessage ?? '');
});

after(async () => {
  await node?.stop();
});

function produce(c: RawClient, correlationId: number, records: { key: string | null; value: string }[], compression = Compression.None): void {
  const batch = buildRecordBatchSync({ records, compression });
  c.send(0, 7, correlationId, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'compacted', partitionData: [{ index: 0, records: batch }] }] });
}

type ProduceResult = { responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] };

test('a record without a key is refused on a compacted topic; keyed ones are appended in order', async () => {
  const c = await RawClient.connect(node.port);
  try {
    produce(c, 1, [{ key: 'a', value: 'a1' }]);
    produce(c, 2, [{ key: null, value: 'no key' }], Compression.Lz4);
    produce(c, 3, [{ key: 'b', value: 'b1' }], Compression.Gzip);
    await c.waitFor(3);
    const codes = c.arrivals.map((a) => (c.decode(0, 7, a.body) as ProduceResult).responses[0]!.partitionResponses[0]!);
    assert.deepEqual(
      codes.map((r) => r.errorCode),
      [ErrorCode.NONE, ErrorCode.INVALID_RECORD, ErrorCode.NONE],
    );
    assert.equal(codes[0]!.baseOffset, 0n);
    assert.equal(codes[2]!.baseOffset, 1n);
  } finally {
    c.close();
  }
});

test('the cleaner compacts rolled segments: the newest value per key stays at its offset', async () => {
  const c = await RawClient.connect(node.port);
  const p = node.broker.services.replicaManager.get('compacted', 0)!;
  const written = new Map<string, { offset: bigint; value: string }>();
  try {
    for (let i = 0; i < 120; i++) {
      const key = `k${i % 5}`;
      produce(c, 100 + i, [{ key, value: `${key}-v${i}-${'x'.repeat(100)}` }]);
    }
    await c.waitFor(120);
    c.arrivals.forEach((a, i) => {
      const r = (c.decode(0, 7, a.body) as ProduceResult).responses[0]!.partitionResponses[0]!;
      assert.equal(r.errorCode, 0);
      const key = `k${i % 5}`;
      written.set(key, { offset: r.baseOffset, value: `${key}-v${i}-${'x'.repeat(100)}` });
    });
    const sizeBefore = p.log.sizeBytes;
    const deadline = Date.now() + 10_000;
    while (p.log.sizeBytes > sizeBefore / 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(p.log.sizeBytes <= sizeBefore / 2, `log shrank from ${sizeBefore} to ${p.log.sizeBytes} bytes`);

    const read = p.log.read(0n, 10 << 20, { maxOffsetExclusive: p.highWatermark });
    assert.equal(read.kind, 'records');
    const latest = new Map<string, { offset: bigint; value: string }>();
    let previous = -1n;
    for (const chunk of read.kind === 'records' ? read.chunks : []) {
      for (const b of splitBatches(chunk)) {
        const batch = decodeRecordBatchSync(b);
        for (const rec of batch.records) {
          const offset = batch.header.baseOffset + BigInt(rec.offsetDelta);
          assert.ok(offset > previous, 'offsets strictly increase');
          previous = offset;
          latest.set(rec.key!.toString(), { offset, value: rec.value!.toString() });
        }
      }
    }
    for (const [key, w] of written) assert.deepEqual(latest.get(key), w, `newest ${key} kept at its offset`);
  } finally {
    c.close();
  }
});

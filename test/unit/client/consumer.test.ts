/**
 * The Consumer's pure parts: the lean decoder (consumer-decode.ts) against
 * batches from the record-batch builder (offsets, timestamps, headers,
 * compression, control batches, aborted transactions, corruption), the
 * deserializers, the next-fetch-offset walk, and the partition state's
 * seek / pause / reset buffer rules. The fetch loop and group behaviour are
 * in test/integration/consumer*.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildControlBatch, buildRecordBatchSync, ControlRecordType, type RecordInput } from '../../../src/protocol/record-batch/builder.js';
import { decodeRecords } from '../../../src/client/records.js';
import { LazyConsumerRecord, PartitionDecoder, decodePartition, type DecodeTarget } from '../../../src/client/consumer-decode.js';
import { nextOffsetOf } from '../../../src/client/consumer-fetcher.js';
import { PartitionState } from '../../../src/client/consumer-state.js';
import { deserializers, type Deserializer } from '../../../src/client/serde.js';
import { resolveAssignors } from '../../../src/client/consumer-group.js';
import { Consumer } from '../../../src/client/consumer.js';

const GZIP = 1;

function target<K = Buffer | null, V = Buffer | null>(fetchOffset = 0n, keyDeserializer: Deserializer<K> | null = null, valueDeserializer: Deserializer<V> | null = null): DecodeTarget<K, V> {
  return { topic: 'orders', partition: 3, fetchOffset, keyDeserializer, valueDeserializer };
}

function batch(baseOffset: bigint, records: RecordInput[], extra: { compression?: number; producerId?: bigint; transactional?: boolean; partitionLeaderEpoch?: number } = {}): Buffer {
  return buildRecordBatchSync({ records, baseOffset, timestampMs: 1_700_000_000_000, ...extra });
}

test('decodePartition: offsets, timestamps, keys, values, headers and leader epoch, as zero-copy views', async () => {
  const data = Buffer.concat([
    batch(10n, [{ key: 'k0', value: 'v0', headers: [{ key: 'h', value: 'x' }, { key: 'n', value: null }] }, { key: null, value: 'v1', timestamp: 1_700_000_000_500 }], { partitionLeaderEpoch: 4 }),
    batch(12n, [{ value: null }]),
  ]);
  const { records, nextOffset } = await decodePartition(target(), data, null);
  assert.equal(nextOffset, 13n);
  assert.deepEqual(records.map((r) => r.offset), [10n, 11n, 12n]);
  assert.deepEqual(records.map((r) => r.timestamp), [1_700_000_000_000, 1_700_000_000_500, 1_700_000_000_000]);
  assert.equal(records[0]?.key?.toString(), 'k0');
  assert.equal(records[1]?.key, null);
  assert.equal(records[2]?.value, null);
  assert.deepEqual(records[0]?.headers.map((h) => [h.key, h.value?.toString() ?? null]), [['h', 'x'], ['n', null]]);
  assert.equal(records[1]?.headers.length, 0);
  assert.equal(records[0]?.leaderEpoch, 4);
  assert.equal(records[0]?.topic, 'orders');
  assert.equal(records[0]?.partition, 3);
  // Zero copy: the value is a view into the response buffer.
  assert.equal(records[0]?.value?.buffer, data.buffer);
});

test('decodePartition: skips records before the fetch offset, also inside a compressed batch', async () => {
  const data = Buffer.concat([batch(0n, [{ value: 'a' }, { value: 'b' }, { value: 'c' }], { compression: GZIP }), batch(3n, [{ value: 'd' }])]);
  const { records, nextOffset } = await decodePartition(target(2n), data, null);
  assert.deepEqual(records.map((r) => r.value?.toString()), ['c', 'd']);
  assert.equal(nextOffset, 4n);
});

test('decodePartition: a truncated trailing batch ends the data; nextOffset stays at the last whole batch', async () => {
  const whole = batch(0n, [{ value: 'a' }]);
  const cut = batch(1n, [{ value: 'bbbbbbbbbbbbbbbbbbbb' }]);
  const data = Buffer.concat([whole, cut.subarray(0, cut.length - 5)]);
  const { records, nextOffset } = await decodePartition(target(), data, null);
  assert.equal(records.length, 1);
  assert.equal(nextOffset, 1n);
  assert.equal(nextOffsetOf(data, 0n), 1n);
});

test('decodePartition: control batches are skipped; read_committed drops aborted transactions until the ABORT marker', async () => {
  const pid = 77n;
  const data = Buffer.concat([
    batch(0n, [{ value: 'plain' }]),
    batch(1n, [{ value: 'aborted-1' }, { value: 'aborted-2' }], { producerId: pid, transactional: true }),
    buildControlBatch({ type: ControlRecordType.Abort, producerId: pid, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 3n }),
    batch(4n, [{ value: 'committed' }], { producerId: pid, transactional: true }),
    buildControlBatch({ type: ControlRecordType.Commit, producerId: pid, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 5n }),
  ]);
  const uncommitted = await decodePartition(target(), data, null);
  assert.deepEqual(uncommitted.records.map((r) => r.value?.toString()), ['plain', 'aborted-1', 'aborted-2', 'committed']);
  assert.equal(uncommitted.nextOffset, 6n);
  const committed = await decodePartition(target(), data, [{ producerId: pid, firstOffset: 1n }]);
  assert.deepEqual(committed.records.map((r) => r.value?.toString()), ['plain', 'committed']);
  // The same as the general decoder of records.ts.
  const general = await decodeRecords({ topic: 'orders', partition: 3, offset: 0n }, data, [{ producerId: pid, firstOffset: 1n }]);
  assert.deepEqual(general.out.map((r) => r.value?.toString()), ['plain', 'committed']);
});

test('decodePartition: interleaved producers; an abort covers only its producer, until its marker (Java Fetcher rules)', async () => {
  const a = 5n;
  const b = 6n;
  const txn = (offset: bigint, value: string, producerId: bigint) => batch(offset, [{ value }], { producerId, transactional: true });
  const end = (offset: bigint, producerId: bigint, commit: boolean) =>
    buildControlBatch({ type: commit ? ControlRecordType.Commit : ControlRecordType.Abort, producerId, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: offset });
  const data = Buffer.concat([
    txn(0n, 'a0', a), txn(1n, 'b1', b), txn(2n, 'a2', a), end(3n, a, false),
    txn(4n, 'b4', b), end(5n, b, true), txn(6n, 'a6', a), end(7n, a, true),
  ]);
  const committed = await decodePartition(target(), data, [{ producerId: a, firstOffset: 0n }]);
  assert.deepEqual(committed.records.map((r) => r.value?.toString()), ['b1', 'b4', 'a6'], 'a\'s next transaction after its abort marker is kept');
  assert.equal(committed.nextOffset, 8n, 'the position moves past the final marker');
  const uncommitted = await decodePartition(target(), data, null);
  assert.deepEqual(uncommitted.records.map((r) => r.value?.toString()), ['a0', 'b1', 'a2', 'b4', 'a6']);
});

test('decodePartition: a corrupted batch (CRC) is a DecodeError', async () => {
  const data = Buffer.from(batch(0n, [{ value: 'hello' }]));
  data[data.length - 2] = (data[data.length - 2] as number) ^ 0xff;
  await assert.rejects(decodePartition(target(), data, null), (err: Error & { code?: string }) => err.code === 'ERR_TRIB_DECODE');
});

test('decodePartition and chunked PartitionDecoder reads agree with records.ts decodeRecords on random batches (fast-check)', async () => {
  const recordArb = fc.record({
    key: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
    value: fc.option(fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)), { nil: null }),
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: fc.option(fc.string({ maxLength: 8 }), { nil: null }) }), { maxLength: 3 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(recordArb, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.nat(10), async (batches, compress, skip) => {
      let offset = 0n;
      const parts = batches.map((records) => {
        const b = batch(offset, records, compress ? { compression: GZIP } : {});
        offset += BigInt(records.length);
        return b;
      });
      const data = Buffer.concat(parts);
      const from = BigInt(Math.min(skip, Number(offset)));
      const ours = await decodePartition(target(from), data, null);
      const general = await decodeRecords({ topic: 'orders', partition: 3, offset: from }, data, []);
      assert.equal(ours.nextOffset, general.nextOffset);
      assert.deepEqual(
        ours.records.map((r) => [r.offset, r.key, r.value, r.headers]),
        general.out.map((r) => [r.offset, r.key, r.value, r.headers]),
      );
      // Read in chunks, as the Consumer does (maxPollRecords at a time): the same records.
      const decoder = new PartitionDecoder(target(from), data, null);
      const chunks: bigint[] = [];
      for (let guard = 0; guard < 1000; guard++) {
        const chunk = await decoder.read(1 + (skip % 4));
        if (chunk.length === 0) break;
        assert.ok(chunk.length <= 1 + (skip % 4));
        chunks.push(...chunk.map((r) => r.offset));
      }
      assert.ok(decoder.finished);
      assert.deepEqual(chunks, ours.records.map((r) => r.offset));
      assert.equal(decoder.nextOffset, ours.nextOffset);
    }),
    { numRuns: 60 },
  );
});

test('LazyConsumerRecord: every field equals the eager decode (records.ts decodeRecords), read in any order, with any leader epoch and start offset (fast-check)', async () => {
  const recordArb = fc.record({
    key: fc.option(fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)), { nil: null }),
    value: fc.option(fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)), { nil: null }),
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: fc.option(fc.string({ maxLength: 8 }), { nil: null }) }), { maxLength: 2 }),
    timestampMs: fc.option(fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }), { nil: undefined }),
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(recordArb, { minLength: 1, maxLength: 15 }), { minLength: 1, maxLength: 3 }),
      fc.bigInt({ min: 0n, max: 1n << 40n }),
      fc.integer({ min: -1, max: 1000 }),
      fc.nat(30),
      fc.boolean(),
      fc.array(fc.constantFrom('offset', 'key', 'value', 'headers'), { maxLength: 6 }),
      async (batches, base, epoch, skip, compress, order) => {
        let offset = base;
        const parts = batches.map((records) => {
          const inputs: RecordInput[] = records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, ...(r.timestampMs === undefined ? {} : { timestamp: r.timestampMs }) }));
          const b = batch(offset, inputs, { partitionLeaderEpoch: epoch, ...(compress ? { compression: GZIP } : {}) });
          offset += BigInt(records.length);
          return b;
        });
        const data = Buffer.concat(parts);
        const from = base + BigInt(Math.min(skip, Number(offset - base)));
        const ours = await decodePartition(target(from), data, null);
        const eager = await decodeRecords({ topic: 'orders', partition: 3, offset: from }, data, []);
        assert.equal(ours.records.length, eager.out.length);
        ours.records.forEach((r, i) => {
          const e = eager.out[i]!;
          assert.ok(r instanceof LazyConsumerRecord);
          // Accessors first in a random order (each computes on first read), then all of them.
          for (const field of order) if (field === 'offset') assert.equal(r.offset, e.offset); else if (field === 'headers') assert.deepEqual(r.headers, e.headers); else assert.deepEqual(r[field], e[field]);
          assert.deepEqual(r.toObject(), { topic: 'orders', partition: 3, offset: e.offset, timestamp: Number(e.timestamp), key: e.key, value: e.value, headers: e.headers, leaderEpoch: epoch });
          assert.equal(r.key, r.key, 'a view is made once and cached');
        });
      },
    ),
    { numRuns: 80 },
  );
});

test('LazyConsumerRecord: assigning offset, key and value works as on a plain object; spread keeps the plain fields', async () => {
  const data = batch(5n, [{ key: Buffer.from('k'), value: Buffer.from('v') }, { key: null, value: null }]);
  const { records } = await decodePartition(target(), data, null);
  const [a, b] = records as [LazyConsumerRecord, LazyConsumerRecord];
  assert.deepEqual([a.offset, a.key?.toString(), a.value?.toString(), b.offset, b.key, b.value], [5n, 'k', 'v', 6n, null, null]);
  a.value = Buffer.from('changed');
  a.key = null;
  a.offset = 42n;
  assert.deepEqual([a.offset, a.key, a.value?.toString()], [42n, null, 'changed']);
  assert.deepEqual(Object.keys({ ...b }).sort(), ['headers', 'leaderEpoch', 'partition', 'timestamp', 'topic']);
});

test('deserializers: buffer, string, json and custom ones get the bytes and the record place', async () => {
  assert.equal(deserializers.string(Buffer.from('héllo'), { topic: 't', partition: 0, isKey: false }), 'héllo');
  assert.equal(deserializers.string(null, { topic: 't', partition: 0, isKey: true }), null);
  assert.deepEqual(deserializers.json(Buffer.from('{"a":[1,2]}'), { topic: 't', partition: 0, isKey: false }), { a: [1, 2] });
  assert.equal(deserializers.json(Buffer.alloc(0), { topic: 't', partition: 0, isKey: false }), null);
  const b = Buffer.from('x');
  assert.equal(deserializers.buffer(b, { topic: 't', partition: 0, isKey: false }), b);
  const seen: string[] = [];
  const custom: Deserializer<number> = (data, ctx) => {
    seen.push(`${ctx.topic}-${ctx.partition}-${ctx.isKey ? 'key' : 'value'}`);
    return data === null ? -1 : data.readUInt16BE(0);
  };
  const data = batch(0n, [{ key: Buffer.from([0, 7]), value: Buffer.from([1, 2]) }]);
  // JSON of the bytes 0x01 0x02 throws: the decode fails (the Consumer wraps it as ERR_TRIB_DESERIALIZATION).
  await assert.rejects(decodePartition(target(0n, custom, deserializers.json), data, null), SyntaxError);
  const { records } = await decodePartition(target(0n, custom, custom), data, null);
  assert.equal(records[0]?.key, 7);
  assert.equal(records[0]?.value, 258);
  assert.deepEqual(seen.slice(-2), ['orders-3-key', 'orders-3-value']);
});

test('PartitionState: seek drops the buffer and bumps the epoch; pause keeps the buffer and stops fetching', () => {
  const s = new PartitionState<Buffer | null, Buffer | null>('orders', 0);
  assert.equal(s.fetchable(2), false, 'no position yet');
  s.seekTo(5n);
  assert.equal(s.fetchable(2), true);
  s.buffered.push({ fetchOffset: 5n, nextOffset: 9n, data: Buffer.alloc(0), aborted: null, highWatermark: 9n, decoder: null });
  s.fetchOffset = 9n;
  s.paused = true;
  assert.equal(s.fetchable(2), false);
  assert.equal(s.ready(), false);
  assert.equal(s.buffered.length, 1, 'a paused partition keeps what was buffered');
  s.paused = false;
  assert.equal(s.ready(), true);
  s.buffered.push({ fetchOffset: 9n, nextOffset: 12n, data: Buffer.alloc(0), aborted: null, highWatermark: 12n, decoder: null });
  assert.equal(s.fetchable(2), false, 'two fetches buffered: wait for the application');
  const epoch = s.epoch;
  s.seekTo(3n);
  assert.deepEqual([s.position, s.fetchOffset, s.buffered.length, s.epoch], [3n, 3n, 0, epoch + 1]);
  s.requestReset('earliest');
  assert.deepEqual([s.position, s.fetchOffset, s.resetTo, s.fetchable(2)], [null, null, 'earliest', false]);
});

test('options: assignor names resolve, bad options are refused before connecting', async () => {
  assert.deepEqual(resolveAssignors(['cooperative-sticky', 'range', 'roundrobin']).map((a) => a.name), ['cooperative-sticky', 'range', 'roundrobin']);
  assert.throws(() => resolveAssignors(['sticky' as 'range']), /unknown assignor/);
  assert.throws(() => new Consumer({ bootstrap: '' }), /bootstrap/);
  assert.throws(() => new Consumer({ bootstrap: '127.0.0.1:1', maxPollRecords: 0 }), /maxPollRecords/);
  assert.throws(() => new Consumer({ bootstrap: '127.0.0.1:1', autoOffsetReset: 'soon' as 'none' }), /autoOffsetReset/);
  const c = new Consumer({ bootstrap: '127.0.0.1:1' });
  assert.throws(() => c.seek({ topic: 't', partition: 0 }, 0), /not assigned/);
  await assert.rejects(c.subscribe(['t']), /groupId/);
  await assert.rejects(c.commit(), /groupId/);
  await c.close();
  assert.throws(() => c.assign([]), (err: Error & { code?: string }) => err.code === 'ERR_TRIB_CONSUMER_CLOSED');
});

test('groupMetadata: the group id and static id; no generation nor member id before the first join; needs a groupId', async () => {
  const plain = new Consumer({ bootstrap: '127.0.0.1:1', groupId: 'g' });
  assert.deepEqual(plain.groupMetadata(), { groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null });
  const fixed = new Consumer({ bootstrap: '127.0.0.1:1', groupId: 'g2', groupInstanceId: 'host-1' });
  assert.deepEqual(fixed.groupMetadata(), { groupId: 'g2', generationId: -1, memberId: '', groupInstanceId: 'host-1' });
  const none = new Consumer({ bootstrap: '127.0.0.1:1' });
  assert.throws(() => none.groupMetadata(), /groupMetadata\(\) needs a groupId/);
  await Promise.all([plain.close(), fixed.close(), none.close()]);
});

/**
 * Topic ids on the wire (KIP-516), with hand-encoded requests against an
 * in-process broker: ApiVersions advertises Metadata v12 and Fetch v13;
 * Metadata v12 answers a topic asked by name with its id, a topic asked by id
 * with its name, and an unknown id with UNKNOWN_TOPIC_ID and a null name;
 * Fetch v13 reads a topic by its id and answers the id back, and an unknown id
 * gets UNKNOWN_TOPIC_ID on each of its partitions while the known topic in the
 * same request is still served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { In, Out, probeApiVersions, RawConnection, requestFrame } from '../../helpers/raw-kafka.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';

const ZERO_ID = Buffer.alloc(16);
const UNKNOWN_ID = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');

function uuid(i: In): Buffer {
  const b = Buffer.alloc(16);
  for (let k = 0; k < 16; k++) b[k] = i.int8() & 0xff;
  return b;
}

function compactArray<T>(o: Out, items: readonly T[], each: (item: T) => void): void {
  o.uvarint(items.length + 1);
  for (const item of items) each(item);
}

/** Metadata v12: each topic by id (name null) or by name (zero id). */
function metadataV12Request(correlationId: number, topics: readonly { id: Buffer; name: string | null }[]): Buffer {
  const o = new Out();
  compactArray(o, topics, (t) => o.raw(t.id).compactString(t.name).uvarint(0));
  o.bool(false).bool(false).uvarint(0); // allowAutoTopicCreation, includeTopicAuthorizedOperations, tags
  return requestFrame(3, 12, correlationId, o.build(), { flexible: true });
}

interface MetadataTopic {
  errorCode: number;
  name: string | null;
  id: Buffer;
  partitions: number;
}

function parseMetadataV12Response(frame: Buffer): MetadataTopic[] {
  const i = new In(frame);
  i.int32(); // correlation id
  i.skipTags(); // response header v1
  i.int32(); // throttleTimeMs
  i.compactArray((b) => {
    b.int32();
    b.compactString();
    b.int32();
    b.compactString();
    b.skipTags();
  });
  i.compactString(); // clusterId
  i.int32(); // controllerId
  const topics = i.compactArray((t): MetadataTopic => {
    const errorCode = t.int16();
    const name = t.compactString();
    const id = uuid(t);
    t.bool(); // isInternal
    const partitions = t.compactArray((p) => {
      p.int16();
      p.int32();
      p.int32();
      p.int32();
      for (let k = 0; k < 3; k++) p.compactArray((r) => r.int32()); // replicas, isr, offline
      p.skipTags();
    });
    t.int32(); // topicAuthorizedOperations
    t.skipTags();
    return { errorCode, name, id, partitions: partitions?.length ?? 0 };
  });
  i.skipTags();
  assert.equal(i.remaining, 0, 'the whole Metadata v12 response was read');
  return topics ?? [];
}

/** Fetch v13 for partition 0 (and 1) of each id, from offset 0. */
function fetchV13Request(correlationId: number, ids: readonly Buffer[]): Buffer {
  const o = new Out().int32(-1).int32(0).int32(1).int32(1 << 20).int8(0).int32(0).int32(-1); // replicaId .. sessionEpoch
  compactArray(o, ids, (id) => {
    o.raw(id);
    compactArray(o, [0, 1], (p) => o.int32(p).int32(-1).int64(0n).int32(-1).int64(-1n).int32(1 << 20).uvarint(0));
    o.uvarint(0);
  });
  o.uvarint(1); // forgottenTopicsData: empty
  o.compactString(''); // rackId
  o.uvarint(0);
  return requestFrame(1, 13, correlationId, o.build(), { flexible: true });
}

interface FetchedPartition {
  partition: number;
  errorCode: number;
  highWatermark: bigint;
  /** The offset after the last record returned (from the batch headers), or -1n when none. */
  nextOffset: bigint;
}

/** The end offset of the last record batch in `records` (v2 header: baseOffset, then lastOffsetDelta at byte 23). */
function nextOffsetOf(records: Buffer): bigint {
  let next = -1n;
  for (let pos = 0; pos + 27 <= records.length; pos += 12 + records.readInt32BE(pos + 8)) {
    next = records.readBigInt64BE(pos) + BigInt(records.readInt32BE(pos + 23)) + 1n;
  }
  return next;
}

function parseFetchV13Response(frame: Buffer): { errorCode: number; topics: { id: Buffer; partitions: FetchedPartition[] }[] } {
  const i = new In(frame);
  i.int32(); // correlation id
  i.skipTags();
  i.int32(); // throttleTimeMs
  const errorCode = i.int16();
  i.int32(); // sessionId
  const topics = i.compactArray((t) => {
    const id = uuid(t);
    const partitions = t.compactArray((p): FetchedPartition => {
      const partition = p.int32();
      const pErr = p.int16();
      const highWatermark = p.int64();
      p.int64(); // lastStableOffset
      p.int64(); // logStartOffset
      p.compactArray((a) => {
        a.int64();
        a.int64();
        a.skipTags();
      });
      p.int32(); // preferredReadReplica
      const size = p.uvarint() - 1;
      const records = size > 0 ? frame.subarray(p.position, p.position + size) : Buffer.alloc(0);
      p.position += Math.max(size, 0);
      p.skipTags();
      return { partition, errorCode: pErr, highWatermark, nextOffset: nextOffsetOf(records) };
    });
    t.skipTags();
    return { id, partitions: partitions ?? [] };
  });
  i.skipTags();
  assert.equal(i.remaining, 0, 'the whole Fetch v13 response was read');
  return { errorCode, topics: topics ?? [] };
}

test('Metadata v12 and Fetch v13 name topics by id; unknown ids answer UNKNOWN_TOPIC_ID', { timeout: 30_000 }, async (t) => {
  const broker = await startInProcessBroker({ 'num.partitions': '2' });
  t.after(() => broker.stop());
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: `127.0.0.1:${broker.port}` }, valueSerializer: Serializers.string });
  await producer.sendBatch(Array.from({ length: 3 }, (_, k) => ({ topic: 'by-id', partition: 0, value: `v${k}` })));
  await producer.close();

  const versions = await probeApiVersions(broker.port);
  assert.equal(versions.apiKeys.get(1)?.maxVersion, 13, 'Fetch up to v13');
  assert.equal(versions.apiKeys.get(3)?.maxVersion, 12, 'Metadata up to v12');

  const conn = await RawConnection.connect(broker.port);
  t.after(() => conn.close());
  const [byName] = parseMetadataV12Response(await conn.request(metadataV12Request(1, [{ id: ZERO_ID, name: 'by-id' }])));
  assert.ok(byName);
  assert.equal(byName.errorCode, ErrorCode.NONE);
  assert.equal(byName.partitions, 2);
  assert.notDeepEqual(byName.id, ZERO_ID, 'an existing topic has an id');
  const topicId = byName.id;

  const byIds = parseMetadataV12Response(await conn.request(metadataV12Request(2, [{ id: topicId, name: null }, { id: UNKNOWN_ID, name: null }])));
  assert.deepEqual(byIds, [
    { errorCode: ErrorCode.NONE, name: 'by-id', id: topicId, partitions: 2 },
    { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, id: UNKNOWN_ID, partitions: 0 },
  ]);

  const fetched = parseFetchV13Response(await conn.request(fetchV13Request(3, [UNKNOWN_ID, topicId])));
  assert.equal(fetched.errorCode, ErrorCode.NONE);
  assert.deepEqual(fetched.topics, [
    {
      id: UNKNOWN_ID,
      partitions: [
        { partition: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_ID, highWatermark: -1n, nextOffset: -1n },
        { partition: 1, errorCode: ErrorCode.UNKNOWN_TOPIC_ID, highWatermark: -1n, nextOffset: -1n },
      ],
    },
    {
      id: topicId,
      partitions: [
        { partition: 0, errorCode: ErrorCode.NONE, highWatermark: 3n, nextOffset: 3n },
        { partition: 1, errorCode: ErrorCode.NONE, highWatermark: 0n, nextOffset: -1n },
      ],
    },
  ]);
  assert.equal(conn.isClosed, false);
});

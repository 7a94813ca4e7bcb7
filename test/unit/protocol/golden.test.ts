/**
 * Golden bytes. Two independent sources:
 *  1. test/fixtures/protocol/*.hex: request bodies written by kafkajs 2.2.4's
 *     own encoders (generate.cjs), with the same request in our schema's shape
 *     in *.json. Each is decoded and compared field by field, re-encoded from
 *     the decoded value and from the JSON, and must give the same bytes.
 *  2. Flexible versions, which kafkajs does not speak: bodies built here byte
 *     by byte from the protocol spec (compact lengths, tagged fields in every
 *     struct), not with our Writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode, encode, isFlexible, ZERO_UUID } from '../../../src/protocol/codec.js';
import type { FieldSpec, Input, MessageSchema, TypeSpec } from '../../../src/protocol/schema.js';
import { apiSchemas, FetchRequest, FetchResponse, MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/index.js';
import { isPresentIn } from './arbitrary.js';

// dist/test/unit/protocol -> the repository root.
const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/protocol');

interface FixtureIndexEntry {
  readonly name: string;
  readonly apiKey: number;
  readonly version: number;
}

interface Fixture {
  readonly apiKey: number;
  readonly version: number;
  readonly expected: Record<string, unknown>;
}

type Plain = Record<string, unknown>;

/**
 * The decoded value as fixture JSON: only the fields on the wire in this
 * version, int64 as decimal strings, bytes and records as hex.
 */
function toPlain(fields: readonly FieldSpec[], version: number, flexible: boolean, value: Plain): Plain {
  const out: Plain = {};
  for (const f of fields) {
    if (!isPresentIn(f, version) || (f.options.tag !== undefined && !flexible)) continue;
    out[f.name] = typeToPlain(f.type, version, flexible, value[f.name]);
  }
  return out;
}

function typeToPlain(type: TypeSpec, version: number, flexible: boolean, v: unknown): unknown {
  if (v === null) return null;
  if (typeof type !== 'string') {
    if (type.kind === 'array') return (v as unknown[]).map((e) => typeToPlain(type.element as TypeSpec, version, flexible, e));
    return toPlain(type.fields as readonly FieldSpec[], version, flexible, v as Plain);
  }
  if (type === 'int64') return (v as bigint).toString();
  if (type === 'bytes' || type === 'nullableBytes' || type === 'records') return (v as Buffer).toString('hex');
  return v;
}

/**
 * A decoded value restricted to the fields on the wire in `version` (values
 * unchanged): decoding fills fields of later versions with their defaults
 * (Fetch v13+ topicId, replicaState, nodeEndpoints), which a golden value for
 * an older version does not list.
 */
function onWire(fields: readonly FieldSpec[], version: number, value: Plain): Plain {
  const out: Plain = {};
  for (const f of fields) {
    if (!isPresentIn(f, version)) continue;
    const v = value[f.name];
    const t = f.type;
    if (v === null || typeof t === 'string') out[f.name] = v;
    else if (t.kind === 'array') out[f.name] = typeof t.element === 'string' ? v : (v as Plain[]).map((e) => onWire((t.element as { fields: readonly FieldSpec[] }).fields, version, e));
    else out[f.name] = onWire(t.fields as readonly FieldSpec[], version, v as Plain);
  }
  return out;
}

/** The inverse of toPlain: fixture JSON to an encoder input. */
function fromPlain(fields: readonly FieldSpec[], version: number, value: Plain): Plain {
  const out: Plain = {};
  for (const f of fields) {
    if (!isPresentIn(f, version) || !(f.name in value)) continue;
    out[f.name] = typeFromPlain(f.type, version, value[f.name]);
  }
  return out;
}

function typeFromPlain(type: TypeSpec, version: number, v: unknown): unknown {
  if (v === null) return null;
  if (typeof type !== 'string') {
    if (type.kind === 'array') return (v as unknown[]).map((e) => typeFromPlain(type.element as TypeSpec, version, e));
    return fromPlain(type.fields as readonly FieldSpec[], version, v as Plain);
  }
  if (type === 'int64') return BigInt(v as string);
  if (type === 'bytes' || type === 'nullableBytes' || type === 'records') return Buffer.from(v as string, 'hex');
  return v;
}

function requestSchema(apiKey: number): MessageSchema {
  const api = apiSchemas.get(apiKey);
  assert.ok(api, `no schema for api key ${apiKey}`);
  return api.request;
}

const fixtureIndex = JSON.parse(readFileSync(resolve(FIXTURES, 'index.json'), 'utf8')) as FixtureIndexEntry[];

test('the kafkajs fixtures cover the main requests', () => {
  const names = new Set(fixtureIndex.map((e) => e.name));
  for (const name of ['produce-v7', 'fetch-v11', 'list-offsets-v2', 'metadata-v0', 'metadata-v1', 'metadata-v6', 'offset-commit-v5', 'offset-fetch-v4']) {
    assert.ok(names.has(name), `missing fixture ${name}`);
  }
  assert.ok(fixtureIndex.length >= 16);
});

for (const entry of fixtureIndex) {
  test(`kafkajs golden ${entry.name}`, () => {
    const fixture = JSON.parse(readFileSync(resolve(FIXTURES, `${entry.name}.json`), 'utf8')) as Fixture;
    const bytes = Buffer.from(readFileSync(resolve(FIXTURES, `${entry.name}.hex`), 'utf8').trim(), 'hex');
    assert.equal(fixture.apiKey, entry.apiKey);
    assert.equal(fixture.version, entry.version);
    const schema = requestSchema(entry.apiKey);
    const flexible = isFlexible(schema, entry.version);
    assert.equal(flexible, false, 'kafkajs 2.2.4 speaks only classic versions');

    const decoded = decode(schema, entry.version, bytes) as Plain;
    assert.deepEqual(toPlain(schema.fields, entry.version, flexible, decoded), fixture.expected);
    assert.deepEqual(encode(schema, entry.version, decoded as Input<MessageSchema>), bytes, 're-encoding the decoded value');
    const input = fromPlain(schema.fields, entry.version, fixture.expected);
    assert.deepEqual(encode(schema, entry.version, input as Input<MessageSchema>), bytes, 'encoding the fixture values');
  });
}

// ---------------------------------------------------------------------------
// Hand-built flexible goldens. Helpers write big-endian integers and the
// KIP-482 compact forms; nothing here uses the codec's Writer.

const i8 = (n: number): number[] => [n & 0xff];
const bool = (b: boolean): number[] => [b ? 1 : 0];
const i16 = (n: number): number[] => [(n >> 8) & 0xff, n & 0xff];
const i32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
function i64(n: bigint): number[] {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return [...b];
}
function uvarint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}
/** COMPACT_STRING / COMPACT_NULLABLE_STRING: uvarint(length + 1), 0 for null. */
const compactString = (s: string | null): number[] => (s === null ? [0] : [...uvarint(Buffer.byteLength(s) + 1), ...Buffer.from(s, 'utf8')]);
/** COMPACT_ARRAY: uvarint(count + 1), 0 for null, then the elements. */
const compactArray = (items: readonly number[][] | null): number[] => (items === null ? [0] : [...uvarint(items.length + 1), ...items.flat()]);
/** A tagged-field section: uvarint count, then (uvarint tag, uvarint size, bytes) in tag order. */
function tagSection(fields: readonly (readonly [number, number[]])[]): number[] {
  return [...uvarint(fields.length), ...fields.flatMap(([tag, body]) => [...uvarint(tag), ...uvarint(body.length), ...body])];
}
const NO_TAGS = tagSection([]);
const bytesOf = (...parts: number[][]): Buffer => Buffer.from(parts.flat());

test('hand-built golden: Metadata v9 request (compact array, struct tag buffers)', () => {
  const bytes = bytesOf(
    compactArray([
      [...compactString('orders'), ...NO_TAGS],
      [...compactString('ünï'), ...NO_TAGS],
    ]),
    bool(false), // allowAutoTopicCreation
    bool(true), // includeClusterAuthorizedOperations
    bool(false), // includeTopicAuthorizedOperations
    NO_TAGS,
  );
  const value = {
    topics: [{ name: 'orders' }, { name: 'ünï' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: true,
    includeTopicAuthorizedOperations: false,
  };
  assert.deepEqual(encode(MetadataRequest, 9, value), bytes);
  // A field of later versions (topicId, v10+) decodes to its default.
  assert.deepEqual(decode(MetadataRequest, 9, bytes), { ...value, topics: value.topics.map((t) => ({ ...t, topicId: ZERO_UUID })) });

  // topics = null (all topics) is a compact length of 0.
  const allTopics = bytesOf([0], bool(true), bool(false), bool(false), NO_TAGS);
  assert.deepEqual(encode(MetadataRequest, 9, { topics: null, allowAutoTopicCreation: true }), allTopics);
  assert.equal(decode(MetadataRequest, 9, allTopics).topics, null);
});

test('hand-built golden: multi-byte compact lengths (strings of 200 and 16,400 bytes, an array of 130)', () => {
  // The prefixes are spelled out byte by byte (uvarint, least significant
  // seven bits first), not computed: 201 = 0x49 + 1 * 128, 16401 = 0x11 +
  // 0 * 128 + 1 * 16384, 131 = 0x03 + 1 * 128.
  const long = 'L'.repeat(200);
  const veryLong = 'x'.repeat(16_400);
  const oneTopic = (prefix: number[], name: string): number[] => [...prefix, ...Buffer.from(name), ...NO_TAGS];
  const bytes = bytesOf(
    [0x04], // three topics
    oneTopic([0xc9, 0x01], long),
    oneTopic([0x91, 0x80, 0x01], veryLong),
    oneTopic([0x02], 't'),
    bool(true), bool(false), bool(false),
    NO_TAGS,
  );
  const value = { topics: [{ name: long }, { name: veryLong }, { name: 't' }], allowAutoTopicCreation: true };
  assert.deepEqual(encode(MetadataRequest, 9, value), bytes);
  assert.deepEqual(decode(MetadataRequest, 9, bytes).topics?.map((t) => t.name), value.topics.map((t) => t.name));

  const names = Array.from({ length: 130 }, (_, i) => `t${i}`);
  const many = bytesOf(
    [0x83, 0x01], // 130 topics
    ...names.map((name) => oneTopic([name.length + 1], name)),
    bool(true), bool(false), bool(false),
    NO_TAGS,
  );
  const manyValue = { topics: names.map((name) => ({ name })), allowAutoTopicCreation: true };
  assert.deepEqual(encode(MetadataRequest, 9, manyValue), many);
  assert.deepEqual(decode(MetadataRequest, 9, many).topics?.map((t) => t.name), manyValue.topics.map((t) => t.name));
});

test('hand-built golden: Metadata v9 response', () => {
  const partition = [
    ...i16(0),
    ...i32(2), // partitionIndex
    ...i32(1), // leaderId
    ...i32(17), // leaderEpoch
    ...compactArray([i32(1), i32(2)]), // replicaNodes
    ...compactArray([i32(1)]), // isrNodes
    ...compactArray([]), // offlineReplicas
    ...NO_TAGS,
  ];
  const bytes = bytesOf(
    i32(0), // throttleTimeMs
    compactArray([
      [...i32(1), ...compactString('broker-1'), ...i32(9092), ...compactString(null), ...NO_TAGS],
      [...i32(2), ...compactString('broker-2'), ...i32(9093), ...compactString('rack-b'), ...NO_TAGS],
    ]),
    compactString('cluster-ü'),
    i32(1), // controllerId
    compactArray([[...i16(0), ...compactString('orders'), ...bool(false), ...compactArray([partition]), ...i32(-2147483648), ...NO_TAGS]]),
    i32(0x0f8), // clusterAuthorizedOperations
    NO_TAGS,
  );
  const value = {
    throttleTimeMs: 0,
    brokers: [
      { nodeId: 1, host: 'broker-1', port: 9092, rack: null },
      { nodeId: 2, host: 'broker-2', port: 9093, rack: 'rack-b' },
    ],
    clusterId: 'cluster-ü',
    controllerId: 1,
    topics: [
      {
        errorCode: 0,
        name: 'orders',
        isInternal: false,
        partitions: [{ errorCode: 0, partitionIndex: 2, leaderId: 1, leaderEpoch: 17, replicaNodes: [1, 2], isrNodes: [1], offlineReplicas: [] }],
        topicAuthorizedOperations: -2147483648,
      },
    ],
    clusterAuthorizedOperations: 0x0f8,
  };
  assert.deepEqual(encode(MetadataResponse, 9, value), bytes);
  assert.deepEqual(decode(MetadataResponse, 9, bytes), { ...value, topics: value.topics.map((t) => ({ ...t, topicId: ZERO_UUID })) });
});

test('hand-built golden: Metadata v12 (KIP-516 topic ids: a topic by id with a null name; no cluster authorized operations)', () => {
  const idBytes = Array.from({ length: 16 }, (_, i) => i + 1);
  const topicId = Buffer.from(idBytes).toString('base64url');
  const request = bytesOf(
    compactArray([
      [...idBytes, ...compactString(null), ...NO_TAGS],
      [...new Array<number>(16).fill(0), ...compactString('orders'), ...NO_TAGS],
    ]),
    bool(true), // allowAutoTopicCreation
    bool(false), // includeTopicAuthorizedOperations (includeClusterAuthorizedOperations is gone from v11)
    NO_TAGS,
  );
  const requestValue = {
    topics: [
      { topicId, name: null },
      { topicId: ZERO_UUID, name: 'orders' },
    ],
    allowAutoTopicCreation: true,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  };
  assert.deepEqual(encode(MetadataRequest, 12, requestValue), request);
  assert.deepEqual(decode(MetadataRequest, 12, request), requestValue);

  const response = bytesOf(
    i32(0), // throttleTimeMs
    compactArray([]), // brokers
    compactString(null), // clusterId
    i32(1), // controllerId
    compactArray([
      [...i16(100), ...compactString(null), ...idBytes, ...bool(false), ...compactArray([]), ...i32(-2147483648), ...NO_TAGS], // UNKNOWN_TOPIC_ID
    ]),
    NO_TAGS, // no clusterAuthorizedOperations from v11
  );
  const responseValue = {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: 1,
    topics: [{ errorCode: 100, name: null, topicId, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 }],
    clusterAuthorizedOperations: -2147483648,
  };
  assert.deepEqual(encode(MetadataResponse, 12, responseValue), response);
  assert.deepEqual(decode(MetadataResponse, 12, response), responseValue);
});

test('hand-built golden: Fetch v12 request with clusterId as tagged field 0', () => {
  const partition = [
    ...i32(0), // partition
    ...i32(5), // currentLeaderEpoch
    ...i64(1234567890123n), // fetchOffset
    ...i32(4), // lastFetchedEpoch
    ...i64(-1n), // logStartOffset
    ...i32(1048576), // partitionMaxBytes
    ...NO_TAGS,
  ];
  const bytes = bytesOf(
    i32(-1), // replicaId
    i32(500), // maxWaitMs
    i32(1), // minBytes
    i32(52428800), // maxBytes
    i8(1), // isolationLevel
    i32(0), // sessionId
    i32(-1), // sessionEpoch
    compactArray([[...compactString('orders'), ...compactArray([partition]), ...NO_TAGS]]),
    compactArray([[...compactString('old'), ...compactArray([i32(7), i32(8)]), ...NO_TAGS]]), // forgottenTopicsData
    compactString('rack-a'),
    tagSection([[0, compactString('cluster-1')]]),
  );
  const value = {
    clusterId: 'cluster-1',
    replicaId: -1,
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 52428800,
    isolationLevel: 1,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: 'orders',
        partitions: [{ partition: 0, currentLeaderEpoch: 5, fetchOffset: 1234567890123n, lastFetchedEpoch: 4, logStartOffset: -1n, partitionMaxBytes: 1048576 }],
      },
    ],
    forgottenTopicsData: [{ topic: 'old', partitions: [7, 8] }],
    rackId: 'rack-a',
  };
  assert.deepEqual(encode(FetchRequest, 12, value), bytes);
  assert.deepEqual(onWire(FetchRequest.fields, 12, decode(FetchRequest, 12, bytes) as Plain), value);

  // Without clusterId the tag section is empty, and decoding gives the default (null).
  const { clusterId: _omitted, ...withoutCluster } = value;
  const untagged = Buffer.concat([bytes.subarray(0, bytes.length - tagSection([[0, compactString('cluster-1')]]).length), Buffer.from(NO_TAGS)]);
  assert.deepEqual(encode(FetchRequest, 12, withoutCluster), untagged);
  assert.equal(decode(FetchRequest, 12, untagged).clusterId, null);
});

test('hand-built golden: Fetch v12 response with divergingEpoch, currentLeader and snapshotId tags', () => {
  const records = Buffer.from('00000000000000000000000c', 'hex'); // opaque to the codec
  const partitionTags = tagSection([
    [0, [...i32(3), ...i64(100n), ...NO_TAGS]], // divergingEpoch: epoch, endOffset
    [1, [...i32(2), ...i32(9), ...NO_TAGS]], // currentLeader: leaderId, leaderEpoch
    [2, [...i64(50n), ...i32(1), ...NO_TAGS]], // snapshotId: endOffset, epoch
  ]);
  const partition = [
    ...i32(0), // partitionIndex
    ...i16(0), // errorCode
    ...i64(120n), // highWatermark
    ...i64(110n), // lastStableOffset
    ...i64(0n), // logStartOffset
    ...compactArray([[...i64(77n), ...i64(105n), ...NO_TAGS]]), // abortedTransactions
    ...i32(-1), // preferredReadReplica
    ...uvarint(records.length + 1), // COMPACT_RECORDS
    ...records,
    ...partitionTags,
  ];
  const nullRecordsPartition = [...i32(1), ...i16(1), ...i64(-1n), ...i64(-1n), ...i64(-1n), 0, ...i32(-1), 0, ...NO_TAGS];
  const bytes = bytesOf(
    i32(0), // throttleTimeMs
    i16(0), // errorCode
    i32(0), // sessionId
    compactArray([[...compactString('orders'), ...compactArray([partition, nullRecordsPartition]), ...NO_TAGS]]),
    NO_TAGS,
  );
  const value = {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topic: 'orders',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            highWatermark: 120n,
            lastStableOffset: 110n,
            logStartOffset: 0n,
            divergingEpoch: { epoch: 3, endOffset: 100n },
            currentLeader: { leaderId: 2, leaderEpoch: 9 },
            snapshotId: { endOffset: 50n, epoch: 1 },
            abortedTransactions: [{ producerId: 77n, firstOffset: 105n }],
            preferredReadReplica: -1,
            records,
          },
          {
            partitionIndex: 1,
            errorCode: 1,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            divergingEpoch: { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: -1, leaderEpoch: -1 },
            snapshotId: { endOffset: -1n, epoch: -1 },
            abortedTransactions: null,
            preferredReadReplica: -1,
            records: null,
          },
        ],
      },
    ],
  };
  assert.deepEqual(encode(FetchResponse, 12, value), bytes);
  assert.deepEqual(onWire(FetchResponse.fields, 12, decode(FetchResponse, 12, bytes) as Plain), value);

  // An unknown tag (here 9) inside the partition is skipped, not rejected.
  const withUnknown = bytesOf(
    i32(0),
    i16(0),
    i32(0),
    compactArray([[...compactString('orders'), ...compactArray([[...nullRecordsPartition.slice(0, -1), ...tagSection([[9, [1, 2, 3]]])]]), ...NO_TAGS]]),
    NO_TAGS,
  );
  const back = decode(FetchResponse, 12, withUnknown);
  assert.equal(back.responses[0]?.partitions[0]?.partitionIndex, 1);
  assert.deepEqual(back.responses[0]?.partitions[0]?.currentLeader, { leaderId: -1, leaderEpoch: -1 });
});

/**
 * Golden bytes for the admin, transaction and ACL schemas (keys 19-60), worked
 * out by hand from the protocol spec: for each API one classic version and the
 * first flexible version. The expected bytes are built from the small helpers
 * below, which know nothing of the codec: classic string = int16 length, array
 * and bytes = int32 length, -1 for null; compact = uvarint(length + 1), 0 for
 * null; every flexible struct (and the message itself) ends with a tag buffer,
 * `TAGS` when empty. Round trips over every version live in roundtrip.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, encode } from '../../../src/protocol/codec.js';
import type { Input, MessageSchema } from '../../../src/protocol/schema.js';
import {
  AddOffsetsToTxnRequest,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  AlterConfigsRequest,
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  apiSchemas,
  CreateAclsRequest,
  CreatePartitionsRequest,
  CreateTopicsRequest,
  CreateTopicsResponse,
  DeleteAclsRequest,
  DeleteAclsResponse,
  DeleteGroupsRequest,
  DeleteGroupsResponse,
  DeleteRecordsRequest,
  DeleteTopicsRequest,
  DeleteTopicsResponse,
  DescribeAclsRequest,
  DescribeAclsResponse,
  DescribeClusterRequest,
  DescribeClusterResponse,
  DescribeConfigsRequest,
  DescribeConfigsResponse,
  DescribeLogDirsRequest,
  DescribeLogDirsResponse,
  ElectLeadersRequest,
  ElectLeadersResponse,
  EndTxnRequest,
  EndTxnResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  InitProducerIdRequest,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
  OffsetDeleteRequest,
  OffsetDeleteResponse,
  OffsetForLeaderEpochRequest,
  OffsetForLeaderEpochResponse,
  SaslAuthenticateRequest,
  SaslAuthenticateResponse,
  TxnOffsetCommitRequest,
} from '../../../src/protocol/messages/index.js';

// ---- spec helpers (independent of the codec) --------------------------------

type Bytes = number[];

function int(width: 1 | 2 | 4, value: number): Bytes {
  const b = Buffer.alloc(width);
  if (width === 1) b.writeInt8(value);
  else if (width === 2) b.writeInt16BE(value);
  else b.writeInt32BE(value);
  return [...b];
}
const i8 = (v: number): Bytes => int(1, v);
const i16 = (v: number): Bytes => int(2, v);
const i32 = (v: number): Bytes => int(4, v);
function i64(v: bigint): Bytes {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return [...b];
}
const bool = (v: boolean): Bytes => [v ? 1 : 0];
function uv(n: number): Bytes {
  const out: Bytes = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}
const utf8 = (s: string): Bytes => [...Buffer.from(s, 'utf8')];
/** Classic string / nullable string. */
const str = (s: string | null): Bytes => (s === null ? i16(-1) : [...i16(Buffer.byteLength(s)), ...utf8(s)]);
/** Compact string / nullable string. */
const cstr = (s: string | null): Bytes => (s === null ? [0] : [...uv(Buffer.byteLength(s) + 1), ...utf8(s)]);
/** Classic array header (element bytes follow). */
const arr = (count: number | null): Bytes => i32(count ?? -1);
/** Compact array header. */
const carr = (count: number | null): Bytes => (count === null ? [0] : uv(count + 1));
/** An empty tagged-field section. */
const TAGS: Bytes = [0];
const bytes = (...parts: Bytes[]): Bytes => parts.flat();

/** A topic id with bytes 0x00..0x0f, in the codec's base64url text form. */
const TOPIC_ID_BYTES: Bytes = Array.from({ length: 16 }, (_, i) => i);
const TOPIC_ID = Buffer.from(TOPIC_ID_BYTES).toString('base64url');

/** Encodes `value`, compares with the hand-built bytes, and re-encodes their decoding. */
function check<S extends MessageSchema>(schema: S, version: number, value: Input<S>, expected: Bytes): void {
  assert.deepEqual([...encode(schema, version, value)], expected, `${schema.name} v${version} encode`);
  const decoded = decode(schema, version, Buffer.from(expected));
  assert.deepEqual([...encode(schema, version, decoded as unknown as Input<S>)], expected, `${schema.name} v${version} re-encode`);
}

// ---- version ranges ----------------------------------------------------------

describe('version ranges and flexible boundaries', () => {
  // key, min, max, first flexible version (null: none in range)
  const expected: readonly (readonly [number, number, number, number | null])[] = [
    [19, 0, 7, 5],
    [20, 0, 6, 4],
    [21, 0, 2, 2],
    [22, 0, 5, 2],
    [23, 0, 4, 4],
    [24, 0, 5, 3],
    [25, 0, 4, 3],
    [26, 0, 5, 3],
    [28, 0, 4, 3],
    [29, 0, 3, 2],
    [30, 0, 3, 2],
    [31, 0, 3, 2],
    [32, 0, 4, 4],
    [33, 0, 2, 2],
    [35, 0, 4, 2],
    [36, 0, 2, 2],
    [37, 0, 3, 2],
    [42, 0, 2, 2],
    [43, 0, 2, 2],
    [44, 0, 1, 1],
    [45, 0, 0, 0],
    [46, 0, 0, 0],
    [47, 0, 0, null],
    [60, 0, 1, 0],
  ];
  test('each schema pair covers its versions with the right flexible boundary', () => {
    for (const [key, min, max, flexibleFrom] of expected) {
      const api = apiSchemas.get(key);
      assert.ok(api, `key ${key} is registered`);
      for (const schema of [api.request, api.response]) {
        assert.equal(schema.apiKey, key, schema.name);
        assert.equal(schema.minVersion, min, `${schema.name} min`);
        assert.equal(schema.maxVersion, max, `${schema.name} max`);
        for (let v = min; v <= max; v++) {
          const flexible = flexibleFrom !== null && v >= flexibleFrom;
          assert.equal(schema.flexible.min <= v && v <= schema.flexible.max, flexible, `${schema.name} v${v} flexible`);
        }
      }
    }
  });
});

// ---- 19 CreateTopics ---------------------------------------------------------

describe('19 CreateTopics', () => {
  const req = {
    topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'a', value: null }] }],
    timeoutMs: 1000,
    validateOnly: false,
  };
  test('request v4 (classic)', () => {
    check(CreateTopicsRequest, 4, req, bytes(arr(1), str('t'), i32(1), i16(1), arr(0), arr(1), str('a'), str(null), i32(1000), bool(false)));
  });
  test('request v5 (first flexible)', () => {
    check(
      CreateTopicsRequest,
      5,
      req,
      bytes(carr(1), cstr('t'), i32(1), i16(1), carr(0), carr(1), cstr('a'), cstr(null), TAGS, TAGS, i32(1000), bool(false), TAGS),
    );
  });
  test('request v0 has no validateOnly and timeoutMs defaults to 60000', () => {
    check(CreateTopicsRequest, 0, { topics: [] }, bytes(arr(0), i32(60000)));
  });
  test('response v1 (classic): errorMessage, no throttleTimeMs', () => {
    check(CreateTopicsResponse, 1, { topics: [{ name: 't', errorCode: 36, errorMessage: 'x' }] }, bytes(arr(1), str('t'), i16(36), str('x')));
  });
  test('response v5 (first flexible): topicConfigErrorCode is tagged field 0', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        { name: 't', errorCode: 0, errorMessage: null, topicConfigErrorCode: 29, numPartitions: 1, replicationFactor: 1, configs: null },
      ],
    };
    // tagged section of the topic struct: count 1, tag 0, size 2, int16 29
    const topicTags = bytes(uv(1), uv(0), uv(2), i16(29));
    check(CreateTopicsResponse, 5, value, bytes(i32(0), carr(1), cstr('t'), i16(0), cstr(null), i32(1), i16(1), carr(null), topicTags, TAGS));
  });
  test('response v7: topicId follows the name; a zero topicConfigErrorCode is not sent', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          topicId: TOPIC_ID,
          errorCode: 0,
          errorMessage: null,
          numPartitions: 1,
          replicationFactor: 1,
          configs: [{ name: 'a', value: '1', readOnly: false, configSource: 5, isSensitive: false }],
        },
      ],
    };
    const config = bytes(cstr('a'), cstr('1'), bool(false), i8(5), bool(false), TAGS);
    check(
      CreateTopicsResponse,
      7,
      value,
      bytes(i32(0), carr(1), cstr('t'), TOPIC_ID_BYTES, i16(0), cstr(null), i32(1), i16(1), carr(1), config, TAGS, TAGS),
    );
  });
});

// ---- 20 DeleteTopics ---------------------------------------------------------

describe('20 DeleteTopics', () => {
  test('request v1 (classic): topicNames', () => {
    check(DeleteTopicsRequest, 1, { topicNames: ['a'], timeoutMs: 5 }, bytes(arr(1), str('a'), i32(5)));
  });
  test('request v4 (first flexible)', () => {
    check(DeleteTopicsRequest, 4, { topicNames: ['a'], timeoutMs: 5 }, bytes(carr(1), cstr('a'), i32(5), TAGS));
  });
  test('request v6: topics[] of {name (null), topicId}', () => {
    check(
      DeleteTopicsRequest,
      6,
      { topics: [{ name: null, topicId: TOPIC_ID }], timeoutMs: 5 },
      bytes(carr(1), cstr(null), TOPIC_ID_BYTES, TAGS, i32(5), TAGS),
    );
  });
  test('response v4 (first flexible)', () => {
    check(DeleteTopicsResponse, 4, { throttleTimeMs: 0, responses: [{ name: 'a', errorCode: 3 }] }, bytes(i32(0), carr(1), cstr('a'), i16(3), TAGS, TAGS));
  });
  test('response v6: null name, topicId, errorMessage', () => {
    check(
      DeleteTopicsResponse,
      6,
      { throttleTimeMs: 0, responses: [{ name: null, topicId: TOPIC_ID, errorCode: 100, errorMessage: 'x' }] },
      bytes(i32(0), carr(1), cstr(null), TOPIC_ID_BYTES, i16(100), cstr('x'), TAGS, TAGS),
    );
  });
  test('response name is nullable only from v6', () => {
    assert.throws(() => encode(DeleteTopicsResponse, 5, { throttleTimeMs: 0, responses: [{ name: null, errorCode: 0 }] }), TypeError);
  });
});

// ---- 21 DeleteRecords --------------------------------------------------------

describe('21 DeleteRecords', () => {
  const req = { topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 5n }] }], timeoutMs: 100 };
  test('request v1 (classic)', () => {
    check(DeleteRecordsRequest, 1, req, bytes(arr(1), str('t'), arr(1), i32(0), i64(5n), i32(100)));
  });
  test('request v2 (first flexible)', () => {
    check(DeleteRecordsRequest, 2, req, bytes(carr(1), cstr('t'), carr(1), i32(0), i64(5n), TAGS, TAGS, i32(100), TAGS));
  });
});

// ---- 24 AddPartitionsToTxn v4 (KIP-890 verifyOnly) and 26 EndTxn v5 ------------

describe('24 AddPartitionsToTxn v4 and 26 EndTxn v5', () => {
  test('v4 batches transactions with verifyOnly; the v0-3 fields are gone', () => {
    check(
      AddPartitionsToTxnRequest,
      4,
      { transactions: [{ transactionalId: 'tx', producerId: 7n, producerEpoch: 2, verifyOnly: true, topics: [{ name: 't', partitions: [0] }] }] },
      bytes(carr(1), cstr('tx'), i64(7n), i16(2), bool(true), carr(1), cstr('t'), carr(1), i32(0), TAGS, TAGS, TAGS),
    );
    check(
      AddPartitionsToTxnResponse,
      4,
      { throttleTimeMs: 0, errorCode: 0, resultsByTransaction: [{ transactionalId: 'tx', topicResults: [{ name: 't', results: [{ partitionIndex: 0, errorCode: 48 }] }] }] },
      bytes(i32(0), i16(0), carr(1), cstr('tx'), carr(1), cstr('t'), carr(1), i32(0), i16(48), TAGS, TAGS, TAGS, TAGS),
    );
  });
  test('EndTxn v5 answers the producer id and epoch to continue with', () => {
    check(EndTxnResponse, 5, { throttleTimeMs: 0, errorCode: 0, producerId: 9n, producerEpoch: 3 }, bytes(i32(0), i16(0), i64(9n), i16(3), TAGS));
  });
});

// ---- 22 InitProducerId -------------------------------------------------------

describe('22 InitProducerId', () => {
  test('request v1 (classic)', () => {
    check(InitProducerIdRequest, 1, { transactionalId: null, transactionTimeoutMs: 60000 }, bytes(str(null), i32(60000)));
  });
  test('request v2 (first flexible)', () => {
    check(InitProducerIdRequest, 2, { transactionalId: null, transactionTimeoutMs: 60000 }, bytes(cstr(null), i32(60000), TAGS));
  });
  test('request v3: producerId/producerEpoch default to -1', () => {
    check(InitProducerIdRequest, 3, { transactionalId: 'tx', transactionTimeoutMs: 1000 }, bytes(cstr('tx'), i32(1000), i64(-1n), i16(-1), TAGS));
  });
});

// ---- 23 OffsetForLeaderEpoch -------------------------------------------------

describe('23 OffsetForLeaderEpoch', () => {
  const req = { replicaId: -1, topics: [{ topic: 't', partitions: [{ partition: 0, currentLeaderEpoch: 5, leaderEpoch: 4 }] }] };
  test('request v3 (classic)', () => {
    check(OffsetForLeaderEpochRequest, 3, req, bytes(i32(-1), arr(1), str('t'), arr(1), i32(0), i32(5), i32(4)));
  });
  test('request v4 (first flexible)', () => {
    check(OffsetForLeaderEpochRequest, 4, req, bytes(i32(-1), carr(1), cstr('t'), carr(1), i32(0), i32(5), i32(4), TAGS, TAGS, TAGS));
  });
  test('response v0: no throttleTimeMs, no leaderEpoch', () => {
    check(
      OffsetForLeaderEpochResponse,
      0,
      { topics: [{ topic: 't', partitions: [{ errorCode: 0, partition: 0, endOffset: 10n }] }] },
      bytes(arr(1), str('t'), arr(1), i16(0), i32(0), i64(10n)),
    );
  });
});

// ---- 24 AddPartitionsToTxn ---------------------------------------------------

describe('24 AddPartitionsToTxn', () => {
  const req = { transactionalId: 'x', producerId: 1n, producerEpoch: 0, topics: [{ name: 't', partitions: [0] }] };
  test('request v0 (classic)', () => {
    check(AddPartitionsToTxnRequest, 0, req, bytes(str('x'), i64(1n), i16(0), arr(1), str('t'), arr(1), i32(0)));
  });
  test('request v3 (first flexible)', () => {
    check(AddPartitionsToTxnRequest, 3, req, bytes(cstr('x'), i64(1n), i16(0), carr(1), cstr('t'), carr(1), i32(0), TAGS, TAGS));
  });
  test('response v3 (first flexible)', () => {
    check(
      AddPartitionsToTxnResponse,
      3,
      { throttleTimeMs: 0, results: [{ name: 't', results: [{ partitionIndex: 0, errorCode: 51 }] }] },
      bytes(i32(0), carr(1), cstr('t'), carr(1), i32(0), i16(51), TAGS, TAGS, TAGS),
    );
  });
});

// ---- 25 AddOffsetsToTxn ------------------------------------------------------

describe('25 AddOffsetsToTxn', () => {
  const req = { transactionalId: 'x', producerId: 1n, producerEpoch: 0, groupId: 'g' };
  test('request v1 (classic)', () => {
    check(AddOffsetsToTxnRequest, 1, req, bytes(str('x'), i64(1n), i16(0), str('g')));
  });
  test('request v3 (first flexible)', () => {
    check(AddOffsetsToTxnRequest, 3, req, bytes(cstr('x'), i64(1n), i16(0), cstr('g'), TAGS));
  });
});

// ---- 26 EndTxn ---------------------------------------------------------------

describe('26 EndTxn', () => {
  const req = { transactionalId: 'x', producerId: 1n, producerEpoch: 0, committed: true };
  test('request v1 (classic)', () => {
    check(EndTxnRequest, 1, req, bytes(str('x'), i64(1n), i16(0), bool(true)));
  });
  test('request v3 (first flexible)', () => {
    check(EndTxnRequest, 3, req, bytes(cstr('x'), i64(1n), i16(0), bool(true), TAGS));
  });
  test('response v3 (first flexible)', () => {
    check(EndTxnResponse, 3, { throttleTimeMs: 0, errorCode: 0 }, bytes(i32(0), i16(0), TAGS));
  });
});

// ---- 28 TxnOffsetCommit ------------------------------------------------------

describe('28 TxnOffsetCommit', () => {
  const req = {
    transactionalId: 'x',
    groupId: 'g',
    producerId: 1n,
    producerEpoch: 0,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }] }],
  };
  test('request v2 (classic): committedLeaderEpoch', () => {
    check(
      TxnOffsetCommitRequest,
      2,
      req,
      bytes(str('x'), str('g'), i64(1n), i16(0), arr(1), str('t'), arr(1), i32(0), i64(5n), i32(-1), str(null)),
    );
  });
  test('request v3 (first flexible): generationId -1, memberId "", groupInstanceId null by default', () => {
    check(
      TxnOffsetCommitRequest,
      3,
      req,
      bytes(
        cstr('x'),
        cstr('g'),
        i64(1n),
        i16(0),
        i32(-1),
        cstr(''),
        cstr(null),
        carr(1),
        cstr('t'),
        carr(1),
        i32(0),
        i64(5n),
        i32(-1),
        cstr(null),
        TAGS,
        TAGS,
        TAGS,
      ),
    );
  });
});

// ---- 29/30/31 ACLs -----------------------------------------------------------

const aclFilter = {
  resourceTypeFilter: 2,
  resourceNameFilter: null,
  patternTypeFilter: 3,
  principalFilter: null,
  hostFilter: null,
  operation: 1,
  permissionType: 1,
};

describe('29 DescribeAcls', () => {
  test('request v0 (classic): no patternTypeFilter', () => {
    check(DescribeAclsRequest, 0, aclFilter, bytes(i8(2), str(null), str(null), str(null), i8(1), i8(1)));
  });
  test('request v1 (classic): patternTypeFilter', () => {
    check(DescribeAclsRequest, 1, aclFilter, bytes(i8(2), str(null), i8(3), str(null), str(null), i8(1), i8(1)));
  });
  test('request v2 (first flexible)', () => {
    check(DescribeAclsRequest, 2, aclFilter, bytes(i8(2), cstr(null), i8(3), cstr(null), cstr(null), i8(1), i8(1), TAGS));
  });
  test('response v2 (first flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      resources: [
        { resourceType: 2, resourceName: 't', patternType: 3, acls: [{ principal: 'User:a', host: '*', operation: 2, permissionType: 3 }] },
      ],
    };
    const acl = bytes(cstr('User:a'), cstr('*'), i8(2), i8(3), TAGS);
    check(DescribeAclsResponse, 2, value, bytes(i32(0), i16(0), cstr(null), carr(1), i8(2), cstr('t'), i8(3), carr(1), acl, TAGS, TAGS));
  });
});

describe('30 CreateAcls', () => {
  const req = {
    creations: [{ resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:a', host: '*', operation: 2, permissionType: 3 }],
  };
  test('request v1 (classic)', () => {
    check(CreateAclsRequest, 1, req, bytes(arr(1), i8(2), str('t'), i8(3), str('User:a'), str('*'), i8(2), i8(3)));
  });
  test('request v2 (first flexible)', () => {
    check(CreateAclsRequest, 2, req, bytes(carr(1), i8(2), cstr('t'), i8(3), cstr('User:a'), cstr('*'), i8(2), i8(3), TAGS, TAGS));
  });
});

describe('31 DeleteAcls', () => {
  test('request v1 (classic)', () => {
    check(DeleteAclsRequest, 1, { filters: [aclFilter] }, bytes(arr(1), i8(2), str(null), i8(3), str(null), str(null), i8(1), i8(1)));
  });
  test('request v2 (first flexible)', () => {
    check(
      DeleteAclsRequest,
      2,
      { filters: [aclFilter] },
      bytes(carr(1), i8(2), cstr(null), i8(3), cstr(null), cstr(null), i8(1), i8(1), TAGS, TAGS),
    );
  });
  test('response v2 (first flexible)', () => {
    check(
      DeleteAclsResponse,
      2,
      { throttleTimeMs: 0, filterResults: [{ errorCode: 0, errorMessage: null, matchingAcls: [] }] },
      bytes(i32(0), carr(1), i16(0), cstr(null), carr(0), TAGS, TAGS),
    );
  });
});

// ---- 32 DescribeConfigs ------------------------------------------------------

describe('32 DescribeConfigs', () => {
  test('request v1 (classic): null configurationKeys, includeSynonyms', () => {
    check(
      DescribeConfigsRequest,
      1,
      { resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }], includeSynonyms: true },
      bytes(arr(1), i8(2), str('t'), arr(null), bool(true)),
    );
  });
  test('request v4 (first flexible): includeDocumentation', () => {
    check(
      DescribeConfigsRequest,
      4,
      { resources: [{ resourceType: 2, resourceName: 't', configurationKeys: ['a'] }], includeSynonyms: false, includeDocumentation: true },
      bytes(carr(1), i8(2), cstr('t'), carr(1), cstr('a'), TAGS, bool(false), bool(true), TAGS),
    );
  });
  test('response v0 (classic): isDefault, no configSource or synonyms', () => {
    const value = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: 't',
          configs: [{ name: 'a', value: '1', readOnly: false, isDefault: true, isSensitive: false }],
        },
      ],
    };
    check(
      DescribeConfigsResponse,
      0,
      value,
      bytes(i32(0), arr(1), i16(0), str(null), i8(2), str('t'), arr(1), str('a'), str('1'), bool(false), bool(true), bool(false)),
    );
  });
  test('response v4 (first flexible): configSource, synonyms, configType, documentation', () => {
    const value = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: 't',
          configs: [
            {
              name: 'a',
              value: null,
              readOnly: true,
              configSource: 5,
              isSensitive: false,
              synonyms: [{ name: 'a', value: null, source: 5 }],
              configType: 1,
              documentation: null,
            },
          ],
        },
      ],
    };
    const synonym = bytes(cstr('a'), cstr(null), i8(5), TAGS);
    const config = bytes(cstr('a'), cstr(null), bool(true), i8(5), bool(false), carr(1), synonym, i8(1), cstr(null), TAGS);
    check(DescribeConfigsResponse, 4, value, bytes(i32(0), carr(1), i16(0), cstr(null), i8(2), cstr('t'), carr(1), config, TAGS, TAGS));
  });
});

// ---- 33 AlterConfigs ---------------------------------------------------------

describe('33 AlterConfigs', () => {
  const req = { resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'a', value: '1' }] }], validateOnly: true };
  test('request v1 (classic)', () => {
    check(AlterConfigsRequest, 1, req, bytes(arr(1), i8(2), str('t'), arr(1), str('a'), str('1'), bool(true)));
  });
  test('request v2 (first flexible)', () => {
    check(AlterConfigsRequest, 2, req, bytes(carr(1), i8(2), cstr('t'), carr(1), cstr('a'), cstr('1'), TAGS, TAGS, bool(true), TAGS));
  });
});

// ---- 35 DescribeLogDirs ------------------------------------------------------

describe('35 DescribeLogDirs', () => {
  test('request v1 (classic): null topics', () => {
    check(DescribeLogDirsRequest, 1, { topics: null }, bytes(arr(null)));
  });
  test('request v2 (first flexible)', () => {
    check(DescribeLogDirsRequest, 2, { topics: [{ topic: 't', partitions: [0] }] }, bytes(carr(1), cstr('t'), carr(1), i32(0), TAGS, TAGS));
  });
  test('response v2 (first flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          logDir: '/d',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 7n, offsetLag: 0n, isFutureKey: false }] }],
        },
      ],
    };
    const partition = bytes(i32(0), i64(7n), i64(0n), bool(false), TAGS);
    check(DescribeLogDirsResponse, 2, value, bytes(i32(0), carr(1), i16(0), cstr('/d'), carr(1), cstr('t'), carr(1), partition, TAGS, TAGS, TAGS));
  });
  test('response v4: top-level errorCode (v3), totalBytes/usableBytes (v4)', () => {
    check(
      DescribeLogDirsResponse,
      4,
      { throttleTimeMs: 0, errorCode: 0, results: [{ errorCode: 0, logDir: '/d', topics: [], totalBytes: 100n, usableBytes: 50n }] },
      bytes(i32(0), i16(0), carr(1), i16(0), cstr('/d'), carr(0), i64(100n), i64(50n), TAGS, TAGS),
    );
  });
});

// ---- 36 SaslAuthenticate -----------------------------------------------------

describe('36 SaslAuthenticate', () => {
  const token = Buffer.from([1, 2]);
  test('request v0 (classic)', () => {
    check(SaslAuthenticateRequest, 0, { authBytes: token }, bytes(i32(2), [1, 2]));
  });
  test('request v2 (first flexible)', () => {
    check(SaslAuthenticateRequest, 2, { authBytes: token }, bytes(uv(3), [1, 2], TAGS));
  });
  const res = { errorCode: 0, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 1000n };
  test('response v1 (classic): sessionLifetimeMs', () => {
    check(SaslAuthenticateResponse, 1, res, bytes(i16(0), str(null), i32(0), i64(1000n)));
  });
  test('response v2 (first flexible)', () => {
    check(SaslAuthenticateResponse, 2, res, bytes(i16(0), cstr(null), uv(1), i64(1000n), TAGS));
  });
});

// ---- 37 CreatePartitions -----------------------------------------------------

describe('37 CreatePartitions', () => {
  test('request v1 (classic): null assignments', () => {
    check(
      CreatePartitionsRequest,
      1,
      { topics: [{ name: 't', count: 3, assignments: null }], timeoutMs: 100, validateOnly: false },
      bytes(arr(1), str('t'), i32(3), arr(null), i32(100), bool(false)),
    );
  });
  test('request v2 (first flexible)', () => {
    check(
      CreatePartitionsRequest,
      2,
      { topics: [{ name: 't', count: 3, assignments: [{ brokerIds: [1] }] }], timeoutMs: 100, validateOnly: false },
      bytes(carr(1), cstr('t'), i32(3), carr(1), carr(1), i32(1), TAGS, TAGS, i32(100), bool(false), TAGS),
    );
  });
});

// ---- 42 DeleteGroups ---------------------------------------------------------

describe('42 DeleteGroups', () => {
  test('request v1 (classic)', () => {
    check(DeleteGroupsRequest, 1, { groupsNames: ['g'] }, bytes(arr(1), str('g')));
  });
  test('request v2 (first flexible)', () => {
    check(DeleteGroupsRequest, 2, { groupsNames: ['g'] }, bytes(carr(1), cstr('g'), TAGS));
  });
  test('response v2 (first flexible)', () => {
    check(
      DeleteGroupsResponse,
      2,
      { throttleTimeMs: 0, results: [{ groupId: 'g', errorCode: 0 }] },
      bytes(i32(0), carr(1), cstr('g'), i16(0), TAGS, TAGS),
    );
  });
});

// ---- 43 ElectLeaders ---------------------------------------------------------

describe('43 ElectLeaders', () => {
  const topicPartitions = [{ topic: 't', partitions: [0] }];
  test('request v0 (classic): no electionType', () => {
    check(ElectLeadersRequest, 0, { topicPartitions, timeoutMs: 100 }, bytes(arr(1), str('t'), arr(1), i32(0), i32(100)));
  });
  test('request v1 (classic): electionType', () => {
    check(ElectLeadersRequest, 1, { electionType: 1, topicPartitions, timeoutMs: 100 }, bytes(i8(1), arr(1), str('t'), arr(1), i32(0), i32(100)));
  });
  test('request v2 (first flexible): null topicPartitions', () => {
    check(ElectLeadersRequest, 2, { electionType: 0, topicPartitions: null, timeoutMs: 100 }, bytes(i8(0), carr(null), i32(100), TAGS));
  });
  test('response v0 (classic): no top-level errorCode', () => {
    check(ElectLeadersResponse, 0, { throttleTimeMs: 0, replicaElectionResults: [] }, bytes(i32(0), arr(0)));
  });
});

// ---- 44 IncrementalAlterConfigs ----------------------------------------------

describe('44 IncrementalAlterConfigs', () => {
  const req = {
    resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'a', configOperation: 1, value: null }] }],
    validateOnly: false,
  };
  test('request v0 (classic)', () => {
    check(IncrementalAlterConfigsRequest, 0, req, bytes(arr(1), i8(2), str('t'), arr(1), str('a'), i8(1), str(null), bool(false)));
  });
  test('request v1 (first flexible)', () => {
    check(
      IncrementalAlterConfigsRequest,
      1,
      req,
      bytes(carr(1), i8(2), cstr('t'), carr(1), cstr('a'), i8(1), cstr(null), TAGS, TAGS, bool(false), TAGS),
    );
  });
  test('response v1 (first flexible)', () => {
    check(
      IncrementalAlterConfigsResponse,
      1,
      { throttleTimeMs: 0, responses: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't' }] },
      bytes(i32(0), carr(1), i16(0), cstr(null), i8(2), cstr('t'), TAGS, TAGS),
    );
  });
});

// ---- 45/46 partition reassignments (flexible from v0) ------------------------

describe('45 AlterPartitionReassignments', () => {
  test('request v0 (flexible): null replicas cancels', () => {
    check(
      AlterPartitionReassignmentsRequest,
      0,
      { timeoutMs: 100, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: null }] }] },
      bytes(i32(100), carr(1), cstr('t'), carr(1), i32(0), carr(null), TAGS, TAGS, TAGS),
    );
  });
  test('response v0 (flexible)', () => {
    check(
      AlterPartitionReassignmentsResponse,
      0,
      { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses: [] },
      bytes(i32(0), i16(0), cstr(null), carr(0), TAGS),
    );
  });
});

describe('46 ListPartitionReassignments', () => {
  test('request v0 (flexible): defaults timeoutMs 60000, topics null', () => {
    check(ListPartitionReassignmentsRequest, 0, {}, bytes(i32(60000), carr(null), TAGS));
  });
  test('response v0 (flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [1, 2], addingReplicas: [2], removingReplicas: [] }] }],
    };
    const partition = bytes(i32(0), carr(2), i32(1), i32(2), carr(1), i32(2), carr(0), TAGS);
    check(ListPartitionReassignmentsResponse, 0, value, bytes(i32(0), i16(0), cstr(null), carr(1), cstr('t'), carr(1), partition, TAGS, TAGS));
  });
});

// ---- 47 OffsetDelete (never flexible) ----------------------------------------

describe('47 OffsetDelete', () => {
  test('request v0 (classic)', () => {
    check(
      OffsetDeleteRequest,
      0,
      { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
      bytes(str('g'), arr(1), str('t'), arr(1), i32(0)),
    );
  });
  test('response v0 (classic): errorCode before throttleTimeMs', () => {
    check(
      OffsetDeleteResponse,
      0,
      { errorCode: 0, throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] },
      bytes(i16(0), i32(0), arr(1), str('t'), arr(1), i32(0), i16(0)),
    );
  });
});

// ---- 60 DescribeCluster (flexible from v0) -----------------------------------

describe('60 DescribeCluster', () => {
  test('request v0 (flexible)', () => {
    check(DescribeClusterRequest, 0, { includeClusterAuthorizedOperations: false }, bytes(bool(false), TAGS));
  });
  test('request v1: endpointType', () => {
    check(DescribeClusterRequest, 1, { includeClusterAuthorizedOperations: true, endpointType: 2 }, bytes(bool(true), i8(2), TAGS));
  });
  const res = {
    throttleTimeMs: 0,
    errorCode: 0,
    clusterId: 'c',
    controllerId: 1,
    brokers: [{ brokerId: 1, host: 'h', port: 9092 }],
  };
  const broker = bytes(i32(1), cstr('h'), i32(9092), cstr(null), TAGS);
  test('response v0 (flexible): errorMessage, rack null and clusterAuthorizedOperations INT32_MIN by default', () => {
    check(DescribeClusterResponse, 0, res, bytes(i32(0), i16(0), cstr(null), cstr('c'), i32(1), carr(1), broker, i32(-2147483648), TAGS));
  });
  test('response v1: endpointType (default 1) after errorMessage', () => {
    check(DescribeClusterResponse, 1, res, bytes(i32(0), i16(0), cstr(null), i8(1), cstr('c'), i32(1), carr(1), broker, i32(-2147483648), TAGS));
  });
});

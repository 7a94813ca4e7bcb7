import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../../../../src/protocol/primitives/decode-error.js';
import {
  GroupMetadataValue,
  OffsetCommitKey,
  OffsetCommitValue,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
  decodeRecordKey,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  encodeVersioned,
} from '../../../../../src/coordinator/group/offsets-topic/records.js';
import type { GroupSnapshot } from '../../../../../src/coordinator/group/types.js';

/** Hex with spaces, '|' separators and '#' comments to the end of a line. */
const hex = (s: string): Buffer => Buffer.from(s.replace(/#[^\n]*/g, '').replace(/[\s|]/g, ''), 'hex');

const SNAPSHOT: GroupSnapshot = {
  groupId: 'grp',
  protocolType: 'consumer',
  generationId: 5,
  protocolName: 'range',
  leaderId: 'm1',
  currentStateTimestampMs: 1_700_000_000_000,
  members: [
    {
      memberId: 'm1',
      groupInstanceId: null,
      clientId: 'c',
      clientHost: '/h',
      rebalanceTimeoutMs: 60_000,
      sessionTimeoutMs: 10_000,
      subscription: Buffer.from([1, 2]),
      assignment: Buffer.alloc(0),
    },
  ],
};

describe('__consumer_offsets record keys', () => {
  it('OffsetCommitKey v1: golden bytes', () => {
    const golden = hex('0001 | 0002 6731 | 0001 74 | 00000003'); // version 1, "g1", "t", 3
    assert.deepEqual(encodeOffsetCommitKey('g1', 't', 3), golden);
    assert.deepEqual(decodeRecordKey(golden), { kind: 'offset', groupId: 'g1', topic: 't', partition: 3 });
  });

  it('OffsetCommitKey v0 reads like v1', () => {
    assert.deepEqual(decodeRecordKey(hex('0000 | 0002 6731 | 0001 74 | 00000003')), {
      kind: 'offset', groupId: 'g1', topic: 't', partition: 3,
    });
    assert.deepEqual(encodeVersioned(OffsetCommitKey, 0, { group: 'g1', topic: 't', partition: 3 }), hex('0000 0002 6731 0001 74 00000003'));
  });

  it('GroupMetadataKey v2: golden bytes', () => {
    const golden = hex('0002 | 0003 677270'); // version 2, "grp"
    assert.deepEqual(encodeGroupMetadataKey('grp'), golden);
    assert.deepEqual(decodeRecordKey(golden), { kind: 'group', groupId: 'grp' });
  });

  it('keys of newer record types are reported as unknown, not errors', () => {
    assert.deepEqual(decodeRecordKey(hex('0003 0001 61')), { kind: 'unknown', version: 3 });
    assert.deepEqual(decodeRecordKey(hex('000b')), { kind: 'unknown', version: 11 });
  });

  it('malformed keys throw DecodeError', () => {
    for (const bad of ['', '00', 'ffff', '0001 0005 61', '0001 0001 61 0001 62 0000', '0002 0001 61 00']) {
      assert.throws(() => decodeRecordKey(hex(bad)), DecodeError, bad);
    }
  });

  it('non-ASCII ids round-trip (int16 length counts UTF-8 bytes)', () => {
    const key = encodeOffsetCommitKey('grüppe-😀', 'tópico', 2_147_483_647);
    assert.equal(key.readInt16BE(2), Buffer.byteLength('grüppe-😀'));
    assert.deepEqual(decodeRecordKey(key), { kind: 'offset', groupId: 'grüppe-😀', topic: 'tópico', partition: 2_147_483_647 });
  });
});

describe('OffsetCommitValue', () => {
  it('v3 (the default): golden bytes', () => {
    const golden = hex('0003 | 000000000000002a | 00000007 | 0000 | 00000000000003e8');
    const encoded = encodeOffsetCommitValue({
      topic: 't', partition: 0, offset: 42n, leaderEpoch: 7, metadata: '', commitTimestampMs: 1000, expireTimestampMs: null,
    });
    assert.deepEqual(encoded, golden);
    assert.deepEqual(decodeOffsetCommitValue(golden, 't', 0), {
      topic: 't', partition: 0, offset: 42n, leaderEpoch: 7, metadata: '', commitTimestampMs: 1000, expireTimestampMs: null,
    });
  });

  it('v1 when an expire timestamp is set: golden bytes (the leader epoch is not stored)', () => {
    const golden = hex('0001 | 000000000000002a | 0001 6d | 00000000000003e8 | 00000000000007d0');
    const encoded = encodeOffsetCommitValue({
      topic: 't', partition: 1, offset: 42n, leaderEpoch: 9, metadata: 'm', commitTimestampMs: 1000, expireTimestampMs: 2000,
    });
    assert.deepEqual(encoded, golden);
    assert.deepEqual(decodeOffsetCommitValue(golden, 't', 1), {
      topic: 't', partition: 1, offset: 42n, leaderEpoch: -1, metadata: 'm', commitTimestampMs: 1000, expireTimestampMs: 2000,
    });
  });

  it('v0 and v2: offset, metadata, commitTimestamp', () => {
    for (const version of [0, 2]) {
      const golden = hex(`000${version} | 0000000000000005 | 0002 6d64 | 0000000000000064`);
      assert.deepEqual(encodeVersioned(OffsetCommitValue, version, { offset: 5n, metadata: 'md', commitTimestamp: 100n }), golden);
      assert.deepEqual(decodeOffsetCommitValue(golden, 'x', 3), {
        topic: 'x', partition: 3, offset: 5n, leaderEpoch: -1, metadata: 'md', commitTimestampMs: 100, expireTimestampMs: null,
      });
    }
  });

  it('v1 with expireTimestamp -1 means no expiry', () => {
    const bytes = hex('0001 | 0000000000000005 | 0000 | 0000000000000064 | ffffffffffffffff');
    assert.equal(decodeOffsetCommitValue(bytes, 'x', 0).expireTimestampMs, null);
  });

  it('v4 (flexible, written by hand): compact string and tagged fields, unknown tags skipped', () => {
    const plain = hex('0004 | 000000000000002a | 00000007 | 03 6d64 | 00000000000003e8 | 00');
    const tagged = hex('0004 | 000000000000002a | 00000007 | 03 6d64 | 00000000000003e8 | 01 05 02 abcd');
    for (const bytes of [plain, tagged]) {
      assert.deepEqual(decodeOffsetCommitValue(bytes, 't', 0), {
        topic: 't', partition: 0, offset: 42n, leaderEpoch: 7, metadata: 'md', commitTimestampMs: 1000, expireTimestampMs: null,
      });
    }
    assert.deepEqual(encodeVersioned(OffsetCommitValue, 4, { offset: 42n, leaderEpoch: 7, metadata: 'md', commitTimestamp: 1000n }), plain);
  });

  it('unknown versions, truncation and trailing bytes are DecodeErrors', () => {
    const good = encodeOffsetCommitValue({
      topic: 't', partition: 0, offset: 1n, leaderEpoch: 0, metadata: '', commitTimestampMs: 0, expireTimestampMs: null,
    });
    const v5 = Buffer.from(good);
    v5.writeInt16BE(5, 0);
    const negative = Buffer.from(good);
    negative.writeInt16BE(-1, 0);
    for (const bad of [v5, negative, good.subarray(0, good.length - 1), Buffer.concat([good, hex('00')]), hex('00')]) {
      assert.throws(() => decodeOffsetCommitValue(bad, 't', 0), DecodeError);
    }
  });
});

describe('GroupMetadataValue', () => {
  const V3_GOLDEN = hex(`
    0003                       # version 3
    0008 636f6e73756d6572      # protocolType "consumer"
    00000005                   # generation
    0005 72616e6765            # protocol "range"
    0002 6d31                  # leader "m1"
    0000018bcfe56800           # currentStateTimestamp 1700000000000
    00000001                   # one member:
    0002 6d31                  #   memberId "m1"
    ffff                       #   groupInstanceId null
    0001 63                    #   clientId "c"
    0002 2f68                  #   clientHost "/h"
    0000ea60                   #   rebalanceTimeout 60000
    00002710                   #   sessionTimeout 10000
    00000002 0102              #   subscription
    00000000                   #   assignment (empty)
  `);

  it('v3 (what we write): golden bytes', () => {
    const encoded = encodeGroupMetadataValue(SNAPSHOT);
    assert.equal(encoded.toString('hex'), V3_GOLDEN.toString('hex'));
    assert.deepEqual(decodeGroupMetadataValue(V3_GOLDEN, 'grp'), SNAPSHOT);
  });

  it('v3 with a static member and an empty group', () => {
    const staticMember = { ...SNAPSHOT, members: [{ ...(SNAPSHOT.members[0] as GroupSnapshot['members'][number]), groupInstanceId: 'inst-1' }] };
    assert.deepEqual(decodeGroupMetadataValue(encodeGroupMetadataValue(staticMember), 'grp'), staticMember);
    const empty: GroupSnapshot = {
      groupId: 'grp', protocolType: 'consumer', generationId: 6, protocolName: null, leaderId: null, currentStateTimestampMs: 5, members: [],
    };
    const bytes = encodeGroupMetadataValue(empty);
    assert.equal(bytes.toString('hex'), hex('0003 0008 636f6e73756d6572 00000006 ffff ffff 0000000000000005 00000000').toString('hex'));
    assert.deepEqual(decodeGroupMetadataValue(bytes, 'grp'), empty);
  });

  it('v4 (flexible, written by hand): compact encodings, tagged sections', () => {
    const v4 = hex(`
      0004 09636f6e73756d6572 00000005 0672616e6765 00 0000018bcfe56800
      02 036d31 00 0263 032f68 0000ea60 00002710 030102 01 00
      00`);
    assert.deepEqual(decodeGroupMetadataValue(v4, 'grp'), { ...SNAPSHOT, leaderId: null });
    assert.deepEqual(encodeGroupMetadataValue({ ...SNAPSHOT, leaderId: null }, 4), v4);
  });

  it('each version 0-4 carries exactly its fields', () => {
    const staticSnapshot: GroupSnapshot = {
      ...SNAPSHOT,
      members: [
        { ...(SNAPSHOT.members[0] as GroupSnapshot['members'][number]), groupInstanceId: 'i' },
        { memberId: 'm2', groupInstanceId: null, clientId: 'c2', clientHost: '/h2', rebalanceTimeoutMs: 1, sessionTimeoutMs: 2,
          subscription: Buffer.from('s'), assignment: Buffer.from('a') },
      ],
    };
    for (let version = 0; version <= 4; version++) {
      const back = decodeGroupMetadataValue(encodeGroupMetadataValue(staticSnapshot, version), 'grp');
      assert.equal(back.currentStateTimestampMs, version >= 2 ? SNAPSHOT.currentStateTimestampMs : -1, `v${version}`);
      back.members.forEach((m, i) => {
        const want = staticSnapshot.members[i] as GroupSnapshot['members'][number];
        assert.equal(m.groupInstanceId, version >= 3 ? want.groupInstanceId : null, `v${version}`);
        // v0 has no rebalance timeout: Kafka used the session timeout.
        assert.equal(m.rebalanceTimeoutMs, version >= 1 ? want.rebalanceTimeoutMs : want.sessionTimeoutMs, `v${version}`);
        assert.deepEqual([m.memberId, m.clientId, m.clientHost, m.sessionTimeoutMs], [want.memberId, want.clientId, want.clientHost, want.sessionTimeoutMs]);
        assert.deepEqual(m.subscription, want.subscription);
        assert.deepEqual(m.assignment, want.assignment);
      });
    }
  });

  it('v0, v1, v2 golden bytes for a one-member group', () => {
    const head = '0008 636f6e73756d6572 00000005 0005 72616e6765 0002 6d31';
    const member0 = '0002 6d31 0001 63 0002 2f68';
    const tail = '00002710 00000002 0102 00000000';
    const cases: [number, string][] = [
      [0, `0000 ${head} 00000001 ${member0} ${tail}`],
      [1, `0001 ${head} 00000001 ${member0} 0000ea60 ${tail}`],
      [2, `0002 ${head} 0000018bcfe56800 00000001 ${member0} 0000ea60 ${tail}`],
    ];
    for (const [version, bytes] of cases) {
      assert.equal(encodeGroupMetadataValue(SNAPSHOT, version).toString('hex'), hex(bytes).toString('hex'), `v${version}`);
      assert.deepEqual(encodeVersioned(GroupMetadataValue, version, {
        protocolType: 'consumer', generation: 5, protocol: 'range', leader: 'm1', currentStateTimestamp: 1_700_000_000_000n,
        members: [{ memberId: 'm1', clientId: 'c', clientHost: '/h', rebalanceTimeout: 60_000, sessionTimeout: 10_000,
          subscription: Buffer.from([1, 2]), assignment: Buffer.alloc(0) }],
      }), hex(bytes));
    }
  });

  it('decoded member buffers do not alias the input', () => {
    const bytes = encodeGroupMetadataValue(SNAPSHOT);
    const back = decodeGroupMetadataValue(bytes, 'grp');
    bytes.fill(0);
    assert.deepEqual(back.members[0]?.subscription, Buffer.from([1, 2]));
  });

  it('random bytes give DecodeError or a value, never another exception', () => {
    let seed = 99;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12345) >>> 0;
      return seed % n;
    };
    const base = encodeGroupMetadataValue(SNAPSHOT);
    for (let i = 0; i < 3000; i++) {
      const buf = Buffer.from(base.subarray(0, rnd(base.length + 1)));
      for (let j = rnd(4); j > 0; j--) if (buf.length > 0) buf[rnd(buf.length)] = rnd(256);
      for (const fn of [() => decodeGroupMetadataValue(buf, 'g'), () => decodeOffsetCommitValue(buf, 't', 0), () => decodeRecordKey(buf)]) {
        try {
          fn();
        } catch (e) {
          assert.ok(e instanceof DecodeError, String(e));
        }
      }
    }
  });
});

/**
 * FetchSessionCache (src/broker/fetch-sessions.ts): Kafka's session rules
 * without a broker: which (id, epoch) opens, closes, continues or is
 * refused; epochs advance and wrap past int32 to 1; what an answer must
 * carry in an incremental response; eviction only of sessions idle for the
 * eviction time, else no session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FetchSessionCache, partitionKey, type RequestedPartition } from '../../../src/broker/fetch-sessions.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const part = (partition: number, fetchOffset = 0n): RequestedPartition => ({ topic: 't', topicId: 'id', partition, fetchOffset, partitionMaxBytes: 1024, currentLeaderEpoch: -1 });

test('open, continue, refuse, close', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, evictionMs: 1000 });
  assert.deepEqual(cache.begin(0, -1, [part(0)], [], 0), { kind: 'sessionless' });
  const opened = cache.begin(0, 0, [part(0), part(1)], [], 0);
  assert.equal(opened.kind, 'full');
  if (opened.kind !== 'full') return;
  const id = opened.session.id;
  assert.ok(id > 0);
  const next = cache.begin(id, 1, [part(1, 5n)], [{ topic: 't', partition: 0 }], 1);
  assert.equal(next.kind, 'incremental');
  if (next.kind !== 'incremental') return;
  assert.deepEqual([...next.session.partitions.keys()], [partitionKey('t', 1)]);
  assert.equal(next.session.partitions.get(partitionKey('t', 1))?.fetchOffset, 5n);
  assert.deepEqual(cache.begin(id, 1, [], [], 2), { kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH });
  assert.deepEqual(cache.begin(id === 1 ? 2 : 1, 1, [], [], 2), { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND });
  assert.equal(cache.begin(id, 2, [], [], 2).kind, 'incremental');
  assert.deepEqual(cache.begin(id, -1, [], [], 3), { kind: 'sessionless' });
  assert.equal(cache.size, 0);
});

test('the epoch after the largest int32 is 1', () => {
  const cache = new FetchSessionCache({ maxSessions: 1, evictionMs: 0 });
  const opened = cache.begin(0, 0, [part(0)], [], 0);
  assert.equal(opened.kind, 'full');
  if (opened.kind !== 'full') return;
  opened.session.nextEpoch = 2_147_483_647;
  const last = cache.begin(opened.session.id, 2_147_483_647, [], [], 1);
  assert.equal(last.kind === 'incremental' && last.session.nextEpoch, 1);
});

test('an incremental answer carries records, a new high watermark or log start, errors; an error is answered again once gone', () => {
  const cache = new FetchSessionCache({ maxSessions: 1, evictionMs: 0 });
  const opened = cache.begin(0, 0, [part(0)], [], 0);
  assert.ok(opened.kind === 'full');
  const p = opened.session.partitions.get(partitionKey('t', 0));
  assert.ok(p);
  const answer = { errorCode: 0, highWatermark: 10n, logStartOffset: 0n, bytes: 0 };
  assert.equal(cache.answered(p, answer), true, 'first answer: the high watermark is news');
  assert.equal(cache.answered(p, answer), false, 'nothing changed');
  assert.equal(cache.answered(p, { ...answer, bytes: 100 }), true, 'records');
  assert.equal(cache.answered(p, { ...answer, logStartOffset: 3n }), true, 'log start moved');
  assert.equal(cache.answered(p, { ...answer, logStartOffset: 3n, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }), true, 'an error');
  assert.equal(cache.answered(p, { ...answer, logStartOffset: 3n }), true, 'after an error the high watermark is answered again');
  assert.equal(cache.answered(p, { ...answer, logStartOffset: 3n, preferredReadReplica: 2 }), true, 'a preferred read replica');
});

test('a full cache evicts the least recently used idle session, else answers without one', () => {
  const cache = new FetchSessionCache({ maxSessions: 2, evictionMs: 1000 });
  const a = cache.begin(0, 0, [part(0)], [], 0);
  const b = cache.begin(0, 0, [part(0)], [], 500);
  assert.ok(a.kind === 'full' && b.kind === 'full');
  assert.deepEqual(cache.begin(0, 0, [part(0)], [], 900), { kind: 'sessionless' }, 'nobody idle long enough');
  const c = cache.begin(0, 0, [part(0)], [], 1000);
  assert.equal(c.kind, 'full', 'a, idle for 1000 ms, made room');
  assert.deepEqual(cache.begin(a.session.id, 1, [], [], 1001), { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND });
  assert.equal(cache.begin(b.session.id, 1, [], [], 1001).kind, 'incremental');
  assert.deepEqual(new FetchSessionCache({ maxSessions: 0, evictionMs: 0 }).begin(0, 0, [part(0)], [], 0), { kind: 'sessionless' }, '0 slots: no sessions');
});

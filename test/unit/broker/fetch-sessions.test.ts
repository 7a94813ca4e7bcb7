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

test('a partition of a topic id not known yet stays in the session, unresolved, and is read once the id resolves', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, evictionMs: 1000 });
  const known = new Map<string, string>([['id', 't']]);
  const ids = (unresolved: { topicId: string; partition: number }[], forgotten: { topicId: string; partition: number }[] = []) => ({
    unresolved: unresolved.map((u) => ({ ...u, fetchOffset: 0n, partitionMaxBytes: 1024, currentLeaderEpoch: 0 })),
    forgotten,
    nameOf: (topicId: string) => known.get(topicId),
  });
  const opened = cache.begin(0, 0, [part(0)], [], 0, ids([]));
  assert.equal(opened.kind, 'full');
  if (opened.kind !== 'full') return;
  const id = opened.session.id;
  // A follower learned of topic `new` (id 'id-new') before this broker: its partition is kept, by id.
  const added = cache.begin(id, 1, [], [], 1, ids([{ topicId: 'id-new', partition: 0 }]));
  assert.equal(added.kind, 'incremental');
  if (added.kind !== 'incremental') return;
  assert.deepEqual([...added.session.partitions.keys()], [partitionKey('t', 0)]);
  assert.deepEqual([...added.session.unresolved.values()].map((u) => [u.topicId, u.partition]), [['id-new', 0]]);
  assert.equal(cache.partitionsCached, 2);
  // Still unknown: it stays unresolved.
  const still = cache.begin(id, 2, [], [], 2, ids([]));
  assert.equal(still.kind === 'incremental' && still.session.unresolved.size, 1);
  // The broker learns the topic; the fetcher sends nothing new (its position did not move), yet the partition is read now.
  known.set('id-new', 'new');
  const resolved = cache.begin(id, 3, [], [], 3, ids([]));
  assert.equal(resolved.kind, 'incremental');
  if (resolved.kind !== 'incremental') return;
  assert.equal(resolved.session.unresolved.size, 0);
  assert.deepEqual([...resolved.session.partitions.keys()], [partitionKey('t', 0), partitionKey('new', 0)]);
  const p = resolved.session.partitions.get(partitionKey('new', 0));
  assert.equal(p?.topicId, 'id-new');
  // Never answered yet: the first answer carries its high watermark.
  assert.equal(p !== undefined && cache.answered(p, { errorCode: 0, highWatermark: 0n, logStartOffset: 0n, bytes: 0 }), true);
});

test('a forgotten partition leaves the session whether or not its topic id resolved', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, evictionMs: 1000 });
  const nameOf = (): string | undefined => undefined;
  const unresolved = [{ topicId: 'id-x', partition: 3, fetchOffset: 0n, partitionMaxBytes: 1024, currentLeaderEpoch: 0 }];
  const opened = cache.begin(0, 0, [part(0)], [], 0, { unresolved, forgotten: [], nameOf });
  assert.equal(opened.kind, 'full');
  if (opened.kind !== 'full') return;
  assert.equal(opened.session.unresolved.size, 1);
  const next = cache.begin(opened.session.id, 1, [], [], 1, { unresolved: [], forgotten: [{ topicId: 'id-x', partition: 3 }], nameOf });
  assert.equal(next.kind === 'incremental' && next.session.unresolved.size, 0);
  assert.equal(cache.partitionsCached, 1);
});

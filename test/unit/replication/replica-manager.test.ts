/**
 * The partition data path (src/replication/replica-manager.ts) on a memory
 * file system with virtual timers: client and coordinator appends, per
 * partition order, delayed produce (acks=all) and delayed fetch, leader epoch
 * checks, and the leader/follower transitions fed from assignments.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { Compression, readBatchHeader } from '../../../src/protocol/record-batch/header.js';
import { ReplicaManager, type AppendRequest } from '../../../src/replication/replica-manager.js';
import type { TopicRules } from '../../../src/replication/topic-rules.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { VirtualTimers } from '../../helpers/virtual-timers.js';

const SELF = 1;
const RULES: TopicRules = {
  maxMessageBytes: 1_048_588, segmentBytes: 1 << 30, messageTimestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: 1, compacted: false,
};

function env(rules: Record<string, Partial<TopicRules>> = {}) {
  const fs = new MemoryFileSystem();
  const timers = new VirtualTimers();
  const { manager } = LogManager.open({ fs, clock: timers.clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG } });
  const rm = new ReplicaManager({
    logManager: manager,
    localNodeId: SELF,
    logConfigFor: () => ({ ...DEFAULT_LOG_CONFIG }),
    topicRules: (topic) => ({ ...RULES, ...rules[topic] }),
    topicExists: (topic) => topic !== 'nope',
    clock: timers.clock,
    timers,
    logger: pino({ level: 'silent' }),
  });
  const assign = (topic: string, leader: number, isr: number[], leaderEpoch = 0, replicas = [SELF, 2, 3].slice(0, Math.max(isr.length, 1))) =>
    rm.applyAssignment({ topic, topicId: `${topic}-id`, partition: 0, leader, leaderEpoch, partitionEpoch: 0, replicas: [...new Set([...replicas, ...isr])], isr });
  return { rm, timers, assign };
}

const batch = (values: string[], opts: { key?: string | null; compression?: Compression; producerId?: bigint; sequence?: number } = {}): Buffer =>
  buildRecordBatchSync({
    records: values.map((value) => ({ key: opts.key === undefined ? null : opts.key, value })),
    compression: opts.compression ?? Compression.None,
    ...(opts.producerId === undefined ? {} : { producerId: opts.producerId, producerEpoch: 0, baseSequence: opts.sequence ?? 0 }),
  });

const produce = (topic: string, records: unknown, extra: Partial<AppendRequest> = {}): AppendRequest => ({
  origin: 'client', acks: 1, timeoutMs: 1000, entries: [{ topic, partition: 0, records }], ...extra,
});

test('client appends get offsets in order; failures carry the Kafka code and write nothing', async () => {
  const { rm, assign } = env();
  assign('t', SELF, [SELF]);
  const [a] = await rm.appendRecords(produce('t', batch(['a', 'b'])));
  const [b] = await rm.appendRecords(produce('t', batch(['c'])));
  assert.deepEqual([a?.errorCode, a?.baseOffset, a?.appendedRecords], [ErrorCode.NONE, 0n, 2]);
  assert.deepEqual([b?.errorCode, b?.baseOffset, b?.requiredOffset], [ErrorCode.NONE, 2n, 3n]);
  const corrupt = batch(['x']);
  corrupt.writeUInt8((corrupt.at(-1) ?? 0) ^ 0xff, corrupt.length - 1);
  const cases: [AppendRequest, number][] = [
    [produce('t', corrupt), ErrorCode.CORRUPT_MESSAGE],
    [produce('t', Buffer.alloc(0)), ErrorCode.CORRUPT_MESSAGE],
    [produce('t', batch(['x']), { acks: 2 }), ErrorCode.INVALID_REQUIRED_ACKS],
    [produce('nope', batch(['x'])), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    [produce('unhosted', batch(['x'])), ErrorCode.NOT_LEADER_OR_FOLLOWER],
  ];
  for (const [req, code] of cases) assert.equal((await rm.appendRecords(req))[0]?.errorCode, code);
  assert.equal(rm.get('t', 0)?.logEndOffset, 3n);
  assign('t', 2, [2, SELF], 1);
  assert.equal((await rm.appendRecords(produce('t', batch(['x']))))[0]?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
});

test('the leader epoch is stamped into every appended batch, client or coordinator', async () => {
  const { rm, assign } = env();
  assign('t', SELF, [SELF], 4);
  const client = batch(['a']);
  const coordinator = batch(['b']);
  await rm.appendRecords(produce('t', client));
  await rm.appendRecords({ origin: 'coordinator', acks: -1, timeoutMs: 1000, entries: [{ topic: 't', partition: 0, records: coordinator }] });
  assert.equal(readBatchHeader(client).partitionLeaderEpoch, 4);
  assert.equal(readBatchHeader(coordinator).partitionLeaderEpoch, 4);
  assert.deepEqual(rm.get('t', 0)?.endOffsetForEpoch(4), { epoch: 4, endOffset: 2n });
});

test('an append that must await (compacted key check) keeps later appends to the partition behind it', async () => {
  const { rm, assign } = env({ c: { compacted: true } });
  assign('c', SELF, [SELF]);
  const first = rm.appendRecords(produce('c', batch(['k1'], { key: 'k', compression: Compression.Gzip })));
  const keyless = rm.appendRecords(produce('c', batch(['no key'])));
  const second = rm.appendRecords(produce('c', batch(['k2'], { key: 'k' })));
  const [r1, r2, r3] = [(await first)[0], (await keyless)[0], (await second)[0]];
  assert.deepEqual([r1?.baseOffset, r2?.errorCode, r3?.baseOffset], [0n, ErrorCode.INVALID_RECORD, 1n]);
});

test('idempotent retries answer the original offsets and write nothing', async () => {
  const { rm, assign } = env();
  assign('t', SELF, [SELF]);
  const original = batch(['a', 'b'], { producerId: 7n, sequence: 0 });
  const retry = Buffer.from(original);
  const [first] = await rm.appendRecords(produce('t', original));
  const [again] = await rm.appendRecords(produce('t', retry));
  assert.deepEqual([again?.errorCode, again?.baseOffset, again?.appendedBytes], [ErrorCode.NONE, first?.baseOffset, 0]);
  const [gap] = await rm.appendRecords(produce('t', batch(['c'], { producerId: 7n, sequence: 5 })));
  assert.equal(gap?.errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  assert.equal(rm.get('t', 0)?.logEndOffset, 2n);
});

test('acks=all waits for the in-sync followers, times out, or fails when leadership moves', async () => {
  const { rm, timers, assign } = env();
  const p = assign('t', SELF, [SELF, 2], 0, [SELF, 2]);
  assert.ok(p);
  let settled: number | undefined;
  const waiting = rm.appendRecords(produce('t', batch(['a', 'b']), { acks: -1, timeoutMs: 1000 })).then(([r]) => (settled = r?.errorCode));
  await timers.advance(500);
  assert.equal(settled, undefined, 'not committed while follower 2 lacks it');
  assert.equal(rm.delayedOperations.produces, 1);
  p.recordFollowerLogEndOffset(2, 2n);
  await waiting;
  assert.equal(settled, ErrorCode.NONE);
  assert.equal(p.highWatermark, 2n);

  const timedOut = rm.appendRecords(produce('t', batch(['c']), { acks: -1, timeoutMs: 1000 }));
  await timers.advance(1000);
  assert.equal((await timedOut)[0]?.errorCode, ErrorCode.REQUEST_TIMED_OUT);
  assert.equal(p.logEndOffset, 3n, 'a timed-out acks=all append stays in the log (as in Kafka)');

  const moved = rm.appendRecords(produce('t', batch(['d']), { acks: -1, timeoutMs: 1000 }));
  await timers.advance(0);
  assign('t', 2, [2, SELF], 1, [SELF, 2]);
  assert.equal((await moved)[0]?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.deepEqual(rm.delayedOperations, { fetches: 0, produces: 0 });
});

test('acks=all refuses with NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas; acks=1 still appends', async () => {
  const { rm, assign } = env({ t: { minInsyncReplicas: 2 } });
  assign('t', SELF, [SELF], 0, [SELF, 2]);
  assert.equal((await rm.appendRecords(produce('t', batch(['a']), { acks: -1 })))[0]?.errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
  assert.equal((await rm.appendRecords(produce('t', batch(['a']), { acks: 1 })))[0]?.errorCode, ErrorCode.NONE);
});

test('the high watermark is the smallest log end over the ISR and never goes back', async () => {
  const { rm, assign } = env();
  const p = assign('t', SELF, [SELF, 2, 3], 0, [SELF, 2, 3]);
  assert.ok(p);
  await rm.appendRecords(produce('t', batch(['a', 'b', 'c'])));
  p.recordFollowerLogEndOffset(2, 3n);
  assert.equal(p.highWatermark, 0n, 'follower 3 has not reported');
  p.recordFollowerLogEndOffset(3, 2n);
  assert.equal(p.highWatermark, 2n);
  p.recordFollowerLogEndOffset(3, 1n);
  assert.equal(p.highWatermark, 2n, 'never back');
  // Shrinking the ISR to the leader alone (a new assignment) commits everything it has.
  assign('t', SELF, [SELF], 0, [SELF, 2, 3]);
  assert.equal(p.highWatermark, 3n);
});

test('a long-poll fetch is woken by an append, and leader epochs are checked (KIP-320)', async () => {
  const { rm, timers, assign } = env();
  assign('t', SELF, [SELF], 3);
  const fetch = (currentLeaderEpoch: number, maxWaitMs = 5000, fetchOffset = 0n) =>
    rm.fetchRecords({
      topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch }] }],
      readCommitted: false, maxBytes: 1 << 20, minBytes: 1, maxWaitMs,
    });
  const waiting = fetch(3);
  await timers.advance(100);
  assert.equal(rm.delayedOperations.fetches, 1);
  await rm.appendRecords(produce('t', batch(['a'])));
  const woken = (await waiting).topics[0]?.partitions[0];
  assert.equal(woken?.errorCode, ErrorCode.NONE);
  assert.ok((woken?.bytes ?? 0) > 0);
  assert.equal((await fetch(2)).topics[0]?.partitions[0]?.errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  assert.equal((await fetch(4)).topics[0]?.partitions[0]?.errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
  // With nothing new the wait ends at maxWaitMs with an empty answer.
  const empty = fetch(-1, 200, 1n);
  await timers.advance(200);
  assert.equal((await empty).topics[0]?.partitions[0]?.bytes, 0);
});

test('leadership listeners hear makeLeader and makeFollower transitions, and removal', () => {
  const { rm, assign } = env();
  const heard: string[] = [];
  rm.onLeadershipChange((p, isLeader) => heard.push(`${p.topic}:${isLeader ? 'leader' : 'follower'}:${p.leaderEpoch}`));
  assign('t', SELF, [SELF], 0);
  assign('t', SELF, [SELF], 0); // no change
  assign('t', 2, [2, SELF], 1);
  assign('t', 3, [3, SELF], 2); // follower to follower: nothing to tell
  assign('t', SELF, [SELF], 3);
  rm.removePartition('t', 0, false);
  assert.deepEqual(heard, ['t:leader:0', 't:follower:1', 't:leader:3', 't:follower:3']);
  assert.throws(() => assign('u', SELF, [SELF], 5) && assign('u', SELF, [SELF], 4), /leader epochs never go back/);
});

test('a follower appends the leader\'s batches as they are, at their offsets; its high watermark follows the leader\'s', async () => {
  const leader = env();
  const follower = env();
  leader.assign('t', SELF, [SELF], 2);
  await leader.rm.appendRecords(produce('t', batch(['a', 'b'])));
  await leader.rm.appendRecords(produce('t', batch(['c'], { producerId: 9n, sequence: 0 })));
  const fetched = await leader.rm.fetchRecords({
    topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: 2 }] }],
    readCommitted: false, maxBytes: 1 << 20, minBytes: 0, maxWaitMs: 0,
  });
  const bytes = Buffer.concat(fetched.topics[0]?.partitions[0]?.chunks ?? []);
  // The follower replica: node SELF follows node 2 here.
  const p = follower.assign('t', 2, [2, SELF], 2, [2, SELF]);
  assert.ok(p);
  const replicate = (records: unknown) => follower.rm.appendRecords({ origin: 'replica', acks: 1, timeoutMs: 0, entries: [{ topic: 't', partition: 0, records }] });
  const [r] = await replicate(bytes);
  assert.deepEqual([r?.errorCode, r?.baseOffset, r?.requiredOffset, r?.appendedRecords], [ErrorCode.NONE, 0n, 3n, 3]);
  assert.deepEqual(p.endOffsetForEpoch(2), { epoch: 2, endOffset: 3n }, 'the leader\'s epochs came along');
  assert.equal(p.log.producerState.check({ producerId: 9n, epoch: 0, baseSequence: 0, lastOffsetDelta: 0 }).kind, 'duplicate', 'producer state follows');
  assert.equal(p.highWatermark, 0n, 'a follower commits only what the leader says');
  p.updateFollowerHighWatermark(2n);
  assert.equal(p.highWatermark, 2n);
  p.updateFollowerHighWatermark(10n);
  assert.equal(p.highWatermark, 3n, 'never past its own log end');
  // Again from offset 0: not at the log end, so the fetcher must truncate or move on first.
  assert.equal((await replicate(bytes))[0]?.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
  const corrupt = Buffer.from(bytes);
  corrupt.writeUInt8((corrupt.at(-1) ?? 0) ^ 0xff, corrupt.length - 1);
  assert.equal((await replicate(corrupt))[0]?.errorCode, ErrorCode.CORRUPT_MESSAGE);
  assert.equal((await leader.rm.appendRecords({ origin: 'replica', acks: 1, timeoutMs: 0, entries: [{ topic: 't', partition: 0, records: bytes }] }))[0]?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.equal(p.logEndOffset, 3n);

  // A fetch answer cut by its byte limit ends inside a batch: the whole batches go in, the rest comes with the next fetch.
  const other = env();
  const q = other.assign('t', 2, [2, SELF], 2, [2, SELF]);
  assert.ok(q);
  const replicateToOther = (records: unknown) => other.rm.appendRecords({ origin: 'replica', acks: 1, timeoutMs: 0, entries: [{ topic: 't', partition: 0, records }] });
  const firstBatchBytes = readBatchHeader(bytes, 0).batchLength + 12;
  assert.equal((await replicateToOther(bytes.subarray(0, firstBatchBytes - 1)))[0]?.errorCode, ErrorCode.CORRUPT_MESSAGE, 'a partial first batch is refused');
  const [cut] = await replicateToOther(bytes.subarray(0, bytes.length - 3));
  assert.deepEqual([cut?.errorCode, cut?.baseOffset, cut?.requiredOffset], [ErrorCode.NONE, 0n, 2n], 'the first batch only');
  assert.equal(q.logEndOffset, 2n);
  const [rest] = await replicateToOther(bytes.subarray(firstBatchBytes));
  assert.deepEqual([rest?.errorCode, q.logEndOffset], [ErrorCode.NONE, 3n]);
});

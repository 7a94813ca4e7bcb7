/**
 * Exact-mode mirror appends (src/replication/mirror-append.ts) through the
 * ReplicaManager, on a memory file system: a mirror topic (mirror.state
 * active) refuses client appends and takes copied batches only at its log
 * end, kept byte for byte but for the leader epoch, with the producer state
 * and transactions following them; an empty partition restarts at the first
 * copied offset; a gap, an overlap or a non-mirror topic are refused and
 * write nothing; promoting the topic turns the rules around.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildControlBatch, buildRecordBatchSync, ControlRecordType } from '../../../src/protocol/record-batch/builder.js';
import { Offsets, readBatchHeader } from '../../../src/protocol/record-batch/header.js';
import { ReplicaManager, type AppendRequest } from '../../../src/replication/replica-manager.js';
import type { TopicRules } from '../../../src/replication/topic-rules.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { VirtualTimers } from '../../helpers/virtual-timers.js';

const SELF = 1;
const SOURCE_EPOCH = 9;
const TARGET_EPOCH = 2;
const RULES: TopicRules = {
  maxMessageBytes: 1_048_588, segmentBytes: 1 << 30, messageTimestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: 1, compacted: false,
};

function env() {
  const fs = new MemoryFileSystem();
  const timers = new VirtualTimers();
  const states = new Map<string, TopicRules['mirrorState']>();
  const promotedAt = new Map<string, ReadonlyMap<number, bigint>>();
  const { manager } = LogManager.open({ fs, clock: timers.clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG } });
  const rm = new ReplicaManager({
    logManager: manager,
    localNodeId: SELF,
    logConfigFor: () => ({ ...DEFAULT_LOG_CONFIG }),
    topicRules: (topic) => {
      const at = promotedAt.get(topic);
      return { ...RULES, mirrorState: states.get(topic) ?? 'none', ...(at === undefined ? {} : { mirrorPromotedOffsets: at }) };
    },
    topicExists: () => true,
    clock: timers.clock,
    timers,
    logger: pino({ level: 'silent' }),
  });
  const host = (topic: string, state: TopicRules['mirrorState'], leader = SELF) => {
    states.set(topic, state);
    return rm.applyAssignment({ topic, topicId: `${topic}-id`, partition: 0, leader, leaderEpoch: TARGET_EPOCH, partitionEpoch: 0, replicas: [SELF, 2], isr: leader === SELF ? [SELF] : [leader, SELF] });
  };
  return { rm, states, promotedAt, host };
}

/** A batch as a source leader stored it: its offsets, its leader epoch. */
function sourceBatch(baseOffset: bigint, values: string[], producer?: { id: bigint; sequence: number; transactional?: boolean; epoch?: number }): Buffer {
  return buildRecordBatchSync({
    records: values.map((value) => ({ key: null, value })),
    baseOffset,
    partitionLeaderEpoch: SOURCE_EPOCH,
    timestampMs: 1_700_000_000_000n,
    ...(producer === undefined ? {} : { producerId: producer.id, producerEpoch: producer.epoch ?? 0, baseSequence: producer.sequence, transactional: producer.transactional ?? false }),
  });
}

const mirror = (topic: string, records: Buffer | null): AppendRequest => ({ origin: 'mirror', acks: 1, timeoutMs: 1000, entries: [{ topic, partition: 0, records }] });
const client = (topic: string, records: Buffer): AppendRequest => ({ origin: 'client', acks: 1, timeoutMs: 1000, entries: [{ topic, partition: 0, records }] });

test('a mirror topic takes copied batches at their offsets, byte for byte but the leader epoch, and refuses clients', async () => {
  const { rm, host } = env();
  const p = host('m', 'active');
  assert.ok(p);
  const copied = [sourceBatch(0n, ['a', 'b'], { id: 7n, sequence: 0 }), sourceBatch(2n, ['c'], { id: 7n, sequence: 2 })];
  const sent = Buffer.concat(copied.map((b) => Buffer.from(b)));
  const [r] = await rm.appendRecords(mirror('m', sent));
  assert.deepEqual([r?.errorCode, r?.baseOffset, r?.requiredOffset, r?.appendedRecords], [ErrorCode.NONE, 0n, 3n, 3]);
  assert.equal(p.logEndOffset, 3n);
  assert.equal(p.highWatermark, 3n);
  const stored = rm.read(p, 0n, 1 << 20, 'logEnd', true).chunks;
  const bytes = Buffer.concat(stored);
  assert.equal(bytes.length, sent.length);
  assert.equal(readBatchHeader(bytes).partitionLeaderEpoch, TARGET_EPOCH, 'the epoch is this cluster\'s');
  const masked = (b: Buffer): Buffer => Buffer.concat([b.subarray(0, Offsets.partitionLeaderEpoch), b.subarray(Offsets.partitionLeaderEpoch + 4)]);
  assert.ok(masked(bytes.subarray(0, copied[0]?.length)).equals(masked(copied[0] as Buffer)), 'every other byte as the source wrote it');

  const [refused] = await rm.appendRecords(client('m', buildRecordBatchSync({ records: [{ key: null, value: 'x' }] })));
  assert.equal(refused?.errorCode, ErrorCode.POLICY_VIOLATION);
  assert.match(refused?.errorMessage ?? '', /read-only mirror topic/);
  assert.equal(p.logEndOffset, 3n, 'the refused client batch wrote nothing');
});

test('copied batches must start at the log end and be contiguous; nothing is written otherwise', async () => {
  const { rm, host } = env();
  const p = host('m', 'active');
  assert.ok(p);
  await rm.appendRecords(mirror('m', sourceBatch(0n, ['a', 'b'])));
  const cases: [Buffer, number, RegExp][] = [
    [sourceBatch(5n, ['gap']), ErrorCode.OFFSET_OUT_OF_RANGE, /start at 5, m-0 ends at 2/],
    [sourceBatch(1n, ['overlap', 'x']), ErrorCode.OFFSET_OUT_OF_RANGE, /start at 1/],
    [Buffer.concat([sourceBatch(2n, ['c']), sourceBatch(4n, ['e'])]), ErrorCode.INVALID_REQUEST, /offset gap \(3 expected, 4 found\)/],
  ];
  for (const [records, code, message] of cases) {
    const [r] = await rm.appendRecords(mirror('m', records));
    assert.equal(r?.errorCode, code);
    assert.match(r?.errorMessage ?? '', message);
    assert.equal(p.logEndOffset, 2n);
  }
  const corrupt = sourceBatch(2n, ['c']);
  corrupt.writeUInt8((corrupt.at(-1) ?? 0) ^ 0xff, corrupt.length - 1);
  assert.equal((await rm.appendRecords(mirror('m', corrupt)))[0]?.errorCode, ErrorCode.CORRUPT_MESSAGE);
  assert.equal((await rm.appendRecords(mirror('m', sourceBatch(2n, ['c']))))[0]?.errorCode, ErrorCode.NONE);
  assert.equal(p.logEndOffset, 3n);
});

test('only an active mirror topic led here takes copied batches', async () => {
  const { rm, host } = env();
  host('plain', 'none');
  host('done', 'promoted');
  host('elsewhere', 'active', 2);
  assert.equal((await rm.appendRecords(mirror('plain', sourceBatch(0n, ['a']))))[0]?.errorCode, ErrorCode.POLICY_VIOLATION);
  assert.equal((await rm.appendRecords(mirror('done', sourceBatch(0n, ['a']))))[0]?.errorCode, ErrorCode.POLICY_VIOLATION);
  assert.equal((await rm.appendRecords(mirror('elsewhere', sourceBatch(0n, ['a']))))[0]?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.equal(rm.get('plain', 0)?.logEndOffset, 0n);
});

test('an empty mirror partition restarts at the first copied offset (a source whose log no longer starts at 0)', async () => {
  const { rm, host } = env();
  const p = host('m', 'active');
  assert.ok(p);
  const [r] = await rm.appendRecords(mirror('m', sourceBatch(100n, ['a', 'b'])));
  assert.deepEqual([r?.errorCode, r?.baseOffset], [ErrorCode.NONE, 100n]);
  assert.deepEqual([p.logStartOffset, p.logEndOffset, p.highWatermark], [100n, 102n, 102n]);
  // Not empty any more: a later start is a gap.
  assert.equal((await rm.appendRecords(mirror('m', sourceBatch(200n, ['c']))))[0]?.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
});

test('the producer state and transactions follow copied batches; promoting lets clients continue after the mirrored end', async () => {
  const { rm, host, states } = env();
  const p = host('m', 'active');
  assert.ok(p);
  await rm.appendRecords(mirror('m', sourceBatch(0n, ['a', 'b'], { id: 7n, sequence: 0 })));
  await rm.appendRecords(mirror('m', sourceBatch(2n, ['t'], { id: 8n, sequence: 0, transactional: true })));
  assert.equal(p.lastStableOffset, 2n, 'the copied open transaction holds the last stable offset');
  await rm.appendRecords(mirror('m', buildControlBatch({ type: ControlRecordType.Commit, producerId: 8n, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 3n })));
  assert.equal(p.lastStableOffset, 4n, 'the copied marker closes it');

  states.set('m', 'promoted');
  assert.equal((await rm.appendRecords(mirror('m', sourceBatch(4n, ['late']))))[0]?.errorCode, ErrorCode.POLICY_VIOLATION, 'a promoted topic takes no more copies');
  // Producer 7's sequence continues from the copied batches: its next batch is in order, a jump is not.
  const next = buildRecordBatchSync({ records: [{ key: null, value: 'c' }], producerId: 7n, producerEpoch: 0, baseSequence: 2 });
  const [ok] = await rm.appendRecords(client('m', next));
  assert.deepEqual([ok?.errorCode, ok?.baseOffset], [ErrorCode.NONE, 4n]);
  const jump = buildRecordBatchSync({ records: [{ key: null, value: 'd' }], producerId: 7n, producerEpoch: 0, baseSequence: 9 });
  assert.equal((await rm.appendRecords(client('m', jump)))[0]?.errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
});

test('after promote, this cluster\'s producers with a source producer\'s id are new producers: not fenced, not deduplicated', async () => {
  const { rm, host, states, promotedAt } = env();
  const p = host('m', 'active');
  assert.ok(p);
  await rm.appendRecords(mirror('m', sourceBatch(0n, ['a', 'b'], { id: 7n, sequence: 0 })));
  await rm.appendRecords(mirror('m', sourceBatch(2n, ['c'], { id: 5n, sequence: 0, epoch: 3 })));
  states.set('m', 'promoted');
  promotedAt.set('m', new Map([[0, 3n]]));
  // Producer 7 here has nothing to do with the source's producer 7: same epoch and sequences, other records.
  const mine = buildRecordBatchSync({ records: [{ key: null, value: 'x' }, { key: null, value: 'y' }], producerId: 7n, producerEpoch: 0, baseSequence: 0 });
  const [first] = await rm.appendRecords(client('m', Buffer.from(mine)));
  assert.deepEqual([first?.errorCode, first?.baseOffset, first?.appendedRecords], [ErrorCode.NONE, 3n, 2], 'written, not taken for a retry of the copied batch');
  const [retry] = await rm.appendRecords(client('m', Buffer.from(mine)));
  assert.deepEqual([retry?.errorCode, retry?.baseOffset, retry?.appendedBytes], [ErrorCode.NONE, 3n, 0], 'its own retry is still deduplicated');
  // Producer 5 at epoch 0 is not fenced by the source's epoch 3.
  const [five] = await rm.appendRecords(client('m', buildRecordBatchSync({ records: [{ key: null, value: 'z' }], producerId: 5n, producerEpoch: 0, baseSequence: 0 })));
  assert.deepEqual([five?.errorCode, five?.baseOffset], [ErrorCode.NONE, 5n]);
  assert.equal(p.logEndOffset, 6n);
});

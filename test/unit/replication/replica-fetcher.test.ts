/**
 * Follower fetching between ReplicaManagers on memory file systems and
 * virtual time (src/replication/replica-fetcher.ts): the follower copies the
 * leader's batches byte for byte at their offsets, the high watermark moves
 * with the follower's fetch position, acks=all waits for it, and a follower
 * whose log diverged (a leader change that lost its uncommitted tail)
 * truncates exactly to where the new leader's log agrees, then catches up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { Compression } from '../../../src/protocol/record-batch/header.js';
import { ReplicaManager, type PartitionAppendResult, type ReplicaManagerDeps } from '../../../src/replication/replica-manager.js';
import { ReplicaFetcher, type ReplicaFetchRequest, type ReplicaFetchResponse } from '../../../src/replication/replica-fetcher.js';
import type { TopicRules } from '../../../src/replication/topic-rules.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { ManualClock } from '../../../src/util/clock.js';
import { VirtualTimers } from '../../helpers/virtual-timers.js';

const RULES: TopicRules = {
  maxMessageBytes: 1_048_588, segmentBytes: 1 << 30, messageTimestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: 1, compacted: false,
};
const TOPIC = 't';
const REPLICAS = [1, 2, 3];

function brokers(minInsyncReplicas = 1, alterPartition?: ReplicaManagerDeps['alterPartition']) {
  const clock = new ManualClock();
  const timers = new VirtualTimers(clock);
  const nodes = new Map<number, ReplicaManager>();
  for (const id of REPLICAS) {
    const { manager } = LogManager.open({ fs: new MemoryFileSystem(), clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG } });
    nodes.set(id, new ReplicaManager({
      logManager: manager, localNodeId: id, logConfigFor: () => ({ ...DEFAULT_LOG_CONFIG }), topicRules: () => ({ ...RULES, minInsyncReplicas }),
      topicExists: () => true, clock, timers, logger: pino({ level: 'silent' }), isReplicaEligible: () => true,
      ...(alterPartition === undefined ? {} : { alterPartition }),
    }));
  }
  const rm = (id: number) => nodes.get(id) as ReplicaManager;
  const assign = (leader: number, leaderEpoch: number, isr = REPLICAS, partitionEpoch = leaderEpoch) => {
    for (const n of nodes.values()) n.applyAssignment({ topic: TOPIC, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: 0, leader, leaderEpoch, partitionEpoch, replicas: REPLICAS, isr });
  };
  const fetchers = new Map<number, ReplicaFetcher>();
  /** One fetch round of `follower` from its leader: request, the leader's answer, applied. */
  const fetchOnce = async (follower: number): Promise<ReplicaFetchResponse | null> => {
    const p = rm(follower).get(TOPIC, 0);
    assert.ok(p && !p.isLeader && p.leaderId >= 0);
    let f = fetchers.get(follower);
    if (f === undefined || f.leaderId !== p.leaderId) fetchers.set(follower, (f = new ReplicaFetcher(p.leaderId, rm(follower))));
    if (!f.has(p)) f.add(p);
    const req = f.buildRequest(clock.nowMs());
    if (req === null) return null;
    const res = await serve(rm(p.leaderId), req);
    f.processResponse(req, res, clock.nowMs());
    return res;
  };
  return { clock, timers, rm, assign, fetchOnce };
}

/** The leader side of a follower fetch, as the broker's Fetch handler runs it (no wait). */
async function serve(leader: ReplicaManager, req: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
  const r = await leader.fetchRecords({
    replicaId: req.replicaId,
    topics: [{ topic: TOPIC, partitions: req.partitions.map((p) => ({ partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch })) }],
    readCommitted: false, maxBytes: req.maxBytes, minBytes: 0, maxWaitMs: 0,
  });
  return {
    errorCode: ErrorCode.NONE,
    partitions: r.topics.flatMap((t) => t.partitions.map((p) => ({
      topic: t.topic, partition: p.partition, errorCode: p.errorCode, highWatermark: p.highWatermark, logStartOffset: p.logStartOffset,
      records: p.bytes === 0 ? null : Buffer.concat(p.chunks), divergingEpoch: p.divergingEpoch ?? null,
    }))),
  };
}

const batch = (values: string[]): Buffer => buildRecordBatchSync({ records: values.map((value) => ({ key: null, value })), compression: Compression.None });

async function produce(rm: ReplicaManager, values: string[], acks = 1): Promise<PartitionAppendResult> {
  const [r] = await rm.appendRecords({ origin: 'client', acks, timeoutMs: 5_000, entries: [{ topic: TOPIC, partition: 0, records: batch(values) }] });
  return r as PartitionAppendResult;
}

function logBytes(rm: ReplicaManager): Buffer {
  const p = rm.get(TOPIC, 0);
  assert.ok(p);
  const r = p.log.read(p.logStartOffset, 1 << 20, { maxOffsetExclusive: p.logEndOffset, minOneBatch: true });
  assert.equal(r.kind, 'records');
  return r.kind === 'records' ? Buffer.concat(r.chunks) : Buffer.alloc(0);
}

test('followers copy the leader\'s batches byte for byte; the high watermark follows the slowest in-sync replica', async () => {
  const { rm, assign, fetchOnce } = brokers();
  assign(1, 0);
  await produce(rm(1), ['a', 'b']);
  await produce(rm(1), ['c']);
  const leader = rm(1).get(TOPIC, 0);
  assert.equal(leader?.highWatermark, 0n, 'nothing is committed before the followers have it');
  await fetchOnce(2);
  assert.equal(rm(2).get(TOPIC, 0)?.logEndOffset, 3n);
  assert.equal(leader?.highWatermark, 0n, 'follower 2 reported offset 0 in that fetch; 3 has not fetched');
  await fetchOnce(2);
  await fetchOnce(3);
  assert.equal(leader?.highWatermark, 0n, 'follower 3 fetched once: it reported 0');
  await fetchOnce(3);
  assert.equal(leader?.highWatermark, 3n);
  assert.deepEqual(logBytes(rm(2)), logBytes(rm(1)));
  assert.deepEqual(logBytes(rm(3)), logBytes(rm(1)));
  await fetchOnce(2);
  assert.equal(rm(2).get(TOPIC, 0)?.highWatermark, 3n, 'a follower learns the leader\'s high watermark from its next fetch');
});

/** A leader whose ISR changes go through `decide` (the controller's answer), recording what was proposed. */
function withController(env: ReturnType<typeof brokers>, decide: (newIsr: readonly number[]) => boolean = () => true) {
  const proposals: { newIsr: readonly number[]; kind: string }[] = [];
  const p = env.rm(1).get(TOPIC, 0);
  assert.ok(p);
  p.onIsrChangeProposed = (q, proposal) => {
    proposals.push({ newIsr: proposal.newIsr, kind: proposal.kind });
    q.completeIsrChange(proposal, decide(proposal.newIsr)
      ? { kind: 'committed', leaderEpoch: proposal.leaderEpoch, partitionEpoch: proposal.partitionEpoch + 1, isr: proposal.newIsr }
      : { kind: 'failed', errorCode: ErrorCode.INVALID_UPDATE_VERSION }, env.clock.nowMs());
  };
  return { p, proposals };
}

test('a follower that stops fetching leaves the ISR after replica.lag.time.max.ms, and rejoins once it reached the high watermark', async () => {
  const env = brokers();
  const { rm, assign, fetchOnce, clock } = env;
  assign(1, 0);
  const { p, proposals } = withController(env);
  await produce(rm(1), ['a']);
  for (const f of [2, 3, 2, 3]) await fetchOnce(f);
  assert.equal(p.highWatermark, 1n);
  // Follower 3 goes silent; 2 keeps fetching.
  for (let t = 0; t < 40; t++) {
    clock.advance(1_000);
    await produce(rm(1), [`x${t}`]);
    await fetchOnce(2);
    await fetchOnce(2);
    rm(1).shrinkIsrs();
  }
  assert.deepEqual(proposals.map((x) => x.kind), ['shrink']);
  assert.deepEqual([...p.isr].sort(), [1, 2], 'only the silent follower left');
  assert.equal(p.highWatermark, p.logEndOffset, 'the high watermark no longer waits for the removed follower');
  // Follower 3 comes back: the first fetches catch it up, the one at the high watermark adds it.
  while ((rm(3).get(TOPIC, 0)?.logEndOffset ?? 0n) < p.logEndOffset) await fetchOnce(3);
  await fetchOnce(3);
  assert.deepEqual(proposals.map((x) => x.kind), ['shrink', 'expand']);
  assert.deepEqual([...p.isr].sort(), [1, 2, 3]);
});

test('min.insync.replicas: below it acks=all is refused, a waiting append answers NOT_ENOUGH_REPLICAS_AFTER_APPEND, and nothing commits (KIP-966)', async () => {
  const env = brokers(2);
  const { rm, assign, fetchOnce, clock } = env;
  assign(1, 0);
  const { p } = withController(env);
  await produce(rm(1), ['a']);
  for (const f of [2, 3, 2, 3]) await fetchOnce(f);
  const hw = p.highWatermark;
  const waiting = produce(rm(1), ['b'], -1);
  // Both followers go silent: the ISR shrinks to the leader alone.
  clock.advance(31_000);
  rm(1).shrinkIsrs();
  assert.deepEqual(p.isr, [1]);
  assert.equal((await waiting).errorCode, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
  assert.equal((await produce(rm(1), ['c'], -1)).errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
  assert.equal((await produce(rm(1), ['d'], 1)).errorCode, ErrorCode.NONE, 'acks=1 is written');
  assert.equal(p.highWatermark, hw, 'but not committed while the ISR is below min.insync.replicas');
  const read = await rm(1).fetchRecords({ topics: [{ topic: TOPIC, partitions: [{ partition: 0, fetchOffset: hw, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 }] }], readCommitted: false, maxBytes: 1 << 20, minBytes: 0, maxWaitMs: 0 });
  assert.equal(read.topics[0]?.partitions[0]?.bytes, 0, 'a consumer sees nothing above the high watermark');
});

test('divergence: a follower with an uncommitted tail of an old epoch truncates to where the new leader\'s log agrees, then copies it', async () => {
  const env = brokers();
  const { rm, assign, fetchOnce } = env;
  assign(1, 0);
  await produce(rm(1), ['a', 'b']);
  for (const f of [2, 3, 2, 3]) await fetchOnce(f);
  // Broker 1 appends two more batches nobody fetched, then loses leadership to 2 (epoch 1).
  await produce(rm(1), ['lost1']);
  await produce(rm(1), ['lost2']);
  assert.equal(rm(1).get(TOPIC, 0)?.logEndOffset, 4n);
  assign(2, 1, [2, 3]);
  await produce(rm(2), ['new1', 'new2', 'new3']);
  // The old leader fetches with lastFetchedEpoch 0 at offset 4: the new leader says epoch 0 ends at 2.
  const res = await fetchOnce(1);
  assert.deepEqual(res?.partitions[0]?.divergingEpoch, { epoch: 0, endOffset: 2n });
  assert.equal(rm(1).get(TOPIC, 0)?.logEndOffset, 2n, 'truncated to the end of epoch 0 on the new leader');
  while ((rm(1).get(TOPIC, 0)?.logEndOffset ?? 0n) < (rm(2).get(TOPIC, 0)?.logEndOffset ?? 0n)) await fetchOnce(1);
  assert.deepEqual(logBytes(rm(1)), logBytes(rm(2)), 'then the logs are identical');
  assert.deepEqual(rm(1).get(TOPIC, 0)?.leaderEpochs.list(), rm(2).get(TOPIC, 0)?.leaderEpochs.list(), 'and so are the epoch caches');
});

test('a stale or future CurrentLeaderEpoch is refused (KIP-320), and a fetch from a non-replica is NOT_LEADER_OR_FOLLOWER', async () => {
  const { rm, assign } = brokers();
  assign(1, 3);
  const ask = async (replicaId: number, currentLeaderEpoch: number) => {
    const r = await rm(1).fetchRecords({ replicaId, topics: [{ topic: TOPIC, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1024, currentLeaderEpoch }] }], readCommitted: false, maxBytes: 1024, minBytes: 0, maxWaitMs: 0 });
    return r.topics[0]?.partitions[0]?.errorCode;
  };
  assert.equal(await ask(2, 2), ErrorCode.FENCED_LEADER_EPOCH);
  assert.equal(await ask(2, 4), ErrorCode.UNKNOWN_LEADER_EPOCH);
  assert.equal(await ask(2, 3), ErrorCode.NONE);
  assert.equal(await ask(7, 3), ErrorCode.NOT_LEADER_OR_FOLLOWER);
});

test('ISR changes are counted as the controller answers them, refusals too; the follower knows its lag; at and under min ISR are told apart', async () => {
  let refuse = false;
  const env = brokers(2, async (_p, proposal) => (refuse
    ? { kind: 'failed', errorCode: ErrorCode.INVALID_UPDATE_VERSION }
    : { kind: 'committed', leaderEpoch: proposal.leaderEpoch, partitionEpoch: proposal.partitionEpoch + 1, isr: proposal.newIsr }));
  const { rm, assign, fetchOnce, clock } = env;
  assign(1, 0);
  const p = rm(1).get(TOPIC, 0);
  assert.ok(p);
  await produce(rm(1), ['a']);
  for (const f of [2, 3, 2, 3]) await fetchOnce(f);
  assert.equal(p.isAtMinIsr(), false, 'three of three in sync');
  const settle = () => new Promise((r) => setImmediate(r));
  await produce(rm(1), ['b'], 1);
  clock.advance(31_000);
  await fetchOnce(2);
  await fetchOnce(2);
  rm(1).shrinkIsrs();
  await settle();
  assert.deepEqual(rm(1).isrChangeCounts, { shrinks: 1, expands: 0, failed: 0 });
  assert.deepEqual([...p.isr].sort(), [1, 2]);
  assert.equal(p.isAtMinIsr(), true, 'two in sync with min.insync.replicas 2');
  assert.equal(p.isUnderMinIsr(), false);

  // Follower 3 falls 3 records behind, and knows it from the leader's high watermark.
  await produce(rm(1), ['c', 'd', 'e'], 1);
  await fetchOnce(2);
  await fetchOnce(2);
  const follower3 = new ReplicaFetcher(1, rm(3));
  const lagging = rm(3).get(TOPIC, 0);
  assert.ok(lagging);
  follower3.add(lagging);
  const req = follower3.buildRequest(clock.nowMs());
  assert.ok(req);
  const res = await serve(rm(1), { ...req, maxBytes: 1, partitions: req.partitions.map((x) => ({ ...x, partitionMaxBytes: 1 })) });
  follower3.processResponse(req, res, clock.nowMs());
  assert.equal(follower3.maxLag(), p.highWatermark - lagging.logEndOffset);
  assert.ok(follower3.maxLag() > 0n, 'the follower is behind the leader\'s high watermark');

  // A refused expansion is counted as failed, and the ISR stays as it was.
  refuse = true;
  while (lagging.logEndOffset < p.logEndOffset) await fetchOnce(3);
  await fetchOnce(3);
  await settle();
  assert.equal(rm(1).isrChangeCounts.failed >= 1, true);
  assert.deepEqual([...p.isr].sort(), [1, 2]);
  refuse = false;
  await fetchOnce(3);
  await settle();
  assert.equal(rm(1).isrChangeCounts.expands, 1);
  assert.deepEqual([...p.isr].sort(), [1, 2, 3]);
});

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
import { ReplicaManager, type PartitionAppendResult } from '../../../src/replication/replica-manager.js';
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

function brokers(minInsyncReplicas = 1) {
  const clock = new ManualClock();
  const timers = new VirtualTimers(clock);
  const nodes = new Map<number, ReplicaManager>();
  for (const id of REPLICAS) {
    const { manager } = LogManager.open({ fs: new MemoryFileSystem(), clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG } });
    nodes.set(id, new ReplicaManager({
      logManager: manager, localNodeId: id, logConfigFor: () => ({ ...DEFAULT_LOG_CONFIG }), topicRules: () => ({ ...RULES, minInsyncReplicas }),
      topicExists: () => true, clock, timers, logger: pino({ level: 'silent' }), isReplicaEligible: () => true,
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

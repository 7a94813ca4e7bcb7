// Client quotas measured on a real broker (docs/security.md, "Quotas"):
// a producer throttled to 1 MB/s and a consumer throttled to 2 MB/s
// (client-id quotas, set with AlterClientQuotas) send and fetch as fast as
// the broker lets them, while an unthrottled producer paced at 3 MB/s runs
// beside them on the same broker.
//
// Kafka's rate is measured over quota.window.num (11) windows of
// quota.window.size.seconds (1): a client that starts at full speed gets
// up to 11 s worth of its quota at once, then is held back until that
// window expires 11 s later (see docs/security.md). So the throttled rates
// are measured over two quota cycles (21.5 s from the first request, just
// before the third cycle opens) and must be within 10 % of the quota. The
// unthrottled producer must keep at least 90 % of its paced rate and never
// see a throttle; the throttled clients must see throttle_time_ms > 0, and
// the consumer empty responses while throttled (Kafka's behaviour).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin } from '../../../../src/client/admin.js';
import { Cluster } from '../../../../src/client/cluster.js';
import { Apis, request } from '../../../../src/client/apis.js';
import { ZERO_UUID } from '../../../../src/protocol/codec.js';
import { buildRecordBatchSync } from '../../../../src/protocol/record-batch/builder.js';
import { startCluster, type EmbeddedCluster } from '../../../../src/index.js';

const MB = 1024 * 1024;
const PRODUCE_QUOTA = 1 * MB;
const FETCH_QUOTA = 2 * MB;
const FREE_RATE = 3 * MB;
const MEASURE_MS = 21_500;
const BATCH = buildRecordBatchSync({ records: Array.from({ length: 4 }, (_, i) => ({ value: Buffer.alloc(4096, i) })) });
const FREE_BATCH = buildRecordBatchSync({ records: Array.from({ length: 16 }, (_, i) => ({ value: Buffer.alloc(4096, i) })) });

interface Measured {
  bytes: number;
  elapsedMs: number;
  maxThrottleMs: number;
  emptyThrottled: number;
}

async function produceLoop(bootstrap: string, clientId: string, topic: string, batch: Buffer, pace: number | null): Promise<Measured> {
  const cluster = await Cluster.connect({ bootstrap, clientId });
  const out: Measured = { bytes: 0, elapsedMs: 0, maxThrottleMs: 0, emptyThrottled: 0 };
  try {
    const conn = await cluster.anyConnection();
    const start = performance.now();
    while (performance.now() - start < MEASURE_MS) {
      const { response } = await request(conn, Apis.Produce, () => ({ transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }] }), 60_000);
      if (performance.now() - start > MEASURE_MS) break;
      const code = response.responses[0]?.partitionResponses[0]?.errorCode;
      assert.equal(code, 0, `produce error ${code}`);
      out.bytes += batch.length;
      out.maxThrottleMs = Math.max(out.maxThrottleMs, response.throttleTimeMs);
      // Paced: wait until the bytes so far are due at `pace` bytes/s.
      if (pace !== null) await sleep(Math.max(0, (out.bytes / pace) * 1000 - (performance.now() - start)));
    }
    out.elapsedMs = Math.min(performance.now() - start, MEASURE_MS);
  } finally {
    await cluster.close();
  }
  return out;
}

async function fetchLoop(bootstrap: string, clientId: string, topic: string, endOffset: bigint): Promise<Measured> {
  const cluster = await Cluster.connect({ bootstrap, clientId });
  const out: Measured = { bytes: 0, elapsedMs: 0, maxThrottleMs: 0, emptyThrottled: 0 };
  try {
    const conn = await cluster.anyConnection();
    const topicId = (await cluster.topic(topic)).topicId ?? ZERO_UUID;
    let offset = 0n;
    const start = performance.now();
    while (performance.now() - start < MEASURE_MS) {
      const { response } = await request(conn, Apis.Fetch, () => ({
        replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: MB, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic, topicId, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: MB }] }],
        forgottenTopicsData: [], rackId: '',
      }), 60_000);
      if (performance.now() - start > MEASURE_MS) break;
      out.maxThrottleMs = Math.max(out.maxThrottleMs, response.throttleTimeMs);
      const p = response.responses[0]?.partitions[0];
      if (p === undefined) {
        if (response.throttleTimeMs > 0) out.emptyThrottled++;
        continue;
      }
      const records = p.records;
      const size = records === null ? 0 : Buffer.isBuffer(records) ? records.length : records.byteLength;
      out.bytes += size;
      // Read the same records again and again: whole batches of 64 KiB each.
      offset = size === 0 || offset >= endOffset ? 0n : offset + BigInt(Math.floor(size / BATCH_BYTES_FETCH) * 16);
      if (offset >= endOffset) offset = 0n;
    }
    out.elapsedMs = Math.min(performance.now() - start, MEASURE_MS);
  } finally {
    await cluster.close();
  }
  return out;
}

const BATCH_BYTES_FETCH = FREE_BATCH.length;

describe('client quotas, measured (KIP-219 throttling)', { timeout: 120_000 }, () => {
  let cluster: EmbeddedCluster;
  let endOffset = 0n;

  before(async () => {
    cluster = await startCluster();
    const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    try {
      await admin.createTopics(['q-throttled', 'q-free', 'q-fetch'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })));
      const set = await admin.alterClientQuotas([
        { entity: { 'client-id': 'throttled-producer' }, ops: [{ key: 'producer_byte_rate', value: PRODUCE_QUOTA }] },
        { entity: { 'client-id': 'throttled-consumer' }, ops: [{ key: 'consumer_byte_rate', value: FETCH_QUOTA }] },
      ]);
      assert.deepEqual(set.map((r) => r.error), [null, null]);
    } finally {
      await admin.close();
    }
    // 16 MiB to fetch, written by a client without a quota.
    const filler = await Cluster.connect({ bootstrap: cluster.bootstrap, clientId: 'filler' });
    try {
      const conn = await filler.anyConnection();
      for (let i = 0; i < 16 * 16; i++) {
        await request(conn, Apis.Produce, () => ({ transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: 'q-fetch', partitionData: [{ index: 0, records: FREE_BATCH }] }] }));
      }
      endOffset = BigInt(16 * 16 * 16);
    } finally {
      await filler.close();
    }
  });
  after(async () => {
    await cluster?.stop();
  });

  it('throttled producer ~1 MB/s and consumer ~2 MB/s within 10 %; the unthrottled producer keeps its rate', async (t) => {
    const [producer, consumer, free] = await Promise.all([
      produceLoop(cluster.bootstrap, 'throttled-producer', 'q-throttled', BATCH, null),
      fetchLoop(cluster.bootstrap, 'throttled-consumer', 'q-fetch', endOffset),
      produceLoop(cluster.bootstrap, 'free-producer', 'q-free', FREE_BATCH, FREE_RATE),
    ]);
    const rate = (m: Measured): number => m.bytes / (m.elapsedMs / 1000);
    const report = `producer ${(rate(producer) / MB).toFixed(3)} MB/s (max throttle ${producer.maxThrottleMs} ms), consumer ${(rate(consumer) / MB).toFixed(3)} MB/s (max throttle ${consumer.maxThrottleMs} ms, ${consumer.emptyThrottled} empty throttled responses), free ${(rate(free) / MB).toFixed(3)} MB/s`;
    t.diagnostic(report);
    assert.ok(Math.abs(rate(producer) / PRODUCE_QUOTA - 1) <= 0.1, `throttled producer off its quota: ${report}`);
    assert.ok(Math.abs(rate(consumer) / FETCH_QUOTA - 1) <= 0.1, `throttled consumer off its quota: ${report}`);
    assert.ok(rate(free) >= 0.9 * FREE_RATE, `unthrottled producer slowed down: ${report}`);
    assert.ok(producer.maxThrottleMs > 0 && consumer.maxThrottleMs > 0, `throttled clients saw no throttle_time_ms: ${report}`);
    assert.ok(consumer.emptyThrottled > 0, `no empty throttled fetch response: ${report}`);
    assert.equal(free.maxThrottleMs, 0, report);
  });
});

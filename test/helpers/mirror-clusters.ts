/**
 * What the mirror integration tests share: two one-broker clusters A and B,
 * the mm2.properties keys that fit them (every internal topic at
 * replication factor 1, quick refreshes), reading a topic's records per
 * partition, and the sum of a topic's end offsets.
 */
import { Admin, Consumer, type ConsumerRecord } from '../../src/client/index.js';
import { startCluster, type EmbeddedCluster } from '../../src/embedded/cluster.js';

/** mm2.properties keys for one-broker test clusters. */
export const MM2_ONE_BROKER: Readonly<Record<string, string>> = {
  'replication.factor': '1',
  'offset-syncs.topic.replication.factor': '1',
  'checkpoints.topic.replication.factor': '1',
  'heartbeats.topic.replication.factor': '1',
  'config.storage.replication.factor': '1',
  'offset.storage.replication.factor': '1',
  'status.storage.replication.factor': '1',
  'refresh.topics.interval.seconds': '1',
};

/** Clusters A and B, started side by side. */
export async function startTwoClusters(): Promise<{ a: EmbeddedCluster; b: EmbeddedCluster }> {
  const config = { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 };
  const [a, b] = await Promise.all([startCluster({ config }), startCluster({ config })]);
  return { a, b };
}

/** The records of `topic`'s partitions 0..partitions-1, per partition, read until `total` (or 60 s). */
export async function recordsByPartition(bootstrap: string, topic: string, partitions: number, total: number): Promise<Map<number, ConsumerRecord<Buffer | null, Buffer | null>[]>> {
  const consumer = new Consumer({ bootstrap, autoOffsetReset: 'earliest' });
  const out = new Map<number, ConsumerRecord<Buffer | null, Buffer | null>[]>();
  let n = 0;
  const timer = setTimeout(() => void consumer.close(), 60_000);
  try {
    consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })));
    for await (const batch of consumer.batches()) {
      out.set(batch.partition, [...(out.get(batch.partition) ?? []), ...batch.records]);
      n += batch.records.length;
      if (n >= total) break;
    }
  } finally {
    clearTimeout(timer);
    await consumer.close();
  }
  return out;
}

/** The sum of the end offsets of `topic`'s partitions 0..partitions-1 (0 while it does not exist). */
export async function endOffsetSum(bootstrap: string, topic: string, partitions: number): Promise<bigint> {
  const admin = await Admin.connect({ bootstrap });
  try {
    const ends = await admin.listOffsets(Array.from({ length: partitions }, (_, partition) => ({ topic, partition, spec: 'latest' as const })));
    return ends.reduce((n, e) => n + (e.error === null ? e.offset : 0n), 0n);
  } catch {
    return 0n;
  } finally {
    await admin.close();
  }
}

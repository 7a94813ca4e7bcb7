/**
 * Writes and reads back string values partition by partition, for tests that
 * check what a broker kept across restarts and crashes.
 *
 * readValuesByPartition reads every partition of a topic from offset 0 with our Consumer (string
 * values) until `expected` records came back or `timeoutMs` passed: the
 * values of each partition in offset order, for tests that check what a
 * broker kept across restarts and crashes.
 */
import { Admin, Consumer, Producer, deserializers } from '../../src/client/index.js';

/** Creates `topic` (replication factor 1) and sends `rounds` rounds of one record `p<partition>-r<round>` to each partition. */
export async function fillPartitions(bootstrap: string, topic: string, partitions: number, rounds: number): Promise<void> {
  const admin = await Admin.connect({ bootstrap });
  try {
    await admin.createTopic({ name: topic, numPartitions: partitions, replicationFactor: 1 });
  } finally {
    await admin.close();
  }
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, lingerMs: 0 });
  try {
    for (let round = 0; round < rounds; round++) {
      await producer.sendBatch(Array.from({ length: partitions }, (_, p) => ({ topic, partition: p, key: null, value: `p${p}-r${round}` })));
    }
  } finally {
    await producer.close();
  }
}

export async function readValuesByPartition(bootstrap: string, topic: string, partitions: number, expected: number, timeoutMs = 60_000): Promise<Map<number, string[]>> {
  const consumer = new Consumer<string | null, string | null>({
    bootstrap, keyDeserializer: deserializers.string, valueDeserializer: deserializers.string, autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
  });
  const byPartition = new Map<number, string[]>();
  try {
    const tps = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
    consumer.assign(tps);
    for (const tp of tps) consumer.seek(tp, 0);
    let seen = 0;
    const deadline = Date.now() + timeoutMs;
    for await (const batch of consumer.batches()) {
      const list = byPartition.get(batch.partition) ?? [];
      for (const r of batch.records) list.push(r.value ?? '');
      byPartition.set(batch.partition, list);
      seen += batch.records.length;
      if (seen >= expected || Date.now() > deadline) break;
    }
  } finally {
    await consumer.close();
  }
  return byPartition;
}

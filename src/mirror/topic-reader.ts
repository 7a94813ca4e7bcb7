/**
 * Reads a topic from the beginning to the end offsets seen at start and
 * returns its records (for the small compacted topics of MirrorMaker and
 * Connect: checkpoints, offsets, statuses). A missing topic reads as empty.
 */
import { Admin, Consumer, type ConsumerRecord } from '../client/index.js';

export async function readTopic(bootstrap: string, topic: string, timeoutMs = 30_000): Promise<ConsumerRecord[]> {
  const admin = await Admin.connect({ bootstrap, clientId: 'mirror-reader' });
  let ends: Map<number, bigint>;
  try {
    const [d] = await admin.describeTopics([topic]);
    if (d === undefined || d.error !== null) return [];
    const listed = await admin.listOffsets(d.partitions.map((p) => ({ topic, partition: p.partition, spec: 'latest' as const })));
    ends = new Map(listed.filter((l) => l.error === null && l.offset > 0n).map((l) => [l.partition, l.offset]));
  } finally {
    await admin.close();
  }
  if (ends.size === 0) return [];
  const consumer = new Consumer({ bootstrap, clientId: 'mirror-reader', autoOffsetReset: 'earliest' });
  const out: ConsumerRecord[] = [];
  const timer = setTimeout(() => void consumer.close(), timeoutMs);
  try {
    consumer.assign([...ends.keys()].map((partition) => ({ topic, partition })));
    const left = new Set(ends.keys());
    for await (const batch of consumer.batches()) {
      out.push(...batch.records);
      const last = batch.records[batch.records.length - 1];
      if (last !== undefined && last.offset + 1n >= (ends.get(batch.partition) ?? 0n)) left.delete(batch.partition);
      if (left.size === 0) break;
    }
    if (left.size > 0) throw new Error(`reading ${topic} timed out after ${timeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    await consumer.close();
  }
  return out;
}

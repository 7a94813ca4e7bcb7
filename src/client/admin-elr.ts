/**
 * Eligible Leader Replicas (KIP-966) of described topics, from
 * DescribeTopicPartitions (75): Metadata does not carry them. The broker
 * answers at most a page of partitions at a time and a cursor for the rest,
 * so this follows the cursor until the last page. A broker without the API
 * (every Kafka before 3.8) gives no answer: null.
 */
import { AdminApis } from './admin-apis.js';
import { request, supports } from './apis.js';
import type { Cluster } from './cluster.js';
import type { DescribeTopicPartitionsResponse } from '../protocol/messages/index.js';

type Cursor = NonNullable<DescribeTopicPartitionsResponse['nextCursor']>;

/** One partition's ELR and last known ELR. */
export interface EligibleLeaders {
  elr: readonly number[];
  lastKnownElr: readonly number[];
}

/** Pages asked for at most: a bound on the loop whatever the broker answers. */
const PAGES_MAX = 10_000;

/** ELR per topic and partition for `topics`, or null when the broker does not have DescribeTopicPartitions. */
export async function describeEligibleLeaders(cluster: Cluster, topics: readonly string[]): Promise<Map<string, Map<number, EligibleLeaders>> | null> {
  const out = new Map<string, Map<number, EligibleLeaders>>();
  if (topics.length === 0) return out;
  if (!supports(await cluster.anyConnection(), AdminApis.DescribeTopicPartitions)) return null;
  let cursor: Cursor | null = null;
  for (let page = 0; page < PAGES_MAX; page++) {
    const from: Cursor | null = cursor;
    const { response }: { response: DescribeTopicPartitionsResponse } = await cluster.withRetry(async () =>
      request(await cluster.anyConnection(), AdminApis.DescribeTopicPartitions, () => ({
        topics: topics.map((name) => ({ name })),
        responsePartitionLimit: 2000,
        cursor: from,
      })),
    );
    for (const t of response.topics) {
      if (t.errorCode !== 0 || t.name === null) continue;
      let byPartition = out.get(t.name);
      if (byPartition === undefined) out.set(t.name, (byPartition = new Map()));
      for (const p of t.partitions) byPartition.set(p.partitionIndex, { elr: p.eligibleLeaderReplicas ?? [], lastKnownElr: p.lastKnownElr ?? [] });
    }
    cursor = response.nextCursor;
    if (cursor === null) return out;
  }
  return out;
}

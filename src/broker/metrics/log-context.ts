/**
 * Context for error logs: the topic-partitions a failed request names, read
 * from its decoded body (Produce `topicData[].partitionData[].index`, Fetch
 * `topics[].partitions[].partition`, OffsetCommit `topics[].partitions[].partitionIndex`,
 * CreateTopics `topics[].name`, ...). Only called on the error path.
 */

/** At most this many entries are listed; the rest are counted. */
export const LOGGED_PARTITIONS_MAX = 20;

const TOPIC_LISTS = ['topicData', 'topics'] as const;
const TOPIC_NAMES = ['name', 'topic'] as const;
const PARTITION_LISTS = ['partitionData', 'partitions', 'partitionIndexes'] as const;
const PARTITION_INDEXES = ['index', 'partition', 'partitionIndex'] as const;

function field(o: unknown, names: readonly string[]): unknown {
  if (typeof o !== 'object' || o === null) return undefined;
  for (const n of names) if (n in o) return (o as Record<string, unknown>)[n];
  return undefined;
}

/** `["orders-0", "orders-3", "audit"]` (a topic without partitions is listed by name), or `[]`. */
export function requestPartitions(body: unknown): string[] {
  const topics = field(body, TOPIC_LISTS);
  if (!Array.isArray(topics)) return [];
  const out: string[] = [];
  let more = 0;
  const add = (s: string): void => {
    if (out.length < LOGGED_PARTITIONS_MAX) out.push(s);
    else more++;
  };
  for (const t of topics as unknown[]) {
    const name = field(t, TOPIC_NAMES);
    const topic = typeof name === 'string' ? name : '?';
    const partitions = field(t, PARTITION_LISTS);
    if (!Array.isArray(partitions) || partitions.length === 0) {
      add(topic);
      continue;
    }
    for (const p of partitions as unknown[]) {
      const index = typeof p === 'number' ? p : field(p, PARTITION_INDEXES);
      add(typeof index === 'number' ? `${topic}-${index}` : topic);
    }
  }
  if (more > 0) out.push(`(+${more} more)`);
  return out;
}

/**
 * What the source connector keeps in step on the target cluster (Kafka's
 * MirrorSourceConnector refresh and sync jobs): the set of source
 * partitions to replicate, remote topics created with the same partition
 * count, partitions added when the source grows, and topic configs copied
 * (only those set on the source topic itself, minus
 * `config.properties.exclude`).
 */
import type { Admin, ConfigEntry } from '../client/index.js';
import type { RegexFilter } from './filters.js';
import { replicable, type ReplicationPolicy } from './policy.js';

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

export interface TopicSyncOptions {
  source: string;
  target: string;
  policy: ReplicationPolicy;
  topicFilter: RegexFilter;
  configFilter: RegexFilter;
  replicationFactor: number;
  syncConfigs: boolean;
  /** Exact mode: remote topics are created as read-only mirror topics (mirror.state=active). */
  exact: boolean;
  log: (m: string) => void;
}

/** Tributary's per-topic mirror marker: each cluster's own, never copied from the source (nor mirror.promoted.offsets). */
const MIRROR_STATE = 'mirror.state';
const isMirrorKey = (name: string): boolean => name.startsWith('mirror.');

/** The source topics this flow replicates with their partition counts, sorted by name. */
export async function replicatedTopics(sourceAdmin: Admin, o: TopicSyncOptions): Promise<Map<string, number>> {
  const listed = await sourceAdmin.listTopics({ includeInternal: false });
  const out = new Map<string, number>();
  const shouldReplicate = (t: string): boolean => (o.topicFilter.matches(t) || o.policy.isHeartbeatsTopic(t)) && replicable(o.policy, t, o.target);
  for (const t of listed.sort((a, b) => a.name.localeCompare(b.name))) {
    if (t.partitionCount > 0 && shouldReplicate(t.name)) out.set(t.name, t.partitionCount);
  }
  return out;
}

/** Every partition of the topics, sorted by topic then partition. */
export function partitionsOf(topics: ReadonlyMap<string, number>): TopicPartitionRef[] {
  const out: TopicPartitionRef[] = [];
  for (const [topic, count] of topics) for (let p = 0; p < count; p++) out.push({ topic, partition: p });
  return out;
}

/** The configs set on each source topic that are to be copied. */
async function configsToSync(sourceAdmin: Admin, topics: readonly string[], filter: RegexFilter): Promise<Map<string, Record<string, string>>> {
  const described = (await sourceAdmin.describeTopicConfigs(topics)) ?? new Map<string, ConfigEntry[]>();
  const out = new Map<string, Record<string, string>>();
  for (const [topic, entries] of described) {
    const kept: Record<string, string> = {};
    for (const e of entries) if (e.source === 'DYNAMIC_TOPIC_CONFIG' && e.value !== null && !e.isSensitive && !isMirrorKey(e.name) && !filter.matches(e.name)) kept[e.name] = e.value;
    out.set(topic, kept);
  }
  return out;
}

/** Creates missing remote topics and adds missing partitions on the target. */
export async function createRemoteTopics(sourceAdmin: Admin, targetAdmin: Admin, topics: ReadonlyMap<string, number>, o: TopicSyncOptions): Promise<void> {
  if (topics.size === 0) return;
  const existing = new Map((await targetAdmin.listTopics({ includeInternal: true })).map((t) => [t.name, t.partitionCount]));
  const configs = o.syncConfigs ? await configsToSync(sourceAdmin, [...topics.keys()], o.configFilter) : new Map<string, Record<string, string>>();
  const create = [];
  for (const [topic, count] of topics) {
    const remote = o.policy.formatRemoteTopic(o.source, topic);
    const have = existing.get(remote);
    if (have === undefined) {
      const own = { ...(configs.get(topic) ?? {}), ...(o.exact ? { [MIRROR_STATE]: 'active' } : {}) };
      create.push({ name: remote, numPartitions: count, ...(o.replicationFactor > 0 ? { replicationFactor: o.replicationFactor } : {}), configs: own });
    } else if (have < count) {
      o.log(`adding partitions to ${remote}: ${have} -> ${count}`);
      await targetAdmin.createPartitions(remote, count);
    }
  }
  if (create.length === 0) return;
  const results = await targetAdmin.createTopics(create);
  for (const r of results) {
    if (r.error !== null && r.error.kafkaErrorName !== 'TOPIC_ALREADY_EXISTS') throw new Error(`creating remote topic ${r.name} on ${o.target} failed: ${r.error.message}`);
    if (r.error === null) o.log(`created ${o.exact ? 'mirror topic' : 'remote topic'} ${r.name} on ${o.target}`);
  }
}

/** Copies the source topics' configs onto their remote topics (only keys that differ are sent). */
export async function syncTopicConfigs(sourceAdmin: Admin, targetAdmin: Admin, topics: readonly string[], o: TopicSyncOptions): Promise<void> {
  if (topics.length === 0) return;
  const wanted = await configsToSync(sourceAdmin, topics, o.configFilter);
  const remoteNames = topics.map((t) => o.policy.formatRemoteTopic(o.source, t));
  const have = (await targetAdmin.describeTopicConfigs(remoteNames)) ?? new Map<string, ConfigEntry[]>();
  for (const topic of topics) {
    const remote = o.policy.formatRemoteTopic(o.source, topic);
    const current = new Map((have.get(remote) ?? []).map((e) => [e.name, e.value]));
    const changes = Object.entries(wanted.get(topic) ?? {}).filter(([k, v]) => current.get(k) !== v);
    if (changes.length === 0) continue;
    await targetAdmin.incrementalAlterConfigs({ type: 'topic', name: remote }, changes.map(([name, value]) => ({ name, value, op: 'set' as const })));
    o.log(`synced ${changes.length} config(s) of ${topic} to ${remote}`);
  }
}

/** Creates a compacted single-partition internal topic if it is missing (offset syncs, checkpoints, heartbeats). */
export async function ensureInternalTopic(admin: Admin, name: string, replicationFactor: number): Promise<void> {
  const [r] = await admin.createTopics([{ name, numPartitions: 1, ...(replicationFactor > 0 ? { replicationFactor } : {}), configs: { 'cleanup.policy': 'compact' } }]);
  if (r !== undefined && r.error !== null && r.error.kafkaErrorName !== 'TOPIC_ALREADY_EXISTS') throw new Error(`creating ${name} failed: ${r.error.message}`);
}

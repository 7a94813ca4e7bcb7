/**
 * Internal topics at start-up (Kafka's InternalTopicManager): the partition
 * count of every topic a topology reads, the repartition topics sized like
 * the inputs of the sub-topology that writes them (unless given), one
 * compacted changelog per store sized like its sub-topology's tasks, created
 * through the Admin if missing; then the co-partitioning of joined topics.
 */
import type { Admin } from '../../client/index.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import { changelogTopic } from '../state/store.js';
import type { Subtopology, Topology } from '../topology.js';

/** What start-up learned about the topics (internal). */
export interface TopicLayout {
  /** Partitions per topic (resolved names). */
  partitions: Map<string, number>;
  /** Tasks (partitions) per sub-topology id. */
  tasks: Map<number, number>;
}

export async function prepareTopics(admin: Admin, topology: Topology, applicationId: string, replicationFactor: number | undefined): Promise<TopicLayout> {
  const resolve = (t: string): string => (topology.isInternalTopic(t) ? `${applicationId}-${t}` : t);
  const subs = topology.subtopologies();
  const external = [...new Set(subs.flatMap((s) => s.sourceTopics).filter((t) => !topology.isInternalTopic(t)))];
  const partitions = await describe(admin, external);
  for (const t of external) if (!partitions.has(t)) throw new StreamsError(StreamsErrorCode.STATE, `source topic '${t}' does not exist: create it before starting the application`);
  const repartition = sizeRepartitionTopics(topology, subs, partitions, resolve);
  for (const [name, n] of repartition) partitions.set(name, n);
  const tasks = new Map(subs.map((s) => [s.id, Math.max(0, ...s.sourceTopics.map((t) => partitions.get(resolve(t)) ?? 0))]));
  const changelogs = new Map<string, number>();
  for (const s of subs) {
    for (const store of s.stores) if (topology.store(store)?.loggingEnabled) changelogs.set(changelogTopic(applicationId, store), tasks.get(s.id) ?? 1);
  }
  const wanted = [
    ...[...repartition].map(([name, n]) => ({ name, numPartitions: n, configs: { 'cleanup.policy': 'delete' } })),
    ...[...changelogs].map(([name, n]) => ({ name, numPartitions: n, configs: { 'cleanup.policy': 'compact', ...changelogConfigOf(topology, applicationId, name) } })),
  ];
  await createMissing(admin, wanted, replicationFactor);
  for (const w of wanted) partitions.set(w.name, w.numPartitions);
  checkCopartitioning(topology, partitions, resolve);
  return { partitions, tasks };
}

async function describe(admin: Admin, topics: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (topics.length === 0) return out;
  for (const d of await admin.describeTopics(topics)) if (d.error === null && d.partitions.length > 0) out.set(d.name, d.partitions.length);
  return out;
}

/** Fixed point: a repartition topic written by a sub-topology that reads another repartition topic waits for that one's size. */
function sizeRepartitionTopics(topology: Topology, subs: Subtopology[], partitions: Map<string, number>, resolve: (t: string) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, spec] of topology.internalTopics) if (spec.partitions !== null) out.set(resolve(name), spec.partitions);
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of subs) {
      const inputs = s.sourceTopics.map((t) => partitions.get(resolve(t)) ?? out.get(resolve(t)));
      if (inputs.some((n) => n === undefined)) continue;
      const n = Math.max(...(inputs as number[]));
      for (const t of s.sinkTopics) {
        if (!topology.isInternalTopic(t) || out.has(resolve(t)) || topology.internalTopics.get(t)?.sizedLikeReaderOf !== undefined) continue;
        out.set(resolve(t), n);
        changed = true;
      }
    }
    changed = sizeLikeReaders(topology, subs, partitions, out, resolve) || changed;
  }
  for (const name of topology.internalTopics.keys()) if (!out.has(resolve(name))) out.set(resolve(name), 1);
  return out;
}

/** A topic sized like its reader (foreign-key joins): the largest of the reader's other inputs, once they are known. */
function sizeLikeReaders(topology: Topology, subs: Subtopology[], partitions: Map<string, number>, out: Map<string, number>, resolve: (t: string) => string): boolean {
  let changed = false;
  for (const [name, spec] of topology.internalTopics) {
    if (spec.sizedLikeReaderOf === undefined || out.has(resolve(name))) continue;
    const reader = subs.find((s) => s.nodes.some((n) => n.name === spec.sizedLikeReaderOf));
    const inputs = (reader?.sourceTopics ?? []).filter((t) => t !== name).map((t) => partitions.get(resolve(t)) ?? out.get(resolve(t)));
    if (inputs.length === 0 || inputs.some((n) => n === undefined)) continue;
    out.set(resolve(name), Math.max(...(inputs as number[])));
    changed = true;
  }
  return changed;
}

function changelogConfigOf(topology: Topology, applicationId: string, topic: string): Record<string, string> {
  const store = topic.slice(applicationId.length + 1, -'-changelog'.length);
  return { ...(topology.store(store)?.changelogConfig ?? {}) };
}

async function createMissing(admin: Admin, wanted: { name: string; numPartitions: number; configs: Record<string, string> }[], replicationFactor: number | undefined): Promise<void> {
  if (wanted.length === 0) return;
  const existing = await describe(admin, wanted.map((w) => w.name));
  for (const w of wanted) {
    const n = existing.get(w.name);
    if (n !== undefined && n !== w.numPartitions) throw new StreamsError(StreamsErrorCode.STATE, `internal topic '${w.name}' has ${n} partitions, expected ${w.numPartitions}: delete it (or reset the application) and restart`);
  }
  const missing = wanted.filter((w) => !existing.has(w.name));
  if (missing.length === 0) return;
  const results = await admin.createTopics(missing.map((w) => ({ name: w.name, numPartitions: w.numPartitions, configs: w.configs, ...(replicationFactor !== undefined ? { replicationFactor } : {}) })));
  for (const r of results) {
    if (r.error !== null && r.error.kafkaErrorName !== 'TOPIC_ALREADY_EXISTS') throw new StreamsError(StreamsErrorCode.STATE, `cannot create internal topic '${r.name}': ${r.error.message}`, { cause: r.error });
  }
}

function checkCopartitioning(topology: Topology, partitions: Map<string, number>, resolve: (t: string) => string): void {
  for (const { node, topics } of topology.copartitionGroups()) {
    const counts = topics.map((t) => `${resolve(t)}: ${partitions.get(resolve(t)) ?? '?'}`);
    if (new Set(topics.map((t) => partitions.get(resolve(t)))).size > 1) {
      throw new StreamsError(StreamsErrorCode.COPARTITION, `join '${node}' needs co-partitioned inputs, but their partition counts differ (${counts.join(', ')}): repartition one side or give the topics the same number of partitions`);
    }
  }
}

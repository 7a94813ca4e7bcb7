/**
 * Offset translation for applications that fail over (Kafka's
 * RemoteClusterUtils.translateOffsets): reads `<source>.checkpoints.internal`
 * on the cluster the consumer moves to and returns, for one group, the
 * newest checkpointed offset of each remote partition. The answer is an
 * offset the group may commit on that cluster: never ahead of what it had
 * processed on the source.
 */
import type { Admin } from '../client/index.js';
import { DefaultReplicationPolicy, type ReplicationPolicy } from './policy.js';
import { decodeCheckpoint, type Checkpoint } from './records.js';
import { readTopic } from './topic-reader.js';

/** What translateOffsets needs: where the checkpoints are, the group and the cluster it committed on. */
export interface TranslateOffsetsOptions {
  /** The cluster the consumer moves to (where the checkpoints are). */
  bootstrap: string;
  group: string;
  /** Alias of the cluster the group committed on. */
  sourceCluster: string;
  /** Default: DefaultReplicationPolicy with '.' (the checkpoints topic name depends on its separator). */
  policy?: ReplicationPolicy;
  timeoutMs?: number;
}

/** Every checkpoint in the topic, newest per (group, topic, partition). */
export async function readCheckpoints(bootstrap: string, sourceCluster: string, policy: ReplicationPolicy = new DefaultReplicationPolicy(), timeoutMs?: number): Promise<Map<string, Checkpoint & { timestamp: number }>> {
  const records = await readTopic(bootstrap, policy.checkpointsTopic(sourceCluster), timeoutMs);
  const latest = new Map<string, Checkpoint & { timestamp: number }>();
  for (const r of records) {
    try {
      const c = decodeCheckpoint(r.key, r.value);
      latest.set(`${c.group}\u0000${c.topic}\u0000${c.partition}`, { ...c, timestamp: r.timestamp });
    } catch {
      // A malformed record is skipped: it cannot name a group.
    }
  }
  return latest;
}

/** The group's translated offsets: `topic` -> partition -> offset, for the partitions checkpointed. */
export async function translateOffsets(o: TranslateOffsetsOptions): Promise<Map<string, Map<number, bigint>>> {
  const all = await readCheckpoints(o.bootstrap, o.sourceCluster, o.policy, o.timeoutMs);
  const out = new Map<string, Map<number, bigint>>();
  for (const c of all.values()) {
    if (c.group !== o.group) continue;
    let m = out.get(c.topic);
    if (m === undefined) out.set(c.topic, (m = new Map()));
    m.set(c.partition, c.downstreamOffset);
  }
  return out;
}

/** Commits the translated offsets to the group on the target (the group must have no active member there). */
export async function applyTranslatedOffsets(targetAdmin: Admin, group: string, offsets: ReadonlyMap<string, ReadonlyMap<number, bigint>>): Promise<void> {
  const list = [...offsets].flatMap(([topic, parts]) => [...parts].map(([partition, offset]) => ({ topic, partition, offset })));
  const results = await targetAdmin.commitGroupOffsets(group, list);
  const failed = results.find((r) => r.error !== null);
  if (failed !== undefined) throw new Error(`committing ${failed.topic}-${failed.partition} for ${group} failed: ${failed.error?.message ?? ''}`);
}

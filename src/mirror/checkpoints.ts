/**
 * The checkpoint computation, apart from the task's timers and I/O
 * plumbing: a source group's committed offsets become Checkpoints through
 * the offset sync store (MirrorCheckpointTask.checkpointsForGroup), and
 * translated offsets are committed to target groups that have no active
 * member (MirrorCheckpointTask.syncGroupOffset: a target offset is only
 * moved forward).
 */
import type { Admin, CommittedOffset } from '../client/index.js';
import type { RegexFilter } from './filters.js';
import { replicable, type ReplicationPolicy } from './policy.js';
import type { Checkpoint } from './records.js';

/** Upstream offset -> downstream offset (OffsetSyncStore in MM2 mode, `exactTranslator` in exact mode); null: not translatable. */
export interface OffsetTranslator {
  translateDownstream(topic: string, partition: number, upstreamOffset: bigint): bigint | null;
}

export interface CheckpointContext {
  source: string;
  target: string;
  policy: ReplicationPolicy;
  topicFilter: RegexFilter;
  store: OffsetTranslator;
}

/**
 * Exact mode: offsets are the same on both sides, so a committed offset is
 * copied as it is; only while the mirror has not copied that far is it held
 * at the remote partition's end (`ends`, by upstream topic and partition),
 * so a consumer that fails over never starts past the data the target has.
 */
export function exactTranslator(ends: ReadonlyMap<string, bigint>): OffsetTranslator {
  return {
    translateDownstream(topic, partition, upstreamOffset) {
      const end = ends.get(`${topic}\u0000${partition}`);
      if (end === undefined) return null;
      return upstreamOffset < end ? upstreamOffset : end;
    },
  };
}

/**
 * The target name of a source topic: a topic that came from the target
 * goes back to its upstream name, others get the remote name
 * (MirrorCheckpointTask.renameTopicPartition).
 */
export function renameTopic(ctx: CheckpointContext, topic: string): string {
  if (ctx.policy.topicSource(topic) === ctx.target) return ctx.policy.upstreamTopic(topic) ?? topic;
  return ctx.policy.formatRemoteTopic(ctx.source, topic);
}

/** Checkpoints for one group's committed offsets on the source; partitions that cannot be translated are left out. */
export function checkpointsFor(ctx: CheckpointContext, group: string, committed: readonly CommittedOffset[]): Checkpoint[] {
  const out: Checkpoint[] = [];
  for (const o of committed) {
    if (o.error !== null || o.offset < 0n) continue;
    if (!ctx.topicFilter.matches(o.topic) || !replicable(ctx.policy, o.topic, ctx.target)) continue;
    const downstream = ctx.store.translateDownstream(o.topic, o.partition, o.offset);
    if (downstream === null || downstream < 0n) continue;
    out.push({ group, topic: renameTopic(ctx, o.topic), partition: o.partition, upstreamOffset: o.offset, downstreamOffset: downstream, metadata: o.metadata ?? '' });
  }
  return out;
}

/** States of a group with no member consuming (Dead: the group does not exist). */
const IDLE_STATES = new Set(['Empty', 'Dead']);

/**
 * Commits the checkpoints' downstream offsets to the group on the target
 * when the group is idle there and the offset moves forward; returns how
 * many partitions moved. An active group is left alone: its members commit
 * their own offsets.
 */
export async function syncGroupOffsets(targetAdmin: Admin, group: string, checkpoints: readonly Checkpoint[]): Promise<number> {
  if (checkpoints.length === 0) return 0;
  const [description] = await targetAdmin.describeGroups([group]);
  if (description !== undefined && description.error === null && !IDLE_STATES.has(description.state)) return 0;
  const current = await targetAdmin.fetchGroupOffsets(group);
  const have = new Map(current.map((c) => [`${c.topic}\u0000${c.partition}`, c.offset]));
  const moves = checkpoints.filter((c) => (have.get(`${c.topic}\u0000${c.partition}`) ?? -1n) < c.downstreamOffset);
  if (moves.length === 0) return 0;
  const results = await targetAdmin.commitGroupOffsets(group, moves.map((c) => ({ topic: c.topic, partition: c.partition, offset: c.downstreamOffset, metadata: c.metadata })));
  const failed = results.filter((r) => r.error !== null);
  if (failed.length > 0) throw new Error(`committing translated offsets of group ${group} failed: ${failed.map((r) => `${r.topic}-${r.partition}: ${r.error?.message ?? ''}`).join(', ')}`);
  return moves.length;
}

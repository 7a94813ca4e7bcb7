/**
 * The group leader's job for `GroupMember` (group.ts): decode the members'
 * subscriptions, load the partition counts of their topics and run the
 * assignor the broker chose; plus the set arithmetic on assignments that a
 * cooperative rebalance needs. Separate because none of it touches the
 * member's state: it works on what JoinGroup returned.
 */
import { ErrorCode } from '../protocol/errors.js';
import { ASSIGNORS, type Assignor, type AssignorMember } from './assignors.js';
import type { Cluster } from './cluster.js';
import { decodeSubscription, encodeAssignment, flatten, groupByTopic, type TopicPartitions } from './consumer-protocol.js';
import { KafkaProtocolError } from '../net/errors.js';

/** A member as JoinGroup lists it to the leader. */
export interface JoinedMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

/** The leader's job: decode the subscriptions, load partition counts, run the chosen assignor. */
export async function computeAssignment(
  cluster: Cluster,
  groupId: string,
  assignors: readonly Assignor[],
  protocolName: string,
  joinedMembers: readonly JoinedMember[],
): Promise<{ memberId: string; assignment: Buffer }[]> {
  const assignor = assignors.find((a) => a.name === protocolName) ?? ASSIGNORS.get(protocolName);
  if (assignor === undefined) {
    throw new KafkaProtocolError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, { api: `JoinGroup ${groupId}`, serverMessage: `the broker chose assignor '${protocolName}', which this member does not have` });
  }
  const members: AssignorMember[] = joinedMembers.map((m) => {
    let subscription: AssignorMember['subscription'] = { topics: [] };
    try {
      subscription = decodeSubscription(m.metadata);
    } catch {
      // A member whose subscription does not parse gets nothing (Java would fail the rebalance).
    }
    return { memberId: m.memberId, groupInstanceId: m.groupInstanceId, subscription };
  });
  const allTopics = [...new Set(members.flatMap((m) => m.subscription.topics))];
  const metadata = allTopics.length === 0 ? null : await cluster.withRetry(() => cluster.refreshMetadata(allTopics));
  const partitionsPerTopic = new Map<string, number>();
  for (const topic of allTopics) {
    const t = metadata?.topics.get(topic);
    if (t !== undefined && t.errorCode === 0 && t.partitions.length > 0) partitionsPerTopic.set(topic, t.partitions.length);
  }
  if (assignor.assignWithUserData !== undefined) {
    const full = assignor.assignWithUserData(members, partitionsPerTopic);
    return members.map((m) => {
      const a = full.get(m.memberId);
      return { memberId: m.memberId, assignment: encodeAssignment({ assignedPartitions: a?.partitions ?? [], userData: a?.userData ?? null }) };
    });
  }
  const result = assignor.assign(members, partitionsPerTopic);
  return members.map((m) => ({ memberId: m.memberId, assignment: encodeAssignment({ assignedPartitions: result.get(m.memberId) ?? [] }) }));
}

/** The partitions of `a` that are not in `b`, grouped by topic. */
export function difference(a: readonly TopicPartitions[], b: readonly TopicPartitions[]): TopicPartitions[] {
  const inB = new Set(flatten(b).map((p) => `${p.topic}\u0000${p.partition}`));
  return groupByTopic(flatten(a).filter((p) => !inB.has(`${p.topic}\u0000${p.partition}`)));
}

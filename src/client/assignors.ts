/**
 * Partition assignors the group leader runs, with the names and results of
 * the Java client's `RangeAssignor` ("range") and `RoundRobinAssignor`
 * ("roundrobin"), so a Tributary member can lead a group of Java, librdkafka
 * or kafka-python members (and the other way round) and every member agrees.
 *
 * Both are deterministic functions of the members (id, group.instance.id,
 * subscribed topics) and the partition count of each topic. Members are
 * ordered as Java's `MemberInfo.compareTo`: members with a group.instance.id
 * first, by that id; then the others by member id (String.compareTo, i.e.
 * UTF-16 code units). Topics missing from the metadata are skipped.
 * Rack-aware assignment (KIP-881) is not done: without racks, Java's result
 * is the same. Cooperative-sticky is in sticky-assignor.ts.
 */
import { compareStrings, groupByTopic, type Subscription, type TopicPartitions } from './consumer-protocol.js';

/** A group member as an assignor sees it: its id, static instance id and decoded subscription. */
export interface AssignorMember {
  memberId: string;
  groupInstanceId: string | null;
  subscription: Pick<Subscription, 'topics'> & Partial<Subscription>;
}

/** A client-side partition assignor (the group leader runs it): `name` is the protocol name sent in JoinGroup. */
export interface Assignor {
  /** The JoinGroup protocol name, e.g. 'range'. */
  readonly name: string;
  /**
   * The rebalance protocol it supports (KIP-429); default 'eager'. A member
   * rebalances cooperatively only when every assignor it offers does.
   */
  readonly protocol?: 'eager' | 'cooperative';
  /** The subscription userData for this assignor, from what the member owns and its generation (default none). */
  userData?(owned: readonly TopicPartitions[], generation: number): Buffer | null;
  /**
   * Every member's partitions (an entry, maybe empty, for each member), from
   * the members' subscriptions and the partition count per topic.
   */
  assign(members: readonly AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): Map<string, TopicPartitions[]>;
  /**
   * Instead of `assign`, when present: every member's partitions and the
   * assignment userData it gets (Java's `ConsumerPartitionAssignor.Assignment`;
   * Kafka Streams sends task and host information this way).
   */
  assignWithUserData?(members: readonly AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): Map<string, MemberAssignment>;
  /**
   * Called on every member with what SyncGroup gave it, before the
   * partitions-assigned listener (Java's `ConsumerPartitionAssignor.onAssignment`).
   */
  onAssignment?(assignment: MemberAssignment, generation: { generationId: number; memberId: string }): void;
}

/** One member's share of an assignment: partitions and the assignor's userData. */
export interface MemberAssignment {
  partitions: TopicPartitions[];
  userData: Buffer | null;
}

/** Java `AbstractPartitionAssignor.MemberInfo.compareTo`. */
export function compareMembers(a: Pick<AssignorMember, 'memberId' | 'groupInstanceId'>, b: Pick<AssignorMember, 'memberId' | 'groupInstanceId'>): number {
  if (a.groupInstanceId !== null && b.groupInstanceId !== null) return compareStrings(a.groupInstanceId, b.groupInstanceId);
  if (a.groupInstanceId !== null) return -1;
  if (b.groupInstanceId !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

/**
 * "range": per topic, the subscribed members in order take consecutive runs
 * of partitions; the first `partitions % members` get one extra.
 * Topics: t0 and t1 with 3 partitions each, members C0, C1 subscribed to both:
 * C0 [t0p0, t0p1, t1p0, t1p1], C1 [t0p2, t1p2].
 */
export const RangeAssignor: Assignor = {
  name: 'range',
  assign(members, partitionsPerTopic) {
    const out = new Map<string, { topic: string; partition: number }[]>(members.map((m) => [m.memberId, []]));
    const topics = [...new Set(members.flatMap((m) => m.subscription.topics))].sort(compareStrings);
    for (const topic of topics) {
      const count = partitionsPerTopic.get(topic);
      if (count === undefined) continue;
      const consumers = members.filter((m) => m.subscription.topics.includes(topic)).sort(compareMembers);
      const perConsumer = Math.floor(count / consumers.length);
      const extra = count % consumers.length;
      consumers.forEach((m, i) => {
        const start = perConsumer * i + Math.min(i, extra);
        const length = perConsumer + (i + 1 > extra ? 0 : 1);
        const list = out.get(m.memberId) as { topic: string; partition: number }[];
        for (let p = start; p < start + length; p++) list.push({ topic, partition: p });
      });
    }
    return new Map([...out].map(([id, pairs]) => [id, groupByTopic(pairs)]));
  },
};

/**
 * "roundrobin": all partitions of all subscribed topics (topics sorted, then
 * partitions in order) are dealt to the members in order, skipping members
 * not subscribed to the partition's topic.
 * t0, t1 with 3 partitions each, C0 and C1 on both: C0 [t0p0, t0p2, t1p1],
 * C1 [t0p1, t1p0, t1p2].
 */
export const RoundRobinAssignor: Assignor = {
  name: 'roundrobin',
  assign(members, partitionsPerTopic) {
    const out = new Map<string, { topic: string; partition: number }[]>(members.map((m) => [m.memberId, []]));
    const ring = [...members].sort(compareMembers);
    const topics = [...new Set(members.flatMap((m) => m.subscription.topics))].sort(compareStrings);
    let next = 0;
    for (const topic of topics) {
      const count = partitionsPerTopic.get(topic);
      if (count === undefined) continue;
      for (let partition = 0; partition < count; partition++) {
        // Some member is subscribed to `topic` (it came from a subscription), so this ends within one lap.
        while (!(ring[next % ring.length] as AssignorMember).subscription.topics.includes(topic)) next++;
        const member = ring[next % ring.length] as AssignorMember;
        next++;
        (out.get(member.memberId) as { topic: string; partition: number }[]).push({ topic, partition });
      }
    }
    return new Map([...out].map(([id, pairs]) => [id, groupByTopic(pairs)]));
  },
};

export const ASSIGNORS: ReadonlyMap<string, Assignor> = new Map([
  [RangeAssignor.name, RangeAssignor],
  [RoundRobinAssignor.name, RoundRobinAssignor],
]);

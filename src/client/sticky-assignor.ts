/**
 * "cooperative-sticky" (KIP-429): a balanced, sticky assignment for the
 * incremental (cooperative) rebalance protocol, wire-compatible with the Java
 * client's CooperativeStickyAssignor and librdkafka's cooperative-sticky.
 *
 * What the members send. Subscription v1+ `ownedPartitions` (what the member
 * holds now) and v2+ `generationId` (the generation it got them in); in
 * `userData` the StickyAssignorUserData v1 layout librdkafka writes
 * (`[topic [partition]] generation`), so a librdkafka leader reading v1
 * subscriptions finds the previous assignment and generation where it looks.
 * Reading, the generation comes from the v2 field when set, else from
 * userData: StickyAssignorUserData v1, or the Java CooperativeStickyAssignor's
 * 4-byte generation.
 *
 * The algorithm (a simpler form of Java's AbstractStickyAssignor):
 * 1. Each partition that still exists and that a subscribed member owns stays
 *    with that member. A partition claimed by several members goes to the
 *    claim of the highest generation; a tie at the highest generation leaves
 *    it unowned (neither claim can be trusted).
 * 2. Unowned partitions go, in (topic, partition) order, to the eligible
 *    member with the fewest partitions (ties: member order as Java's).
 * 3. While some member has at least two more partitions than an eligible
 *    other member, one partition moves from the fullest to the emptiest
 *    (bounded by the partition count squared). With equal subscriptions this
 *    gives sizes within one; in general no single move can improve balance,
 *    which is the sticky assignor's definition of balanced.
 * 4. Cooperative adjustment (Java ConsumerCoordinator.adjustAssignment): a
 *    partition that a member owns and must give up is left out of every
 *    assignment in this round; the owner revokes it, rejoins, and the next
 *    round hands it to its new owner. So no partition is ever owned by two
 *    members in one generation.
 */
import { compareMembers, type Assignor, type AssignorMember } from './assignors.js';
import { compareStrings, groupByTopic, type TopicPartitions } from './consumer-protocol.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** Kept by each member between rebalances and encoded as userData. */
export interface StickyUserData {
  previousAssignment: TopicPartitions[];
  generation: number;
}

/** StickyAssignorUserData v1: int32 count, [string topic, int32 count, int32 partitions...], int32 generation. */
export function encodeStickyUserData(data: StickyUserData): Buffer {
  let size = 4 + 4;
  for (const t of data.previousAssignment) size += 2 + Buffer.byteLength(t.topic, 'utf8') + 4 + 4 * t.partitions.length;
  const buf = Buffer.alloc(size);
  let at = buf.writeInt32BE(data.previousAssignment.length, 0);
  for (const t of data.previousAssignment) {
    at = buf.writeInt16BE(Buffer.byteLength(t.topic, 'utf8'), at);
    at += buf.write(t.topic, at, 'utf8');
    at = buf.writeInt32BE(t.partitions.length, at);
    for (const p of t.partitions) at = buf.writeInt32BE(p, at);
  }
  buf.writeInt32BE(data.generation, at);
  return buf;
}

/** Decodes StickyAssignorUserData v1 (exact length), or Java cooperative's 4-byte generation; null when neither fits. */
export function decodeStickyUserData(buf: Buffer | null | undefined): StickyUserData | null {
  if (buf === null || buf === undefined) return null;
  if (buf.length === 4) return { previousAssignment: [], generation: buf.readInt32BE(0) };
  try {
    let at = 0;
    const topicCount = buf.readInt32BE(at);
    at += 4;
    if (topicCount < 0 || topicCount > buf.length) return null;
    const previousAssignment: TopicPartitions[] = [];
    for (let i = 0; i < topicCount; i++) {
      const length = buf.readInt16BE(at);
      at += 2;
      if (length < 0 || at + length > buf.length) return null;
      const topic = buf.toString('utf8', at, at + length);
      at += length;
      const count = buf.readInt32BE(at);
      at += 4;
      if (count < 0 || at + 4 * count > buf.length) return null;
      const partitions: number[] = [];
      for (let j = 0; j < count; j++, at += 4) partitions.push(buf.readInt32BE(at));
      previousAssignment.push({ topic, partitions });
    }
    const generation = buf.readInt32BE(at);
    return at + 4 === buf.length ? { previousAssignment, generation } : null;
  } catch {
    return null;
  }
}

/** The member's owned partitions and their generation, as the leader reads them. */
export function memberOwnership(member: AssignorMember): { owned: TopicPartition[]; generation: number } {
  const s = member.subscription;
  const userData = decodeStickyUserData(s.userData);
  let owned = s.ownedPartitions ?? [];
  // Subscription v0 has no ownedPartitions: a sticky userData's previous assignment stands in for it.
  if (owned.length === 0 && userData !== null && (s.version ?? 0) < 1) owned = userData.previousAssignment;
  const generation = s.generationId !== undefined && s.generationId >= 0 ? s.generationId : (userData?.generation ?? -1);
  return { owned: owned.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))), generation };
}

const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/**
 * The balanced sticky assignment (steps 1-3 of the file comment), before the
 * cooperative adjustment. Members are those given; `owned` per member id.
 */
export function stickyAssign(
  members: readonly AssignorMember[],
  partitionsPerTopic: ReadonlyMap<string, number>,
): Map<string, TopicPartition[]> {
  const ordered = [...members].sort(compareMembers);
  const subscribed = new Map(ordered.map((m) => [m.memberId, new Set(m.subscription.topics)]));
  const exists = (tp: TopicPartition): boolean => {
    const count = partitionsPerTopic.get(tp.topic);
    return count !== undefined && Number.isInteger(tp.partition) && tp.partition >= 0 && tp.partition < count;
  };
  // 1. Previous owners, highest generation first; a tie at the top leaves the partition unowned.
  const claims = new Map<string, { memberId: string; generation: number; tied: boolean }>();
  for (const m of ordered) {
    const { owned, generation } = memberOwnership(m);
    for (const tp of owned) {
      if (!exists(tp) || !(subscribed.get(m.memberId) as Set<string>).has(tp.topic)) continue;
      const k = key(tp.topic, tp.partition);
      const prior = claims.get(k);
      if (prior === undefined || generation > prior.generation) claims.set(k, { memberId: m.memberId, generation, tied: false });
      else if (generation === prior.generation && prior.memberId !== m.memberId) prior.tied = true;
    }
  }
  const assignment = new Map<string, TopicPartition[]>(ordered.map((m) => [m.memberId, []]));
  const all: TopicPartition[] = [];
  const topics = [...partitionsPerTopic.keys()].filter((t) => ordered.some((m) => (subscribed.get(m.memberId) as Set<string>).has(t))).sort(compareStrings);
  for (const topic of topics) for (let p = 0; p < (partitionsPerTopic.get(topic) as number); p++) all.push({ topic, partition: p });
  const unowned: TopicPartition[] = [];
  for (const tp of all) {
    const claim = claims.get(key(tp.topic, tp.partition));
    if (claim === undefined || claim.tied) unowned.push(tp);
    else (assignment.get(claim.memberId) as TopicPartition[]).push(tp);
  }
  const eligible = (memberId: string, topic: string): boolean => (subscribed.get(memberId) as Set<string>).has(topic);
  // 2. Unowned partitions to the least loaded eligible member.
  for (const tp of unowned) {
    let best: string | null = null;
    for (const m of ordered) {
      if (!eligible(m.memberId, tp.topic)) continue;
      if (best === null || (assignment.get(m.memberId) as TopicPartition[]).length < (assignment.get(best) as TopicPartition[]).length) best = m.memberId;
    }
    if (best !== null) (assignment.get(best) as TopicPartition[]).push(tp);
  }
  // 3. Moves from the fullest member to the emptiest one that can take one of its partitions.
  const movesMax = all.length * all.length + 1;
  for (let move = 0; move < movesMax; move++) {
    if (!moveOne(ordered, assignment, eligible)) break;
  }
  for (const list of assignment.values()) list.sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
  return assignment;
}

/** One balancing move, or false when none would improve balance. */
function moveOne(
  ordered: readonly AssignorMember[],
  assignment: Map<string, TopicPartition[]>,
  eligible: (memberId: string, topic: string) => boolean,
): boolean {
  const bySize = [...ordered].sort((a, b) => (assignment.get(b.memberId) as TopicPartition[]).length - (assignment.get(a.memberId) as TopicPartition[]).length);
  for (const from of bySize) {
    const source = assignment.get(from.memberId) as TopicPartition[];
    for (let i = bySize.length - 1; i >= 0; i--) {
      const to = bySize[i] as AssignorMember;
      const target = assignment.get(to.memberId) as TopicPartition[];
      if (source.length - target.length < 2) break;
      // The last partition (highest topic/partition) the receiver may take.
      for (let j = source.length - 1; j >= 0; j--) {
        const tp = source[j] as TopicPartition;
        if (!eligible(to.memberId, tp.topic)) continue;
        source.splice(j, 1);
        target.push(tp);
        return true;
      }
    }
  }
  return false;
}

/**
 * KIP-429's adjustment: partitions that move away from a current owner are
 * removed from the new owner's assignment this round.
 */
export function withoutPartitionsInTransit(members: readonly AssignorMember[], assignment: Map<string, TopicPartition[]>): Map<string, TopicPartition[]> {
  const newOwner = new Map<string, string>();
  for (const [memberId, list] of assignment) for (const tp of list) newOwner.set(key(tp.topic, tp.partition), memberId);
  const inTransit = new Set<string>();
  for (const m of members) {
    for (const tp of memberOwnership(m).owned) {
      const k = key(tp.topic, tp.partition);
      const owner = newOwner.get(k);
      if (owner !== undefined && owner !== m.memberId) inTransit.add(k);
    }
  }
  const out = new Map<string, TopicPartition[]>();
  for (const [memberId, list] of assignment) out.set(memberId, list.filter((tp) => !inTransit.has(key(tp.topic, tp.partition))));
  return out;
}

export const CooperativeStickyAssignor: Assignor = {
  name: 'cooperative-sticky',
  protocol: 'cooperative',
  userData: (owned, generation) => encodeStickyUserData({ previousAssignment: [...owned], generation }),
  assign(members, partitionsPerTopic) {
    const result = withoutPartitionsInTransit(members, stickyAssign(members, partitionsPerTopic));
    return new Map([...result].map(([id, pairs]) => [id, groupByTopic(pairs)]));
  },
};

/**
 * Fetch from follower (KIP-392): which replica a consumer should read from.
 * The leader asks its ReplicaSelector on every consumer fetch that names a
 * rack (Fetch v11+ rackId); when the answer is another replica, the leader
 * answers that partition with no records and PreferredReadReplica, and the
 * consumer fetches from there until that replica errs or its metadata
 * refresh sends it back (client side).
 *
 * Only in-sync followers that already have the fetch offset are candidates,
 * as Kafka's ReplicaManager.findPreferredReadReplica: an out-of-sync follower
 * could lag behind for ever and the consumer with it. Followers track the
 * leader's log start (they delete what the leader deleted), so the leader's
 * own log-start check covers theirs.
 *
 * `replica.selector.class` takes Kafka's class names:
 * org.apache.kafka.common.replica.RackAwareReplicaSelector (the same rack,
 * the leader first, else the most caught-up replica there) and
 * org.apache.kafka.common.replica.LeaderSelector (always the leader, Kafka's
 * behaviour when the config is unset).
 */
import { REPLICA_SELECTOR_CLASS_NAMES } from '../config/broker-defs.js';
import type { Partition } from './partition.js';

/** What the selector knows of a candidate replica (Kafka's ReplicaView). */
export interface ReplicaView {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly logEndOffset: bigint;
  /** How long since the replica was last caught up with the leader's log end (0 for the leader). */
  readonly timeSinceLastCaughtUpMs: number;
}

export interface ReplicaSelector {
  /** The replica `clientRack` should read from; `leader` when no other suits. */
  select(clientRack: string, leader: ReplicaView, candidates: readonly ReplicaView[]): ReplicaView;
}

/** The more caught-up of two replicas: the larger log end, then the more recently caught up (Kafka's ReplicaView.comparator). */
function moreCaughtUp(a: ReplicaView, b: ReplicaView): ReplicaView {
  if (a.logEndOffset !== b.logEndOffset) return a.logEndOffset > b.logEndOffset ? a : b;
  return a.timeSinceLastCaughtUpMs <= b.timeSinceLastCaughtUpMs ? a : b;
}

/** Kafka's RackAwareReplicaSelector. */
export const rackAwareReplicaSelector: ReplicaSelector = {
  select(clientRack, leader, candidates) {
    if (clientRack === '') return leader;
    if (leader.rack === clientRack) return leader;
    const sameRack = candidates.filter((r) => r.rack === clientRack);
    return sameRack.length === 0 ? leader : sameRack.reduce(moreCaughtUp);
  },
};

/** Kafka's LeaderSelector: always the leader. */
export const leaderSelector: ReplicaSelector = {
  select: (_clientRack, leader) => leader,
};

/** By the short class name: the config lists the full names (REPLICA_SELECTOR_CLASS_NAMES). */
const SELECTORS: ReadonlyMap<string, ReplicaSelector> = new Map([
  ['RackAwareReplicaSelector', rackAwareReplicaSelector],
  ['LeaderSelector', leaderSelector],
]);

/** The selector for `replica.selector.class` (validated by the config); null when unset: consumers read from leaders. */
export function replicaSelectorFor(className: string | null): ReplicaSelector | null {
  if (className === null || className === '') return null;
  const selector = REPLICA_SELECTOR_CLASS_NAMES.includes(className) ? SELECTORS.get(className.slice(className.lastIndexOf('.') + 1)) : undefined;
  if (selector === undefined) throw new Error(`replica.selector.class: unknown class ${className}; expected ${REPLICA_SELECTOR_CLASS_NAMES.join(' or ')}`);
  return selector;
}

/**
 * As leader of `p`: the replica a consumer in `clientRack` fetching at
 * `fetchOffset` should read from, or -1 for this leader (Kafka's
 * findPreferredReadReplica). Candidates: in-sync followers whose log end is
 * at least the fetch offset.
 */
export function preferredReadReplica(
  p: Partition, selector: ReplicaSelector, clientRack: string, fetchOffset: bigint, nowMs: number, rackOf: (brokerId: number) => string | null,
): number {
  const leader: ReplicaView = { brokerId: p.localNodeId, rack: rackOf(p.localNodeId), logEndOffset: p.logEndOffset, timeSinceLastCaughtUpMs: 0 };
  const candidates: ReplicaView[] = [];
  for (const id of p.isr) {
    const f = id === p.localNodeId ? undefined : p.follower(id);
    if (f === undefined || f.logEndOffset < fetchOffset) continue;
    candidates.push({ brokerId: id, rack: rackOf(id), logEndOffset: f.logEndOffset, timeSinceLastCaughtUpMs: Math.max(0, nowMs - f.lastCaughtUpTimeMs) });
  }
  const chosen = selector.select(clientRack, leader, candidates);
  return chosen.brokerId === p.localNodeId ? -1 : chosen.brokerId;
}

/**
 * Leader elections (KIP-460 ElectLeaders) and replica reassignments (KIP-455
 * AlterPartitionReassignments / ListPartitionReassignments) decided against a
 * read-only view of the cluster metadata, with Kafka's KRaft rules
 * (ReplicationControlManager): each item gets an error code and message, and
 * `change` says which partition change record the controller has to commit
 * (null when nothing has to change).
 *
 * Pure functions of the view, so the controller can run them inside its
 * request queue once it commits PartitionChangeRecords. In a cluster of one
 * node every valid request is a no-op (the only replica is the preferred
 * leader and the only possible replica set), so no change is ever produced.
 */
import { ErrorCode } from '../protocol/errors.js';

/** A partition as the metadata image registers it. */
export interface PartitionRegistrationView {
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** -1 when the partition has no leader. */
  readonly leader: number;
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
}

export interface ClusterView {
  topicExists(topic: string): boolean;
  partition(topic: string, partition: number): PartitionRegistrationView | undefined;
  /** A broker registration exists (fenced or not). */
  isRegistered(brokerId: number): boolean;
  /** Registered, unfenced and not shutting down: may lead. */
  isActive(brokerId: number): boolean;
}

/** Kafka's ElectionType ids. */
export const ElectionType = { Preferred: 0, Unclean: 1 } as const;
export type ElectionType = (typeof ElectionType)[keyof typeof ElectionType];

export function isElectionType(value: number): value is ElectionType {
  return value === ElectionType.Preferred || value === ElectionType.Unclean;
}

export type PartitionChange =
  | { kind: 'elect_leader'; leader: number }
  | { kind: 'reassign'; targetReplicas: readonly number[] }
  | { kind: 'cancel_reassignment' };

export interface PlanItem {
  errorCode: number;
  errorMessage: string | null;
  change: PartitionChange | null;
}

const ok = (change: PartitionChange | null = null): PlanItem => ({ errorCode: ErrorCode.NONE, errorMessage: null, change });
const fail = (errorCode: number, errorMessage: string): PlanItem => ({ errorCode, errorMessage, change: null });

function isReassigning(p: PartitionRegistrationView): boolean {
  return p.addingReplicas.length > 0 || p.removingReplicas.length > 0;
}

function lookup(view: ClusterView, topic: string, partition: number): PartitionRegistrationView | PlanItem {
  if (!view.topicExists(topic)) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such topic as ${topic}`);
  const p = view.partition(topic, partition);
  return p ?? fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such partition as ${topic}-${partition}`);
}

/**
 * One partition of an ElectLeaders request. Preferred: the first replica
 * should lead; ELECTION_NOT_NEEDED when it does, PREFERRED_LEADER_NOT_AVAILABLE
 * when it is not in the ISR or not active. Unclean: only for a partition
 * without a leader (else ELECTION_NOT_NEEDED); an active ISR member first,
 * then any active replica; ELIGIBLE_LEADERS_NOT_AVAILABLE when none.
 */
export function planElection(view: ClusterView, topic: string, partition: number, electionType: ElectionType): PlanItem {
  const p = lookup(view, topic, partition);
  if ('errorCode' in p) return p;
  if (electionType === ElectionType.Preferred) {
    const preferred = p.replicas[0];
    if (preferred === undefined) return fail(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `${topic}-${partition} has no replicas`);
    if (p.leader === preferred) return fail(ErrorCode.ELECTION_NOT_NEEDED, `Broker ${preferred}, the preferred leader of ${topic}-${partition}, already leads it.`);
    if (!p.isr.includes(preferred) || !view.isActive(preferred)) {
      return fail(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `The preferred leader ${preferred} of ${topic}-${partition} is not an active in-sync replica.`);
    }
    return ok({ kind: 'elect_leader', leader: preferred });
  }
  if (p.leader >= 0) return fail(ErrorCode.ELECTION_NOT_NEEDED, `${topic}-${partition} already has leader ${p.leader}.`);
  const leader = p.isr.find((r) => view.isActive(r)) ?? p.replicas.find((r) => view.isActive(r));
  if (leader === undefined) return fail(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, `No replica of ${topic}-${partition} is active.`);
  return ok({ kind: 'elect_leader', leader });
}

/** Kafka's validateManualPartitionAssignment (without a replication-factor constraint, KIP-860 default). */
function validateTarget(view: ClusterView, replicas: readonly number[]): PlanItem | null {
  if (replicas.length === 0) return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.');
  const seen = new Set<number>();
  for (const id of [...replicas].sort((a, b) => a - b)) {
    if (!view.isRegistered(id)) {
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    }
    if (seen.has(id)) return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes the broker ${id} more than once.`);
    seen.add(id);
  }
  return null;
}

/**
 * One partition of an AlterPartitionReassignments request. `replicas` null
 * cancels: NO_REASSIGNMENT_IN_PROGRESS unless one is. Otherwise the target
 * must be non-empty, distinct and registered (INVALID_REPLICA_ASSIGNMENT); a
 * target equal to the current replica list with nothing in progress is a
 * successful no-op.
 */
export function planReassignment(view: ClusterView, topic: string, partition: number, replicas: readonly number[] | null): PlanItem {
  const p = lookup(view, topic, partition);
  if ('errorCode' in p) return p;
  if (replicas === null) {
    return isReassigning(p) ? ok({ kind: 'cancel_reassignment' }) : fail(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'No partition reassignment is in progress.');
  }
  const invalid = validateTarget(view, replicas);
  if (invalid !== null) return invalid;
  const same = replicas.length === p.replicas.length && replicas.every((r, i) => r === p.replicas[i]);
  return same && !isReassigning(p) ? ok() : ok({ kind: 'reassign', targetReplicas: [...replicas] });
}

/** ListPartitionReassignments: the partition's reassignment in progress, or null. */
export function ongoingReassignment(p: PartitionRegistrationView): { replicas: number[]; addingReplicas: number[]; removingReplicas: number[] } | null {
  if (!isReassigning(p)) return null;
  return { replicas: [...p.replicas], addingReplicas: [...p.addingReplicas], removingReplicas: [...p.removingReplicas] };
}

/**
 * Admin leader elections (ElectLeaders 43, KIP-460) and replica
 * reassignments (AlterPartitionReassignments 45, KIP-455), decided and
 * turned into PartitionChangeRecords here, with KRaft's rules
 * (ReplicationControlManager.electLeader / changePartitionReassignment):
 *
 * ElectLeaders, per partition:
 *  - unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION;
 *  - preferred: the first replica should lead. ELECTION_NOT_NEEDED when it
 *    does; PREFERRED_LEADER_NOT_AVAILABLE when it is not an ISR member that
 *    may lead (registered, unfenced, not shutting down); else it leads;
 *  - unclean: only for a partition without a leader (else
 *    ELECTION_NOT_NEEDED); the election order of leadership.ts with unclean
 *    election allowed whatever the topic config says (an ISR member, then
 *    ELR, then the last known ELR, then any live replica: ISR = [it],
 *    RECOVERING); ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica may lead.
 *
 * AlterPartitionReassignments, per partition (`original` = replicas minus
 * the ones being added by a reassignment in progress):
 *  - target null cancels: NO_REASSIGNMENT_IN_PROGRESS unless one is; the
 *    replicas go back to `original`, the ISR keeps its `original` members
 *    (INVALID_REPLICA_ASSIGNMENT if none would be left), a leader that is
 *    no longer a replica is replaced;
 *  - a target that is empty, names a broker twice or an unregistered broker:
 *    INVALID_REPLICA_ASSIGNMENT;
 *  - a target equal to the replicas with nothing in progress: a no-op;
 *  - otherwise replicas = target + (original not in target), adding =
 *    target not in original, removing = original not in target; the target
 *    replicas that are new become followers and catch up, and the
 *    reassignment completes when the ISR holds the whole target (at once,
 *    when it already does: a pure shrink or reorder; else through the
 *    leader's AlterPartition, alter-partition.ts).
 */
import { ErrorCode } from '../protocol/errors.js';
import { completeReassignment, type AlterPartitionItemResult } from './alter-partition.js';
import { PartitionChanges, type ElectionPolicy, type PartitionWork } from './leadership.js';
import type { MetadataImage, PartitionState } from './metadata/image.js';
import { NO_LEADER } from './metadata/records.js';

/** Kafka's ElectionType ids. */
export const ElectionType = { Preferred: 0, Unclean: 1 } as const;
export type ElectionType = (typeof ElectionType)[keyof typeof ElectionType];

export function isElectionType(value: number): value is ElectionType {
  return value === ElectionType.Preferred || value === ElectionType.Unclean;
}

export interface PartitionResult {
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface TopicResults {
  topic: string;
  partitions: PartitionResult[];
}

export interface ReassignmentTargets {
  topic: string;
  /** replicas null cancels the partition's reassignment in progress. */
  partitions: readonly { partition: number; replicas: readonly number[] | null }[];
}

export type { AlterPartitionItemResult };

const ok = (partition: number): PartitionResult => ({ partition, errorCode: ErrorCode.NONE, errorMessage: null });
const fail = (partition: number, errorCode: number, errorMessage: string): PartitionResult => ({ partition, errorCode, errorMessage });

function lookup(image: MetadataImage, topic: string, partition: number): { topicId: string; p: PartitionState } | string {
  const t = image.topicByName(topic);
  if (t === undefined) return `No such topic as ${topic}`;
  const p = t.partitions.get(partition);
  return p === undefined ? `No such partition as ${topic}-${partition}` : { topicId: t.topicId, p };
}

/** ElectLeaders: results per requested partition (null: every partition, answering only those that needed an election). */
export function planElectLeaders(
  image: MetadataImage,
  policy: ElectionPolicy,
  electionType: ElectionType,
  refs: readonly { topic: string; partitions: readonly number[] }[] | null,
): { results: TopicResults[]; changes: PartitionChanges } {
  const unclean = electionType === ElectionType.Unclean;
  const changes = new PartitionChanges(image, unclean ? { minIsr: policy.minIsr, uncleanOk: () => true } : policy);
  const one = (topic: string, partition: number): PartitionResult => {
    const found = lookup(image, topic, partition);
    if (typeof found === 'string') return fail(partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, found);
    const w = changes.work(found.topicId, partition) as PartitionWork;
    return unclean ? electUnclean(changes, w, topic) : electPreferred(changes, w, topic);
  };
  if (refs === null) {
    const results = [...image.topics()].map((t) => ({
      topic: t.name,
      partitions: [...t.partitions.keys()]
        .sort((a, b) => a - b)
        .map((p) => one(t.name, p))
        .filter((r) => r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED),
    }));
    return { results, changes };
  }
  return { results: refs.map((r) => ({ topic: r.topic, partitions: r.partitions.map((p) => one(r.topic, p)) })), changes };
}

function electPreferred(changes: PartitionChanges, w: PartitionWork, topic: string): PartitionResult {
  const id = w.start.partitionId;
  const preferred = w.replicas[0] as number;
  if (w.leader === preferred) return fail(id, ErrorCode.ELECTION_NOT_NEEDED, `Broker ${preferred}, the preferred leader of ${topic}-${id}, already leads it.`);
  if (!w.isr.includes(preferred) || !changes.mayLead(preferred)) {
    return fail(id, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `The preferred leader ${preferred} of ${topic}-${id} is not an in-sync replica that may lead.`);
  }
  changes.setLeader(w, preferred, 'preferred');
  return ok(id);
}

function electUnclean(changes: PartitionChanges, w: PartitionWork, topic: string): PartitionResult {
  const id = w.start.partitionId;
  if (w.leader !== NO_LEADER) return fail(id, ErrorCode.ELECTION_NOT_NEEDED, `${topic}-${id} already has leader ${w.leader}.`);
  if (changes.elect(w) === NO_LEADER) return fail(id, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, `No replica of ${topic}-${id} may lead.`);
  return ok(id);
}

/** AlterPartitionReassignments: one result per requested partition. */
export function planReassignments(image: MetadataImage, policy: ElectionPolicy, targets: readonly ReassignmentTargets[]): { results: TopicResults[]; changes: PartitionChanges } {
  const changes = new PartitionChanges(image, policy);
  const results = targets.map((t) => ({
    topic: t.topic,
    partitions: t.partitions.map(({ partition, replicas }) => {
      const found = lookup(image, t.topic, partition);
      if (typeof found === 'string') return fail(partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, found);
      const w = changes.work(found.topicId, partition) as PartitionWork;
      return replicas === null ? cancel(changes, w) : reassign(image, changes, w, replicas);
    }),
  }));
  return { results, changes };
}

function validateTarget(image: MetadataImage, replicas: readonly number[]): string | null {
  if (replicas.length === 0) return 'The manual partition assignment includes an empty replica list.';
  const seen = new Set<number>();
  for (const id of replicas) {
    if (image.broker(id) === undefined) return `The manual partition assignment includes broker ${id}, but no such broker is registered.`;
    if (seen.has(id)) return `The manual partition assignment includes the broker ${id} more than once.`;
    seen.add(id);
  }
  return null;
}

function reassign(image: MetadataImage, changes: PartitionChanges, w: PartitionWork, target: readonly number[]): PartitionResult {
  const id = w.start.partitionId;
  const invalid = validateTarget(image, target);
  if (invalid !== null) return fail(id, ErrorCode.INVALID_REPLICA_ASSIGNMENT, invalid);
  const inProgress = w.adding.length > 0 || w.removing.length > 0;
  const same = target.length === w.replicas.length && target.every((r, i) => r === w.replicas[i]);
  if (same && !inProgress) return ok(id);
  const original = w.replicas.filter((r) => !w.adding.includes(r));
  const removing = original.filter((r) => !target.includes(r));
  w.replicas = [...target, ...removing];
  w.adding = target.filter((r) => !original.includes(r));
  w.removing = removing;
  // Replicas no longer in the set leave the ISR and ELR at once (replicas that are being added are not in them yet).
  changes.setIsr(w, w.isr.filter((r) => w.replicas.includes(r)), []);
  w.elr = w.elr.filter((r) => w.replicas.includes(r));
  w.lastKnownElr = w.lastKnownElr.filter((r) => w.replicas.includes(r));
  if (w.leader !== NO_LEADER && !w.replicas.includes(w.leader)) changes.elect(w);
  // Nothing to add (a shrink or a reorder), or every target replica already in sync: done at once.
  completeReassignment(changes, w);
  return ok(id);
}

function cancel(changes: PartitionChanges, w: PartitionWork): PartitionResult {
  const id = w.start.partitionId;
  if (w.adding.length === 0 && w.removing.length === 0) return fail(id, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'No partition reassignment is in progress.');
  const original = w.replicas.filter((r) => !w.adding.includes(r));
  const isr = w.isr.filter((r) => original.includes(r));
  if (isr.length === 0) return fail(id, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Cancelling would leave the partition without an in-sync replica.');
  w.replicas = original;
  w.adding = [];
  w.removing = [];
  changes.setIsr(w, isr, []);
  w.elr = w.elr.filter((r) => original.includes(r));
  w.lastKnownElr = w.lastKnownElr.filter((r) => original.includes(r));
  if (!original.includes(w.leader)) changes.elect(w);
  return ok(id);
}

/** ListPartitionReassignments: the partition's reassignment in progress, or null. */
export function ongoingReassignment(p: PartitionState): { replicas: number[]; addingReplicas: number[]; removingReplicas: number[] } | null {
  if (p.addingReplicas.length === 0 && p.removingReplicas.length === 0) return null;
  return { replicas: [...p.replicas], addingReplicas: [...p.addingReplicas], removingReplicas: [...p.removingReplicas] };
}

/** Partitions without a leader, with an ISR smaller than the replicas, and with an ISR below min.insync.replicas. */
export function partitionCounts(image: MetadataImage, policy: ElectionPolicy): { offline: number; underReplicated: number; underMinIsr: number } {
  let offline = 0;
  let underReplicated = 0;
  let underMinIsr = 0;
  for (const t of image.topics()) {
    const minIsr = policy.minIsr(t.name);
    for (const p of t.partitions.values()) {
      if (p.leader === NO_LEADER) offline++;
      if (p.isr.length < p.replicas.length - p.addingReplicas.length) underReplicated++;
      if (p.isr.length < minIsr) underMinIsr++;
    }
  }
  return { offline, underReplicated, underMinIsr };
}

/**
 * AlterPartition (API 56; KIP-497, KIP-704, KIP-841, KIP-903): a partition
 * leader asks the active controller to change its ISR (and leader recovery
 * state). Validated per partition against the image with the rules of
 * KRaft's ReplicationControlManager.alterPartition, in this order:
 *
 *   sender not registered with that broker epoch   STALE_BROKER_EPOCH (whole request)
 *   unknown topic / partition                      UNKNOWN_TOPIC_ID (v2+, by id) / UNKNOWN_TOPIC_OR_PARTITION
 *   leader epoch or partition epoch newer than ours NOT_CONTROLLER (we are likely a stale controller)
 *   leader epoch older                              FENCED_LEADER_EPOCH
 *   sender is not the leader                        INVALID_REQUEST
 *   partition epoch older                           INVALID_UPDATE_VERSION
 *   new ISR with duplicates or non-replicas, or
 *   without the leader                              INVALID_REQUEST
 *   leaderRecoveryState unknown, RECOVERING with
 *   more than one ISR member, RECOVERED->RECOVERING INVALID_REQUEST
 *   an ISR member not registered, fenced, in
 *   controlled shutdown, or with another broker
 *   epoch than the request names (v3, KIP-903)     INELIGIBLE_REPLICA (v2+; OPERATION_NOT_ATTEMPTED before)
 *
 * A valid change becomes one PartitionChangeRecord (ISR, ELR by KIP-966's
 * rule, recovery state); an unchanged state is answered as it is, with no
 * record. When the new ISR holds every target replica of a reassignment in
 * progress, the reassignment completes in the same record (KIP-455): the
 * replicas become the target, adding/removing are cleared, and if the leader
 * is no longer a replica a new one is elected; the sender then gets
 * NEW_LEADER_ELECTED (v2+; FENCED_LEADER_EPOCH before) so it refreshes its
 * metadata, as in Kafka.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { MetadataImage, PartitionState } from './metadata/image.js';
import { LeaderRecoveryState, type MetadataRecord } from './metadata/records.js';
import { PartitionChanges, type ElectionPolicy, type PartitionWork } from './leadership.js';

export interface AlterPartitionItem {
  readonly partitionIndex: number;
  readonly leaderEpoch: number;
  /** Proposed ISR; brokerEpoch -1 = not checked (requests before v3). */
  readonly newIsr: readonly { readonly brokerId: number; readonly brokerEpoch: bigint }[];
  readonly leaderRecoveryState: number;
  readonly partitionEpoch: number;
}

export interface AlterPartitionRequest {
  /** The wire version (it decides topic lookup and some error codes). */
  readonly version: number;
  readonly brokerId: number;
  readonly brokerEpoch: bigint;
  /** v0-1 name topics by `topicName`, v2+ by `topicId`. */
  readonly topics: readonly { readonly topicName: string; readonly topicId: string; readonly partitions: readonly AlterPartitionItem[] }[];
}

export interface AlterPartitionItemResult {
  partitionIndex: number;
  /** An ErrorCode (plain number: replies also come decoded from the wire). */
  errorCode: number;
  leaderId: number;
  leaderEpoch: number;
  isr: number[];
  leaderRecoveryState: number;
  partitionEpoch: number;
}

export interface AlterPartitionReply {
  errorCode: number;
  topics: { topicName: string; topicId: string; partitions: AlterPartitionItemResult[] }[];
}

export interface AlterPartitionPlan {
  reply: AlterPartitionReply;
  records: MetadataRecord[];
  changes: PartitionChanges | null;
}

const failed = (partitionIndex: number, errorCode: ErrorCode): AlterPartitionItemResult => ({
  partitionIndex,
  errorCode,
  leaderId: -1,
  leaderEpoch: -1,
  isr: [],
  leaderRecoveryState: 0,
  partitionEpoch: -1,
});

export function planAlterPartition(image: MetadataImage, policy: ElectionPolicy, req: AlterPartitionRequest): AlterPartitionPlan {
  const sender = image.broker(req.brokerId);
  if (sender === undefined || sender.brokerEpoch !== req.brokerEpoch) {
    return { reply: { errorCode: ErrorCode.STALE_BROKER_EPOCH, topics: [] }, records: [], changes: null };
  }
  const changes = new PartitionChanges(image, policy);
  const topics = req.topics.map((t) => {
    const topic = req.version >= 2 ? image.topicById(t.topicId) : image.topicByName(t.topicName);
    const unknown = req.version >= 2 ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const partitions = t.partitions.map((item): AlterPartitionItemResult => {
      const p = topic?.partitions.get(item.partitionIndex);
      if (topic === undefined || p === undefined) return failed(item.partitionIndex, topic === undefined ? unknown : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      const invalid = validateItem(image, req, p, item);
      if (invalid !== ErrorCode.NONE) return failed(item.partitionIndex, invalid);
      return applyItem(changes, topic.topicId, req, p, item);
    });
    return { topicName: t.topicName, topicId: t.topicId, partitions };
  });
  return { reply: { errorCode: ErrorCode.NONE, topics }, records: changes.records(), changes };
}

function validateItem(image: MetadataImage, req: AlterPartitionRequest, p: PartitionState, item: AlterPartitionItem): ErrorCode {
  if (item.leaderEpoch > p.leaderEpoch || item.partitionEpoch > p.partitionEpoch) return ErrorCode.NOT_CONTROLLER;
  if (item.leaderEpoch < p.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (req.brokerId !== p.leader) return ErrorCode.INVALID_REQUEST;
  if (item.partitionEpoch < p.partitionEpoch) return ErrorCode.INVALID_UPDATE_VERSION;
  const isr = item.newIsr.map((m) => m.brokerId);
  if (new Set(isr).size !== isr.length || !isr.every((id) => p.replicas.includes(id))) return ErrorCode.INVALID_REQUEST;
  if (!isr.includes(p.leader)) return ErrorCode.INVALID_REQUEST;
  const recovery = item.leaderRecoveryState;
  if (recovery !== LeaderRecoveryState.Recovered && recovery !== LeaderRecoveryState.Recovering) return ErrorCode.INVALID_REQUEST;
  if (recovery === LeaderRecoveryState.Recovering && isr.length > 1) return ErrorCode.INVALID_REQUEST;
  if (p.leaderRecoveryState === LeaderRecoveryState.Recovered && recovery === LeaderRecoveryState.Recovering) return ErrorCode.INVALID_REQUEST;
  const ineligible = item.newIsr.some((m) => {
    const b = image.broker(m.brokerId);
    return b === undefined || b.inControlledShutdown || b.fenced || (m.brokerEpoch !== -1n && m.brokerEpoch !== b.brokerEpoch);
  });
  if (ineligible) return req.version >= 2 ? ErrorCode.INELIGIBLE_REPLICA : ErrorCode.OPERATION_NOT_ATTEMPTED;
  return ErrorCode.NONE;
}

function applyItem(changes: PartitionChanges, topicId: string, req: AlterPartitionRequest, p: PartitionState, item: AlterPartitionItem): AlterPartitionItemResult {
  const w = changes.work(topicId, p.partitionId) as PartitionWork;
  changes.setIsr(w, item.newIsr.map((m) => m.brokerId));
  w.recovery = item.leaderRecoveryState;
  completeReassignment(changes, w);
  const leaderChanged = w.leader !== p.leader;
  if (leaderChanged) return failed(item.partitionIndex, req.version >= 2 ? ErrorCode.NEW_LEADER_ELECTED : ErrorCode.FENCED_LEADER_EPOCH);
  const changed = !sameState(w, p);
  return {
    partitionIndex: item.partitionIndex,
    errorCode: ErrorCode.NONE,
    leaderId: w.leader,
    leaderEpoch: p.leaderEpoch,
    isr: [...w.isr],
    leaderRecoveryState: w.recovery,
    partitionEpoch: changed ? p.partitionEpoch + 1 : p.partitionEpoch,
  };
}

/**
 * KIP-455: a reassignment completes once the ISR holds every target replica
 * (the replicas minus the removing ones): the removing replicas go, the
 * lists are cleared, and a leader that is no longer a replica is replaced.
 */
export function completeReassignment(changes: PartitionChanges, w: PartitionWork): boolean {
  if (w.adding.length === 0 && w.removing.length === 0) return false;
  const target = w.replicas.filter((id) => !w.removing.includes(id));
  if (!target.every((id) => w.isr.includes(id))) return false;
  w.replicas = target;
  w.adding = [];
  w.removing = [];
  changes.setIsr(w, w.isr.filter((id) => target.includes(id)), []);
  w.elr = w.elr.filter((id) => target.includes(id));
  w.lastKnownElr = w.lastKnownElr.filter((id) => target.includes(id));
  if (!target.includes(w.leader)) changes.elect(w);
  return true;
}

function sameState(w: PartitionWork, p: PartitionState): boolean {
  const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => b[i] === x);
  return (
    same(w.isr, p.isr) &&
    same(w.elr, p.elr) &&
    same(w.lastKnownElr, p.lastKnownElr) &&
    same(w.replicas, p.replicas) &&
    same(w.adding, p.addingReplicas) &&
    same(w.removing, p.removingReplicas) &&
    w.leader === p.leader &&
    w.recovery === p.leaderRecoveryState
  );
}

/**
 * Partition leadership, ISR and ELR changes (KRaft's PartitionChangeBuilder
 * and ReplicationControlManager.generateLeaderAndIsrUpdates), as pure
 * functions of the image: they produce PartitionChangeRecords, never touch
 * state. Several changes can be made in one batch: `PartitionChanges` keeps
 * the working state of each touched partition so the records compose.
 *
 * Liveness:
 *  - A broker leaving (fenced, in controlled shutdown, replaced by a new
 *    incarnation) leaves the ISR of its partitions unless it is the last ISR
 *    member (the last member is kept: it is the one that has the data). A
 *    member that leaves an ISR which is then below min.insync.replicas joins
 *    the Eligible Leader Replicas (KIP-966): it still holds every record the
 *    leader acknowledged (acks=all needs min ISR members), so it may lead
 *    again without loss. An ISR back at min.insync.replicas or above clears
 *    the ELR. Leadership of the partitions it led moves (see election).
 *  - A broker that restarted after an unclean shutdown (KIP-966: its
 *    registration's previousBrokerEpoch is not the epoch it had) may have
 *    lost its unflushed tail: it leaves every ISR (even as the last member)
 *    and every ELR. When ISR and ELR become empty, it is remembered as the
 *    partition's lastKnownElr.
 *  - A broker arriving (unfenced) may lead the leaderless partitions.
 *
 * Election (a partition without an eligible leader), in this order:
 *   1. the first replica (replica order) in the ISR that may lead;
 *   2. the first ELR member that may lead: ISR = [it] (KIP-966);
 *   3. ISR and ELR empty and lastKnownElr = [x] with x able to lead: x, the
 *      last replica known to hold the data (KIP-966's last-known-leader rule);
 *   4. with unclean.leader.election.enable (topic, else broker default), the
 *      first live replica: ISR = [it], ELR cleared, leaderRecoveryState
 *      RECOVERING (KIP-704), and the election is listed in `uncleanElections`
 *      (it may lose acknowledged records);
 *   else no leader (-1): the partition is offline.
 * "May lead" = registered, unfenced, not in controlled shutdown, and not
 * leaving in this batch (or arriving in it).
 */
import type { MetadataImage, PartitionState } from './metadata/image.js';
import { LeaderRecoveryState, NO_LEADER, NO_LEADER_CHANGE, type MetadataRecord } from './metadata/records.js';

/** Per-topic election settings (topic config, else the broker default). */
export interface ElectionPolicy {
  /** min.insync.replicas */
  minIsr(topicName: string): number;
  /** unclean.leader.election.enable */
  uncleanOk(topicName: string): boolean;
}

export const DEFAULT_ELECTION_POLICY: ElectionPolicy = { minIsr: () => 1, uncleanOk: () => false };

/** How a leader was chosen (for logs and metrics). */
export type ElectionKind = 'isr' | 'elr' | 'last_known' | 'unclean' | 'preferred' | 'none';

export interface Election {
  readonly topicName: string;
  readonly partitionId: number;
  readonly leader: number;
  readonly kind: ElectionKind;
}

interface Working {
  readonly topicId: string;
  readonly topicName: string;
  readonly start: PartitionState;
  replicas: readonly number[];
  adding: readonly number[];
  removing: readonly number[];
  isr: readonly number[];
  elr: readonly number[];
  lastKnownElr: readonly number[];
  leader: number;
  recovery: number;
}

const sameList = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => b[i] === x);
const without = (list: readonly number[], id: number): number[] => list.filter((x) => x !== id);

export class PartitionChanges {
  private readonly touched = new Map<string, Working>();
  /** Brokers that must not lead (leaving in this batch). */
  private readonly leaving = new Set<number>();
  /** Brokers that may lead although the image still says fenced (arriving in this batch). */
  private readonly arriving = new Set<number>();
  /** Leader elections made by this batch, in order. */
  readonly elections: Election[] = [];

  constructor(
    private readonly image: MetadataImage,
    private readonly policy: ElectionPolicy = DEFAULT_ELECTION_POLICY,
  ) {}

  /** Whether `brokerId` may lead in the state this batch produces. */
  mayLead(brokerId: number): boolean {
    if (this.leaving.has(brokerId)) return false;
    if (this.arriving.has(brokerId)) return true;
    const b = this.image.broker(brokerId);
    return b !== undefined && !b.fenced && !b.inControlledShutdown;
  }

  /** Elections made by this batch that may have lost acknowledged records. */
  get uncleanElections(): Election[] {
    return this.elections.filter((e) => e.kind === 'unclean');
  }

  private *all(): Generator<Working | { topicId: string; topicName: string; p: PartitionState }> {
    for (const t of this.image.topics()) {
      for (const p of t.partitions.values()) yield this.touched.get(`${t.topicId}:${p.partitionId}`) ?? { topicId: t.topicId, topicName: t.name, p };
    }
  }

  /** The working state of one partition (created on first touch). */
  work(topicId: string, partitionId: number): Working | undefined {
    const key = `${topicId}:${partitionId}`;
    let w = this.touched.get(key);
    if (w !== undefined) return w;
    const t = this.image.topicById(topicId);
    const p = t?.partitions.get(partitionId);
    if (t === undefined || p === undefined) return undefined;
    w = {
      topicId,
      topicName: t.name,
      start: p,
      replicas: p.replicas,
      adding: p.addingReplicas,
      removing: p.removingReplicas,
      isr: p.isr,
      elr: p.elr,
      lastKnownElr: p.lastKnownElr,
      leader: p.leader,
      recovery: p.leaderRecoveryState,
    };
    this.touched.set(key, w);
    return w;
  }

  private view(x: Working | { topicId: string; topicName: string; p: PartitionState }): { topicId: string; partitionId: number; leader: number; isr: readonly number[]; elr: readonly number[]; replicas: readonly number[] } {
    if ('p' in x) return { topicId: x.topicId, partitionId: x.p.partitionId, leader: x.p.leader, isr: x.p.isr, elr: x.p.elr, replicas: x.p.replicas };
    return { topicId: x.topicId, partitionId: x.start.partitionId, leader: x.leader, isr: x.isr, elr: x.elr, replicas: x.replicas };
  }

  /**
   * Sets the ISR and keeps the ELR rule (KIP-966): below min ISR, members
   * that left (cleanly) join the ELR; at or above it the ELR is cleared.
   */
  setIsr(w: Working, isr: readonly number[], cleanlyLeft: readonly number[] = w.isr.filter((id) => !isr.includes(id))): void {
    w.isr = [...isr];
    if (isr.length >= this.policy.minIsr(w.topicName)) {
      w.elr = [];
      w.lastKnownElr = [];
    } else {
      const joined = new Set([...w.elr, ...cleanlyLeft].filter((id) => !isr.includes(id) && w.replicas.includes(id)));
      w.elr = w.replicas.filter((id) => joined.has(id));
    }
  }

  /** `brokerId` stops leading and leaves the ISR (unless last) of every partition; `unclean`: also the last place and every ELR. */
  removeBroker(brokerId: number, options: { unclean?: boolean } = {}): void {
    const unclean = options.unclean === true;
    this.leaving.add(brokerId);
    this.arriving.delete(brokerId);
    for (const x of [...this.all()]) {
      const v = this.view(x);
      if (v.leader !== brokerId && !v.isr.includes(brokerId) && !(unclean && v.elr.includes(brokerId))) continue;
      const w = this.work(v.topicId, v.partitionId) as Working;
      const isr = without(w.isr, brokerId);
      if (unclean) {
        this.setIsr(w, isr, []);
        w.elr = without(w.elr, brokerId);
        if (w.isr.length === 0 && w.elr.length === 0) w.lastKnownElr = [brokerId];
      } else if (isr.length > 0 && isr.length !== w.isr.length) {
        this.setIsr(w, isr);
      }
      if (w.leader === brokerId || !this.mayLeadHere(w, w.leader)) this.elect(w);
    }
  }

  private mayLeadHere(w: Working, id: number): boolean {
    return id !== NO_LEADER && w.isr.includes(id) && this.mayLead(id);
  }

  /** `brokerId` (now eligible) leads the leaderless partitions it can lead by the election order. */
  addBroker(brokerId: number): void {
    this.arriving.add(brokerId);
    this.leaving.delete(brokerId);
    for (const x of [...this.all()]) {
      const v = this.view(x);
      if (v.leader !== NO_LEADER || !v.replicas.includes(brokerId)) continue;
      this.elect(this.work(v.topicId, v.partitionId) as Working);
    }
  }

  /** Chooses a leader by the election order (module comment); sets it, and ISR/ELR/recovery as the rule says. */
  elect(w: Working): number {
    const can = (id: number): boolean => this.mayLead(id);
    const fromIsr = w.replicas.find((id) => w.isr.includes(id) && can(id));
    if (fromIsr !== undefined) return this.setLeader(w, fromIsr, 'isr');
    const fromElr = w.replicas.find((id) => w.elr.includes(id) && can(id));
    if (fromElr !== undefined) {
      w.isr = [fromElr];
      w.elr = without(w.elr, fromElr);
      if (w.isr.length >= this.policy.minIsr(w.topicName)) w.elr = [];
      return this.setLeader(w, fromElr, 'elr');
    }
    const last = w.lastKnownElr.length === 1 ? w.lastKnownElr[0] : undefined;
    if (w.isr.length === 0 && w.elr.length === 0 && last !== undefined && w.replicas.includes(last) && can(last)) {
      w.isr = [last];
      w.lastKnownElr = [];
      return this.setLeader(w, last, 'last_known');
    }
    if (this.policy.uncleanOk(w.topicName)) {
      const any = w.replicas.find(can);
      if (any !== undefined) {
        w.isr = [any];
        w.elr = [];
        w.lastKnownElr = [];
        w.recovery = LeaderRecoveryState.Recovering;
        return this.setLeader(w, any, 'unclean');
      }
    }
    return this.setLeader(w, NO_LEADER, 'none');
  }

  /** Makes `leader` lead (no checks: the caller chose it). */
  setLeader(w: Working, leader: number, kind: ElectionKind): number {
    if (leader !== w.leader) this.elections.push({ topicName: w.topicName, partitionId: w.start.partitionId, leader, kind });
    w.leader = leader;
    return leader;
  }

  /** One PartitionChangeRecord per touched partition that differs from the image. */
  records(): MetadataRecord[] {
    const out: MetadataRecord[] = [];
    for (const w of this.touched.values()) {
      const r = changeRecord(w);
      if (r !== null) out.push(r);
    }
    return out;
  }
}

function changeRecord(w: Working): MetadataRecord | null {
  const s = w.start;
  const changed = <T extends readonly number[]>(now: T, before: readonly number[]): number[] | null => (sameList(now, before) ? null : [...now]);
  const data = {
    partitionId: s.partitionId,
    topicId: w.topicId,
    isr: changed(w.isr, s.isr),
    leader: w.leader === s.leader ? NO_LEADER_CHANGE : w.leader,
    replicas: changed(w.replicas, s.replicas),
    removingReplicas: changed(w.removing, s.removingReplicas),
    addingReplicas: changed(w.adding, s.addingReplicas),
    leaderRecoveryState: w.recovery === s.leaderRecoveryState ? -1 : w.recovery,
    eligibleLeaderReplicas: changed(w.elr, s.elr),
    lastKnownElr: changed(w.lastKnownElr, s.lastKnownElr),
  };
  const any =
    data.isr !== null ||
    data.leader !== NO_LEADER_CHANGE ||
    data.replicas !== null ||
    data.removingReplicas !== null ||
    data.addingReplicas !== null ||
    data.leaderRecoveryState !== -1 ||
    data.eligibleLeaderReplicas !== null ||
    data.lastKnownElr !== null;
  return any ? { type: 'PartitionChangeRecord', data } : null;
}

export type { Working as PartitionWork };

/** Partitions `brokerId` leads in the image. */
export function ledPartitionCount(image: MetadataImage, brokerId: number): number {
  let n = 0;
  for (const t of image.topics()) for (const p of t.partitions.values()) if (p.leader === brokerId) n++;
  return n;
}

/**
 * Partition leadership and ISR changes caused by broker liveness (KRaft's
 * ReplicationControlManager.generateLeaderAndIsrUpdates), as pure functions
 * of the image: they produce PartitionChangeRecords, never touch state.
 *
 *  - A broker leaving (fenced, in controlled shutdown, replaced by a new
 *    incarnation) leaves the ISR of its partitions unless it is the last ISR
 *    member (the last member is kept: it is the one that has the data), and
 *    leadership of the partitions it led moves to the first other replica
 *    (replica order) that is in the ISR and eligible; with none, the
 *    partition has no leader (-1). The image bumps the leader epoch.
 *  - A broker arriving (unfenced) becomes leader of the leaderless partitions
 *    whose ISR holds it (with one replica per partition: all of its own).
 *
 * Several brokers can change in one batch: `PartitionChanges` keeps the
 * working state of each touched partition so the records compose.
 */
import type { MetadataImage, PartitionState } from './metadata/image.js';
import { NO_LEADER, NO_LEADER_CHANGE, type MetadataRecord } from './metadata/records.js';

interface Working {
  readonly topicId: string;
  readonly partitionId: number;
  readonly start: PartitionState;
  isr: readonly number[];
  leader: number;
}

export class PartitionChanges {
  private readonly touched = new Map<string, Working>();
  /** Brokers that must not lead (leaving in this batch). */
  private readonly leaving = new Set<number>();
  /** Brokers that may lead although the image still says fenced (arriving in this batch). */
  private readonly arriving = new Set<number>();

  constructor(private readonly image: MetadataImage) {}

  private eligible(brokerId: number): boolean {
    if (this.leaving.has(brokerId)) return false;
    if (this.arriving.has(brokerId)) return true;
    const b = this.image.broker(brokerId);
    return b !== undefined && !b.fenced && !b.inControlledShutdown;
  }

  private *partitions(): Generator<{ topicId: string; p: PartitionState; w: Working | undefined }> {
    for (const t of this.image.topics()) {
      for (const p of t.partitions.values()) yield { topicId: t.topicId, p, w: this.touched.get(`${t.topicId}:${p.partitionId}`) };
    }
  }

  private work(topicId: string, p: PartitionState): Working {
    const key = `${topicId}:${p.partitionId}`;
    let w = this.touched.get(key);
    if (w === undefined) {
      w = { topicId, partitionId: p.partitionId, start: p, isr: p.isr, leader: p.leader };
      this.touched.set(key, w);
    }
    return w;
  }

  /** `brokerId` stops being a leader and an ISR member (unless last) of every partition. */
  removeBroker(brokerId: number): void {
    this.leaving.add(brokerId);
    this.arriving.delete(brokerId);
    for (const { topicId, p, w } of this.partitions()) {
      const isr = w?.isr ?? p.isr;
      const leader = w?.leader ?? p.leader;
      if (leader !== brokerId && !isr.includes(brokerId)) continue;
      const x = this.work(topicId, p);
      const without = isr.filter((id) => id !== brokerId);
      if (without.length > 0) x.isr = without;
      if (leader === brokerId) x.leader = p.replicas.find((id) => x.isr.includes(id) && this.eligible(id)) ?? NO_LEADER;
    }
  }

  /** `brokerId` (now eligible) leads the leaderless partitions whose ISR holds it. */
  addBroker(brokerId: number): void {
    this.arriving.add(brokerId);
    this.leaving.delete(brokerId);
    for (const { topicId, p, w } of this.partitions()) {
      const isr = w?.isr ?? p.isr;
      const leader = w?.leader ?? p.leader;
      if (leader !== NO_LEADER || !isr.includes(brokerId)) continue;
      this.work(topicId, p).leader = brokerId;
    }
  }

  /** One PartitionChangeRecord per partition whose ISR or leader differs from the image. */
  records(): MetadataRecord[] {
    const out: MetadataRecord[] = [];
    for (const w of this.touched.values()) {
      const isrChanged = w.isr.length !== w.start.isr.length || w.isr.some((id, i) => w.start.isr[i] !== id);
      const leaderChanged = w.leader !== w.start.leader;
      if (!isrChanged && !leaderChanged) continue;
      out.push({
        type: 'PartitionChangeRecord',
        data: {
          partitionId: w.partitionId,
          topicId: w.topicId,
          isr: isrChanged ? [...w.isr] : null,
          leader: leaderChanged ? w.leader : NO_LEADER_CHANGE,
          replicas: null,
          removingReplicas: null,
          addingReplicas: null,
          leaderRecoveryState: -1,
        },
      });
    }
    return out;
  }
}

/** Partitions `brokerId` leads in the image. */
export function ledPartitionCount(image: MetadataImage, brokerId: number): number {
  let n = 0;
  for (const t of image.topics()) for (const p of t.partitions.values()) if (p.leader === brokerId) n++;
  return n;
}

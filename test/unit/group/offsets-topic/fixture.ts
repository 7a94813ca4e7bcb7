/**
 * Test-only: __consumer_offsets partitions as real PartitionLogs on a
 * MemoryFileSystem, each wrapped in a one-replica Partition led by node 1,
 * and a model of what the store wrote (latest value per key).
 */
import { Partition } from '../../../../src/replication/partition.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../../src/storage/config.js';
import { MemoryFileSystem } from '../../../../src/storage/memory-fs.js';
import { PartitionLog } from '../../../../src/storage/partition-log.js';
import { ManualClock } from '../../../../src/util/clock.js';
import type { CommittedOffset, GroupSnapshot, LoadedPartitionState } from '../../../../src/broker/group/types.js';
import { OffsetsTopicStore, type OffsetsTopicStoreOptions } from '../../../../src/broker/group/offsets-topic/store.js';

export const NODE_ID = 1;
export const TOPIC = '__consumer_offsets';

export class OffsetsEnv {
  readonly fs = new MemoryFileSystem();
  readonly clock = new ManualClock();
  readonly partitions: (Partition | undefined)[] = [];

  constructor(
    readonly numPartitions: number,
    readonly config: LogConfig = { ...DEFAULT_LOG_CONFIG, segmentBytes: 100 * 1024 },
  ) {
    this.fs.mkdirp('/data');
    for (let i = 0; i < numPartitions; i++) this.partitions.push(this.open(i));
  }

  /** Opens (or reopens after a crash/close) the log of partition i, with recovery. */
  open(i: number): Partition {
    const { log } = PartitionLog.open({
      fs: this.fs, clock: this.clock, dir: `/data/${TOPIC}-${i}`, topic: TOPIC, partition: i, config: this.config,
    });
    const p = new Partition(TOPIC, i, 'offsets-topic-id', log, NODE_ID, NODE_ID, 0, [NODE_ID], [NODE_ID]);
    this.partitions[i] = p;
    return p;
  }

  /** Closes every log and opens it again (a clean restart). */
  restart(): void {
    for (const p of this.partitions) p?.log.close();
    for (let i = 0; i < this.numPartitions; i++) this.open(i);
  }

  /** A power cut: unflushed bytes are lost (with `random`, a torn prefix may survive); logs reopen with recovery. */
  crash(random?: Parameters<MemoryFileSystem['crash']>[0]): void {
    this.fs.crash(random);
    for (let i = 0; i < this.numPartitions; i++) this.open(i);
  }

  partition(i: number): Partition {
    const p = this.partitions[i];
    if (p === undefined) throw new Error(`partition ${i} is not open`);
    return p;
  }

  store(extra: Partial<OffsetsTopicStoreOptions> = {}): OffsetsTopicStore {
    return new OffsetsTopicStore({
      numPartitions: this.numPartitions,
      partitionFor: (n) => this.partitions[n],
      clock: this.clock,
      ...extra,
    });
  }
}

/** What the store was asked to keep: latest value per key, tombstones removing. */
export class Model {
  readonly groups = new Map<string, GroupSnapshot>();
  readonly offsets = new Map<string, Map<string, CommittedOffset>>();

  setGroup(groupId: string, snapshot: GroupSnapshot | null): void {
    if (snapshot === null) this.groups.delete(groupId);
    else this.groups.set(groupId, snapshot);
  }

  setOffset(groupId: string, topic: string, partition: number, value: CommittedOffset | null): void {
    let byTp = this.offsets.get(groupId);
    if (byTp === undefined) {
      byTp = new Map();
      this.offsets.set(groupId, byTp);
    }
    if (value === null) byTp.delete(`${topic}\u0000${partition}`);
    else byTp.set(`${topic}\u0000${partition}`, value);
  }

  clone(): Model {
    const m = new Model();
    for (const [g, s] of this.groups) m.groups.set(g, s);
    for (const [g, byTp] of this.offsets) m.offsets.set(g, new Map(byTp));
    return m;
  }

  /** The state of the groups that live in one partition, in the loader's normal form. */
  expected(owns: (groupId: string) => boolean): NormalState {
    const groups = [...this.groups.entries()].filter(([g]) => owns(g)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([, s]) => s);
    const offsets: [string, CommittedOffset[]][] = [];
    for (const g of [...this.offsets.keys()].sort()) {
      if (!owns(g)) continue;
      const live = sortOffsets([...(this.offsets.get(g)?.values() ?? [])]);
      if (live.length > 0) offsets.push([g, live]);
    }
    return { groups, offsets };
  }
}

export interface NormalState {
  groups: GroupSnapshot[];
  offsets: [string, CommittedOffset[]][];
}

export function sortOffsets(list: CommittedOffset[]): CommittedOffset[] {
  return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

export function normal(state: LoadedPartitionState): NormalState {
  return {
    groups: [...state.groups].sort((a, b) => (a.groupId < b.groupId ? -1 : 1)),
    offsets: [...state.offsets.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([g, l]) => [g, sortOffsets([...l])]),
  };
}

export function commit(topic: string, partition: number, offset: bigint, extra: Partial<CommittedOffset> = {}): CommittedOffset {
  return { topic, partition, offset, leaderEpoch: 3, metadata: '', commitTimestampMs: 1_700_000_000_000, expireTimestampMs: null, ...extra };
}

export function snapshot(groupId: string, generationId: number, memberIds: readonly string[]): GroupSnapshot {
  return {
    groupId,
    protocolType: 'consumer',
    generationId,
    protocolName: memberIds.length === 0 ? null : 'range',
    leaderId: memberIds[0] ?? null,
    currentStateTimestampMs: 1_700_000_000_000 + generationId,
    members: memberIds.map((memberId, i) => ({
      memberId,
      groupInstanceId: i % 2 === 0 ? null : `instance-${memberId}`,
      clientId: 'client',
      clientHost: '/127.0.0.1',
      rebalanceTimeoutMs: 300_000,
      sessionTimeoutMs: 45_000,
      subscription: Buffer.from(`sub-${memberId}`),
      assignment: Buffer.from(`assignment-${memberId}-${generationId}`),
    })),
  };
}

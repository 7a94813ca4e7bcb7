/**
 * Test-only: __consumer_offsets partitions on the real data path: a
 * LogManager on a MemoryFileSystem, a ReplicaManager hosting every partition
 * (led by node 1, one replica), and the coordinator runtime the store writes
 * through. Timers are virtual (acks=all waits time out only when the test
 * advances them). Also a model of what the store wrote (latest value per key).
 */
import pino from 'pino';
import type { Partition } from '../../../../../src/replication/partition.js';
import { ReplicaManager } from '../../../../../src/replication/replica-manager.js';
import { CoordinatorRuntime, type CoordinatorWriter } from '../../../../../src/coordinator/runtime/coordinator-runtime.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../../../src/storage/config.js';
import { LogManager } from '../../../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../../../src/storage/memory-fs.js';
import { VirtualTimers } from '../../../../helpers/virtual-timers.js';
import type { CommittedOffset, GroupSnapshot, LoadedPartitionState } from '../../../../../src/coordinator/group/types.js';
import { OffsetsTopicStore, type OffsetsTopicStoreOptions } from '../../../../../src/coordinator/group/offsets-topic/store.js';

export const NODE_ID = 1;
export const TOPIC = '__consumer_offsets';
const TOPIC_ID = 'offsets-topic-id';
/** The runtime's acks=all wait (offsets.commit.timeout.ms). */
export const WRITE_TIMEOUT_MS = 5000;
const TOPIC_RULES = {
  maxMessageBytes: 1_048_588, segmentBytes: 1 << 30, messageTimestampType: 'CreateTime', timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER,
  timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: 1, compacted: true,
} as const;

export class OffsetsEnv {
  readonly fs = new MemoryFileSystem();
  readonly timers = new VirtualTimers();
  readonly clock = this.timers.clock;
  private logs!: LogManager;
  private rm!: ReplicaManager;
  private runtime!: CoordinatorRuntime<null>;
  /** The leader epoch of each partition's current assignment. */
  private readonly epochs: number[] = [];

  constructor(
    readonly numPartitions: number,
    readonly config: LogConfig = { ...DEFAULT_LOG_CONFIG, segmentBytes: 100 * 1024 },
  ) {
    this.fs.mkdirp('/data');
    for (let i = 0; i < numPartitions; i++) this.epochs.push(0);
    this.open();
  }

  /** The store's writer: always the current runtime, across restarts. */
  readonly writer: CoordinatorWriter = {
    partition: (n) => this.runtime.partition(n),
    append: (n, batch) => this.runtime.append(n, batch),
  };

  get replicaManager(): ReplicaManager {
    return this.rm;
  }

  /** The hosted partitions (undefined where not hosted). */
  get partitions(): (Partition | undefined)[] {
    return Array.from({ length: this.numPartitions }, (_, i) => this.rm.get(TOPIC, i));
  }

  /** Opens (with recovery) every log and hosts every partition, led here. */
  private open(): void {
    this.logs = LogManager.open({ fs: this.fs, clock: this.clock, dataDir: '/data', defaultConfig: this.config }).manager;
    this.rm = new ReplicaManager({
      logManager: this.logs,
      localNodeId: NODE_ID,
      logConfigFor: () => this.config,
      topicRules: () => ({ ...TOPIC_RULES, segmentBytes: this.config.segmentBytes }),
      topicExists: (topic) => topic === TOPIC,
      clock: this.clock,
      timers: this.timers,
      logger: pino({ level: 'silent' }),
    });
    this.runtime = new CoordinatorRuntime<null>({
      topic: TOPIC,
      numPartitions: this.numPartitions,
      replicaManager: this.rm,
      writeTimeoutMs: WRITE_TIMEOUT_MS,
      logger: pino({ level: 'silent' }),
      shards: { load: () => Promise.resolve(null), activate: () => {}, deactivate: () => {} },
    });
    for (let i = 0; i < this.numPartitions; i++) this.assign(i, NODE_ID, [NODE_ID]);
  }

  /** A metadata change for partition i: a new leader epoch with this leader and ISR. */
  assign(i: number, leader: number, isr: readonly number[], leaderEpoch = this.epochs[i] ?? 0): void {
    this.epochs[i] = leaderEpoch;
    const replicas = [...new Set([NODE_ID, ...isr, leader].filter((r) => r >= 0))];
    this.rm.applyAssignment({ topic: TOPIC, topicId: TOPIC_ID, partition: i, leader, leaderEpoch, partitionEpoch: leaderEpoch, replicas, isr });
  }

  /** Moves leadership of partition i to another node (a new epoch). */
  moveLeader(i: number, leader: number): void {
    this.assign(i, leader, [leader], (this.epochs[i] ?? 0) + 1);
  }

  /** Partition i stops being hosted here (its data stays). */
  unhost(i: number): void {
    this.rm.removePartition(TOPIC, i, false);
  }

  /** Hosts partition i again, led here. */
  rehost(i: number): void {
    this.assign(i, NODE_ID, [NODE_ID]);
  }

  /** Closes every log and opens it again (a clean restart). */
  restart(): void {
    this.logs.close();
    this.open();
  }

  /** A power cut: unflushed bytes are lost (with `random`, a torn prefix may survive); logs reopen with recovery. */
  crash(random?: Parameters<MemoryFileSystem['crash']>[0]): void {
    this.fs.crash(random);
    this.open();
  }

  partition(i: number): Partition {
    const p = this.rm.get(TOPIC, i);
    if (p === undefined) throw new Error(`partition ${i} is not open`);
    return p;
  }

  store(extra: Partial<OffsetsTopicStoreOptions> = {}): OffsetsTopicStore {
    return new OffsetsTopicStore({
      numPartitions: this.numPartitions,
      writer: this.writer,
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

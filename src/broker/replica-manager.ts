/**
 * The partitions this broker hosts, kept in step with the metadata image:
 * when the image says this node is a replica of a partition, its log is opened
 * (or created); when a topic disappears, its logs are deleted. Produce and
 * Fetch go through here.
 */
import type { Logger } from 'pino';
import { Partition } from '../replication/partition.js';
import type { LogManager } from '../storage/log-manager.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { LogConfig } from '../storage/config.js';
import { ErrorCode } from '../protocol/errors.js';
import { DelayedFetches } from './delayed-fetch.js';
import type { ReadAllocator } from '../storage/fs.js';

export interface PartitionAssignment {
  topic: string;
  topicId: string;
  partition: number;
  replicas: readonly number[];
  isr: readonly number[];
  leader: number;
  leaderEpoch: number;
}

export interface ReadResult {
  errorCode: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  chunks: Buffer[];
  bytes: number;
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>();
  readonly delayedFetches = new DelayedFetches();

  constructor(
    private readonly logManager: LogManager,
    private readonly localNodeId: number,
    private readonly logConfigFor: (topic: string) => LogConfig,
    private readonly logger: Logger,
  ) {}

  get(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(key(topic, partition));
  }

  all(): IterableIterator<Partition> {
    return this.partitions.values();
  }

  /** Opens or updates a partition this node replicates (called for metadata changes). */
  becomeReplica(a: PartitionAssignment): Partition | undefined {
    if (!a.replicas.includes(this.localNodeId)) {
      this.removePartition(a.topic, a.partition, false);
      return undefined;
    }
    const existing = this.partitions.get(key(a.topic, a.partition));
    if (existing) {
      existing.leaderId = a.leader;
      existing.leaderEpoch = a.leaderEpoch;
      existing.replicas = a.replicas;
      existing.isr = a.isr;
      existing.assignLeaderEpochStart();
      return existing;
    }
    const log = this.logManager.getOrCreateLog(a.topic, a.partition, this.logConfigFor(a.topic));
    const p = new Partition(a.topic, a.partition, a.topicId, log, this.localNodeId, a.leader, a.leaderEpoch, a.replicas, a.isr);
    this.partitions.set(key(a.topic, a.partition), p);
    return p;
  }

  /** Stops hosting a partition; with `deleteData` its log is removed from disk. */
  removePartition(topic: string, partition: number, deleteData: boolean): void {
    const k = key(topic, partition);
    const p = this.partitions.get(k);
    if (!p) return;
    this.partitions.delete(k);
    this.delayedFetches.wakeAll(p);
    // Without deleteData the log stays with the LogManager (a replica moved
    // away keeps its data until the controller says to delete it).
    if (deleteData) this.logManager.deleteLog(topic, partition);
    this.logger.info({ topic, partition, deleteData }, 'stopped hosting partition');
  }

  /** Applies a changed topic config to the open logs of that topic. */
  updateTopicConfig(topic: string): void {
    const cfg = this.logConfigFor(topic);
    for (const p of this.partitions.values()) if (p.topic === topic) p.log.updateConfig(cfg);
  }

  /**
   * Reads from `fetchOffset` up to the visible end (high watermark, or the
   * last stable offset for read_committed). Out-of-range offsets answer
   * OFFSET_OUT_OF_RANGE with the current bounds, as clients reset from them.
   * `allocate` supplies the Buffers the chunks are read into (Fetch: the
   * broker's `ioBuffers` pool, released after the socket write).
   */
  read(p: Partition, fetchOffset: bigint, maxBytes: number, readCommitted: boolean, minOneBatch: boolean, allocate?: ReadAllocator): ReadResult {
    const visibleEnd = readCommitted ? p.lastStableOffset : p.highWatermark;
    const base = {
      highWatermark: p.highWatermark,
      lastStableOffset: p.lastStableOffset,
      logStartOffset: p.logStartOffset,
    };
    if (fetchOffset < p.logStartOffset || fetchOffset > p.logEndOffset) {
      return { ...base, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, chunks: [], bytes: 0 };
    }
    if (fetchOffset >= visibleEnd || maxBytes <= 0) return { ...base, errorCode: ErrorCode.NONE, chunks: [], bytes: 0 };
    const r = p.log.read(fetchOffset, maxBytes, { maxOffsetExclusive: visibleEnd, minOneBatch, allocate });
    if (r.kind === 'offset_out_of_range') return { ...base, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, chunks: [], bytes: 0 };
    return { ...base, errorCode: ErrorCode.NONE, chunks: r.chunks, bytes: r.sizeBytes };
  }

  /**
   * The data directories and the partition logs in each (DescribeLogDirs):
   * every log the LogManager holds, hosted or not, as Kafka reports them.
   */
  logDirs(): { dir: string; logs: PartitionLog[] }[] {
    return [{ dir: this.logManager.dataDir, logs: this.logManager.allLogs() }];
  }

  /** Flushes every log (shutdown). */
  flushAll(): void {
    for (const p of this.partitions.values()) p.log.flush();
  }
}

/**
 * The tasks of one consumer (Kafka's TaskManager): a task per (sub-topology,
 * partition) for the partitions assigned, the offsets to commit for the
 * records processed, and the stores for interactive queries.
 */
import type { Admin, ConsumerBatch, TopicPartition } from '../../client/index.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import { Serdes, type Serde } from '../serdes.js';
import { changelogTopic, type StateStore } from '../state/store.js';
import type { Subtopology, Topology } from '../topology.js';
import type { ResolvedConfig } from './config.js';
import type { ProducerCollector } from './producer-collector.js';
import { restoreStores, type RestoreTarget } from './restore.js';
import { StreamTask } from './stream-task.js';
import type { RawRecord } from './collector.js';
import { RecordCache } from '../state/record-cache.js';
import { readCheckpoint, taskDir, wipeTaskDir, writeCheckpoint } from './checkpoint.js';

export class TaskManager {
  private readonly tasks = new Map<string, StreamTask>();
  private readonly subtopologies: Subtopology[];
  private readonly topicToSub = new Map<string, number>();
  private offsets = new Map<string, { topic: string; partition: number; offset: bigint }>();
  /** The record cache shared by the caching stores of these tasks (Kafka's per-thread ThreadCache). */
  private readonly cache: RecordCache;

  constructor(
    private readonly topology: Topology,
    private readonly config: ResolvedConfig,
    readonly collector: ProducerCollector,
    private readonly admin: Admin,
    private readonly requestCommit: () => void,
    private readonly globalStores: ReadonlyMap<string, StateStore> = new Map(),
  ) {
    this.cache = new RecordCache(config.statestoreCacheMaxBytes);
    this.subtopologies = topology.subtopologies();
    for (const s of this.subtopologies) for (const t of s.sourceTopics) this.topicToSub.set(this.resolve(t), s.id);
  }

  resolve(topic: string): string {
    return this.topology.isInternalTopic(topic) ? `${this.config.applicationId}-${topic}` : topic;
  }

  /** Creates the tasks of newly assigned partitions and restores their stores before they process anything. */
  async createFor(partitions: readonly TopicPartition[], partitionCounts: ReadonlyMap<string, number>): Promise<void> {
    const targets: RestoreTarget[] = [];
    for (const tp of partitions) {
      const id = this.taskId(tp);
      if (this.tasks.has(id)) continue;
      const sub = this.subtopologies[this.topicToSub.get(tp.topic) as number] as Subtopology;
      const dir = taskDir(this.config.stateDir, this.config.applicationId, id);
      const checkpoint = readCheckpoint(dir);
      // Without a checkpoint, files on disk may be older than the changelog says: start empty.
      if (checkpoint === null) wipeTaskDir(dir);
      const task = this.newTask(id, sub, tp.partition, dir);
      this.tasks.set(id, task);
      for (const store of sub.stores) {
        const topic = changelogTopic(this.config.applicationId, store);
        if (!this.topology.store(store)?.loggingEnabled || !partitionCounts.has(topic)) continue;
        if (task.wipedStores.has(store)) this.config.logger('warn', `store '${store}' of task ${id} had unreadable files: wiped, restoring it in full from ${topic}`);
        const persistent = task.stateStores.get(store)?.persistent === true && !task.wipedStores.has(store);
        const from = persistent ? (checkpoint?.get(`${topic}:${tp.partition}`) ?? null) : null;
        targets.push({ task, store, topic, partition: tp.partition, from });
      }
    }
    const reached = await restoreStores(this.config.bootstrapServers, this.admin, targets, this.config.logger);
    for (const [k, offset] of reached) if (offset > (this.collector.changelogOffsets.get(k) ?? -1n)) this.collector.changelogOffsets.set(k, offset);
  }

  /**
   * After a commit: records, per task with persistent stores, how far its
   * stores hold the changelog. The stores are flushed first, so every
   * acknowledged changelog offset is on disk: the checkpoint may lag the
   * disk (replaying a few changes is harmless) but never lead it.
   */
  writeCheckpoints(): void {
    this.flushStores();
    for (const task of this.tasks.values()) {
      const offsets = new Map<string, bigint>();
      for (const store of task.stateStores.values()) {
        if (!store.persistent || !this.topology.store(store.name)?.loggingEnabled) continue;
        const k = `${changelogTopic(this.config.applicationId, store.name)}:${task.partition}`;
        const offset = this.collector.changelogOffsets.get(k);
        if (offset !== undefined) offsets.set(k, offset);
      }
      if (offsets.size > 0) writeCheckpoint(taskDir(this.config.stateDir, this.config.applicationId, task.id), offsets);
    }
  }

  /** Closes the tasks of revoked or lost partitions (committed before, when revoked). */
  closeFor(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      const id = this.taskId(tp);
      this.tasks.get(id)?.close();
      this.tasks.delete(id);
      this.offsets.delete(`${tp.topic}:${tp.partition}`);
    }
  }

  closeAll(): void {
    for (const t of this.tasks.values()) t.close();
    this.tasks.clear();
    this.offsets.clear();
  }

  /** Processes a batch of one partition; its offsets become committable. */
  processBatch(batch: ConsumerBatch<Buffer | null, Buffer | null>): void {
    const task = this.tasks.get(this.taskId(batch));
    if (task === undefined) throw new StreamsError(StreamsErrorCode.STATE, `no task for ${batch.topic}-${batch.partition}`);
    const records = batch.records;
    if (records.length === 0) return;
    for (let i = 0; i < records.length; i++) {
      task.process(records[i] as RawRecord); // a consumer record has every RawRecord field: no copy
      task.punctuateStreamTime();
    }
    const last = records[records.length - 1] as RawRecord;
    this.offsets.set(`${batch.topic}:${batch.partition}`, { topic: batch.topic, partition: batch.partition, offset: last.offset + 1n });
    this.collector.drain();
  }

  /** The offsets processed since the last call. */
  takeOffsets(): { topic: string; partition: number; offset: bigint }[] {
    const out = [...this.offsets.values()];
    this.offsets = new Map();
    return out;
  }

  flushStores(): void {
    for (const t of this.tasks.values()) t.flush();
  }

  punctuateWallClock(nowMs: number): void {
    for (const t of this.tasks.values()) t.punctuateWallClock(nowMs);
    this.collector.drain();
  }

  storesNamed(name: string): StateStore[] {
    return [...this.tasks.values()].flatMap((t) => {
      const s = t.stateStores.get(name);
      return s === undefined ? [] : [s];
    });
  }

  private taskId(tp: { topic: string; partition: number }): string {
    const sub = this.topicToSub.get(tp.topic);
    if (sub === undefined) throw new StreamsError(StreamsErrorCode.STATE, `topic '${tp.topic}' is not read by the topology`);
    return `${sub}_${tp.partition}`;
  }

  private newTask(id: string, sub: Subtopology, partition: number, dir: string): StreamTask {
    const task = new StreamTask({
      applicationId: this.config.applicationId,
      taskId: id,
      partition,
      topology: this.topology,
      nodes: sub.nodes,
      stateDir: dir,
      defaultKeySerde: this.config.defaultKeySerde ?? (Serdes.ByteArray() as Serde<unknown>),
      defaultValueSerde: this.config.defaultValueSerde ?? (Serdes.ByteArray() as Serde<unknown>),
      collector: this.collector,
      wallClockMs: () => Date.now(),
      onDeserializationError: this.config.onDeserializationError,
      requestCommit: this.requestCommit,
      globalStores: this.globalStores,
      cache: this.cache,
    });
    task.init();
    return task;
  }
}

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
import type { FetchedRecord } from './collector.js';
import { RecordCache } from '../state/record-cache.js';
import { checkpointedOffsetSums, deleteCheckpoint, readCheckpoint, taskDir, wipeTaskDir, writeCheckpoint } from './checkpoint.js';
import { parseTaskId, taskIdOf } from './assignment-info.js';
import { StandbyTasks, type StandbyTarget } from './standby-tasks.js';
import { FetchDeserializers } from './fetch-deserializers.js';

export class TaskManager {
  private readonly tasks = new Map<string, StreamTask>();
  private readonly subtopologies: Subtopology[];
  private readonly topicToSub = new Map<string, number>();
  private offsets = new Map<string, { topic: string; partition: number; offset: bigint }>();
  /** The record cache shared by the caching stores of these tasks (Kafka's per-thread ThreadCache). */
  private readonly cache: RecordCache;
  private wantedStandbys = new Set<string>();
  readonly standbys: StandbyTasks;
  /** The deserializers of the thread's Consumer (source topics it deserializes itself; the tasks are told which). */
  readonly fetchDeserializers: FetchDeserializers;

  constructor(
    private readonly topology: Topology,
    private readonly config: ResolvedConfig,
    readonly collector: ProducerCollector,
    private readonly admin: Admin,
    private readonly requestCommit: () => void,
    private readonly partitionCounts: ReadonlyMap<string, number>,
    private readonly globalStores: ReadonlyMap<string, StateStore> = new Map(),
  ) {
    this.cache = new RecordCache(config.statestoreCacheMaxBytes);
    this.standbys = new StandbyTasks(config.bootstrapServers, `${config.applicationId}-standby-consumer`, (err) => config.logger('error', `standby changelog reader failed: ${(err as Error)?.message ?? String(err)}`), config.processingGuarantee === 'exactly_once_v2');
    this.subtopologies = topology.subtopologies();
    for (const s of this.subtopologies) for (const t of s.sourceTopics) this.topicToSub.set(this.resolve(t), s.id);
    this.fetchDeserializers = new FetchDeserializers(topology, (t) => this.resolve(t), this.defaultKeySerde, this.defaultValueSerde);
  }

  private get defaultKeySerde(): Serde<unknown> {
    return this.config.defaultKeySerde ?? (Serdes.ByteArray() as Serde<unknown>);
  }

  private get defaultValueSerde(): Serde<unknown> {
    return this.config.defaultValueSerde ?? (Serdes.ByteArray() as Serde<unknown>);
  }

  resolve(topic: string): string {
    return this.topology.isInternalTopic(topic) ? `${this.config.applicationId}-${topic}` : topic;
  }

  /**
   * Creates the tasks of newly assigned partitions and restores their stores
   * before they process anything. A task this instance kept as a standby is
   * promoted: its warm stores are kept and only the changelog tail is read.
   */
  async createFor(partitions: readonly TopicPartition[]): Promise<void> {
    const targets: RestoreTarget[] = [];
    for (const tp of partitions) {
      const id = this.taskId(tp);
      if (this.tasks.has(id)) continue;
      const promoted = this.standbys.remove(id);
      if (promoted !== null) {
        promoted.task.initProcessors();
        this.tasks.set(id, promoted.task);
        for (const t of this.changelogsOf(promoted.task)) targets.push({ task: promoted.task, store: t.store, topic: t.topic, partition: t.partition, from: promoted.positions.get(`${t.topic}:${t.partition}`) ?? null, fromStandby: true });
        this.config.logger('info', `standby task ${id} promoted to active`);
        continue;
      }
      const { task, targets: own } = this.openTask(id, tp.partition, false);
      this.tasks.set(id, task);
      for (const t of own) targets.push({ task, store: t.store, topic: t.topic, partition: t.partition, from: t.from });
    }
    // Exactly-once: a checkpoint is only valid until the task runs again (it will hold uncommitted changes).
    if (this.eos) for (const tp of partitions) deleteCheckpoint(taskDir(this.config.stateDir, this.config.applicationId, this.taskId(tp)));
    const reached = await restoreStores({ bootstrap: this.config.bootstrapServers, admin: this.admin, log: this.config.logger, readCommitted: this.eos }, targets);
    for (const [k, offset] of reached) if (offset > (this.collector.changelogOffsets.get(k) ?? -1n)) this.collector.changelogOffsets.set(k, offset);
  }

  /**
   * The standby tasks the assignment gives this instance: new ones start
   * following their changelogs, dropped ones close (a standby that became
   * active here waits for createFor to promote it; an active task that
   * became a standby here turns into one once it is revoked and closed).
   */
  setStandbys(standby: readonly string[], active: readonly string[]): void {
    this.wantedStandbys = new Set(standby);
    const promoting = new Set(active);
    for (const id of this.standbys.ids()) {
      if (this.wantedStandbys.has(id) || promoting.has(id)) continue;
      this.standbys.checkpoint();
      this.standbys.remove(id)?.task.close();
    }
    this.reconcileStandbys();
  }

  private reconcileStandbys(): void {
    for (const id of this.wantedStandbys) {
      if (this.tasks.has(id) || this.standbys.has(id)) continue;
      const { task, targets } = this.openTask(id, parseTaskId(id).partition, true);
      this.standbys.add(task, taskDir(this.config.stateDir, this.config.applicationId, id), targets);
    }
  }

  /** The ids of the active tasks. */
  activeIds(): string[] {
    return [...this.tasks.keys()];
  }

  /** What this instance holds, for its subscription to the assignor. */
  stateSummary(): { active: string[]; standby: string[]; offsetSums: Map<string, bigint> } {
    const sums = checkpointedOffsetSums(this.config.stateDir, this.config.applicationId);
    for (const id of this.standbys.ids()) sums.set(id, this.standbys.offsetSum(id) ?? 0n);
    return { active: [...this.tasks.keys()], standby: this.standbys.ids(), offsetSums: sums };
  }

  /** Opens a task's directory and stores (a standby: stores only) and says where each logged store starts restoring. */
  private openTask(id: string, partition: number, standby: boolean): { task: StreamTask; targets: StandbyTarget[] } {
    const sub = this.subtopologies[parseTaskId(id).subtopology] as Subtopology;
    const dir = taskDir(this.config.stateDir, this.config.applicationId, id);
    const checkpoint = readCheckpoint(dir);
    // Without a checkpoint, files on disk may be older than the changelog says: start empty.
    if (checkpoint === null) wipeTaskDir(dir);
    const task = this.newTask(id, sub, partition, dir, standby);
    const targets: StandbyTarget[] = [];
    for (const t of this.changelogsOf(task)) {
      if (task.wipedStores.has(t.store)) this.config.logger('warn', `store '${t.store}' of task ${id} had unreadable files: wiped, restoring it in full from ${t.topic}`);
      const persistent = task.stateStores.get(t.store)?.persistent === true && !task.wipedStores.has(t.store);
      const from = persistent ? (checkpoint?.get(`${t.topic}:${partition}`) ?? null) : null;
      targets.push({ ...t, from, persistent });
    }
    return { task, targets };
  }

  /** The changelog partitions of a task's logged stores. */
  private changelogsOf(task: StreamTask): { store: string; topic: string; partition: number }[] {
    const sub = this.subtopologies[parseTaskId(task.id).subtopology] as Subtopology;
    const out: { store: string; topic: string; partition: number }[] = [];
    for (const store of sub.stores) {
      const topic = changelogTopic(this.config.applicationId, store);
      if (this.topology.store(store)?.loggingEnabled && this.partitionCounts.has(topic)) out.push({ store, topic, partition: task.partition });
    }
    return out;
  }

  /**
   * After a commit: records, per task with persistent stores, how far its
   * stores hold the changelog. The stores are flushed first, so every
   * acknowledged changelog offset is on disk: the checkpoint may lag the
   * disk (replaying a few changes is harmless) but never lead it.
   * Under exactly_once_v2 active tasks are checkpointed only when they close
   * cleanly (Kafka's rule): their stores may hold changes of a transaction
   * that is later aborted, so after a crash they are wiped and restored.
   */
  writeCheckpoints(): void {
    this.flushStores();
    if (!this.eos) for (const task of this.tasks.values()) this.checkpoint(task);
    this.standbys.checkpoint();
  }

  private get eos(): boolean {
    return this.config.processingGuarantee === 'exactly_once_v2';
  }

  private checkpoint(task: StreamTask): void {
    const offsets = new Map<string, bigint>();
    for (const store of task.stateStores.values()) {
      if (!store.persistent || !this.topology.store(store.name)?.loggingEnabled) continue;
      const k = `${changelogTopic(this.config.applicationId, store.name)}:${task.partition}`;
      const offset = this.collector.changelogOffsets.get(k);
      if (offset !== undefined) offsets.set(k, offset);
    }
    if (offsets.size > 0) writeCheckpoint(taskDir(this.config.stateDir, this.config.applicationId, task.id), offsets);
  }

  /**
   * Closes a task. Clean (its work committed): under exactly-once its
   * checkpoint is written now. Dirty under exactly-once: its local state may
   * hold aborted changes, so its directory is wiped (restored in full next time).
   */
  private closeTask(task: StreamTask, clean: boolean): void {
    if (this.eos && clean) {
      task.flush();
      this.checkpoint(task);
    }
    task.close();
    if (this.eos && !clean) wipeTaskDir(taskDir(this.config.stateDir, this.config.applicationId, task.id));
  }

  /** Closes the tasks of revoked (committed before: clean) or lost (dirty) partitions. */
  closeFor(partitions: readonly TopicPartition[], clean: boolean): void {
    for (const tp of partitions) {
      const id = this.taskId(tp);
      const task = this.tasks.get(id);
      if (task !== undefined) this.closeTask(task, clean);
      this.tasks.delete(id);
      this.offsets.delete(`${tp.topic}:${tp.partition}`);
    }
    this.reconcileStandbys();
  }

  /** Closes the active tasks (clean: after a successful final commit) and the standbys (their checkpoints written first). */
  async closeAll(clean: boolean): Promise<void> {
    for (const t of this.tasks.values()) this.closeTask(t, clean);
    this.tasks.clear();
    this.offsets.clear();
    this.wantedStandbys.clear();
    await this.standbys.close();
  }

  /**
   * After an aborted transaction (exactly-once): every active task is closed
   * dirty (state wiped) and what the collector held is forgotten; the caller
   * creates the tasks again (restoring from the changelogs) and rewinds the
   * consumer to the committed offsets.
   */
  closeAllDirty(): void {
    for (const t of this.tasks.values()) this.closeTask(t, false);
    this.tasks.clear();
    this.offsets.clear();
    this.collector.discard();
  }

  /** Whether a task of this instance reads the partition now. */
  owns(tp: { topic: string; partition: number }): boolean {
    const sub = this.topicToSub.get(tp.topic);
    return sub !== undefined && this.tasks.has(taskIdOf(sub, tp.partition));
  }

  /** Processes a batch of one partition; its offsets become committable. */
  processBatch(batch: ConsumerBatch<unknown, unknown>): void {
    const task = this.tasks.get(this.taskId(batch));
    if (task === undefined) throw new StreamsError(StreamsErrorCode.STATE, `no task for ${batch.topic}-${batch.partition}`);
    const records = batch.records;
    if (records.length === 0) return;
    task.processBatch(records); // a consumer record has every FetchedRecord field: no copy
    const last = records[records.length - 1] as FetchedRecord;
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
    return taskIdOf(sub, tp.partition);
  }

  private newTask(id: string, sub: Subtopology, partition: number, dir: string, standby: boolean): StreamTask {
    const task = new StreamTask({
      applicationId: this.config.applicationId,
      taskId: id,
      partition,
      topology: this.topology,
      nodes: sub.nodes,
      stateDir: dir,
      defaultKeySerde: this.defaultKeySerde,
      defaultValueSerde: this.defaultValueSerde,
      collector: this.collector,
      wallClockMs: () => Date.now(),
      onDeserializationError: this.config.onDeserializationError,
      requestCommit: this.requestCommit,
      globalStores: this.globalStores,
      cache: this.cache,
      decodedAtFetch: (topic) => this.fetchDeserializers.decodes(topic),
    });
    if (standby) task.initStores();
    else task.init();
    return task;
  }
}

/**
 * A stream thread (Kafka's StreamThread): one Consumer in the group
 * `<applicationId>` with the streams assignor, the tasks it was given
 * (TaskManager: active and standby), and the commit cycle. A commit flushes
 * the stores and waits for every output record to be acknowledged before it
 * commits the offsets of the records processed, so a crash can repeat output
 * but never lose input (at least once).
 *
 * Rebalances are cooperative: only the tasks that move are committed and
 * closed (revoked) or created and restored (assigned); the assignment's
 * userData carries the standby tasks, the hosts of every task (interactive
 * query routing) and the SHUTDOWN_REQUESTED error code.
 */
import { Consumer, type Admin, type Producer } from '../../client/index.js';
import type { StateStore } from '../state/store.js';
import type { Topology } from '../topology.js';
import type { AssignmentInfo } from './assignment-info.js';
import type { ResolvedConfig } from './config.js';
import type { TopicLayout } from './internal-topics.js';
import { ProducerCollector } from './producer-collector.js';
import { streamsAssignor } from './streams-assignor.js';
import { TaskManager } from './task-manager.js';

/** What a thread reports to its KafkaStreams instance. */
export interface ThreadHooks {
  /** A rebalance started (revoke or assignment under way). */
  rebalancing(): void;
  /** The assignment is processed and restored. */
  running(): void;
  /** The assignment's userData, after each SyncGroup. */
  assignment(info: AssignmentInfo): void;
  /** Processing, a commit or a punctuation threw. */
  fatal(err: unknown): void;
  /** True while the instance is shutting down (rebalance callbacks then do nothing). */
  stopping(): boolean;
}

export interface ThreadDeps {
  topology: Topology;
  config: ResolvedConfig;
  admin: Admin;
  producer: Producer<Buffer | null, Buffer | null>;
  layout: TopicLayout;
  globalStores: ReadonlyMap<string, StateStore> | undefined;
  processId: string;
  hooks: ThreadHooks;
}

export class StreamThread {
  readonly tasks: TaskManager;
  private consumer: Consumer<Buffer | null, Buffer | null> | null = null;
  private loop: Promise<void> | null = null;
  private commitTimer: NodeJS.Timeout | null = null;
  private wallClockTimer: NodeJS.Timeout | null = null;
  private committing: Promise<void> = Promise.resolve();
  private commitRunning = false;
  private shutdownRequested = false;
  private runningAfterRevoke = false;

  constructor(private readonly deps: ThreadDeps) {
    const { config, layout } = deps;
    const collector = new ProducerCollector(deps.producer, deps.admin, layout.partitions, config.onProductionError);
    this.tasks = new TaskManager(deps.topology, config, collector, deps.admin, () => this.requestCommit(), layout.partitions, deps.globalStores);
  }

  /** Joins the group; resolves after the first assignment is processed. */
  async start(): Promise<void> {
    const { config, topology, hooks } = this.deps;
    const tasks = this.tasks;
    const subs = topology.subtopologies();
    const consumer = new Consumer<Buffer | null, Buffer | null>({
      bootstrap: config.bootstrapServers,
      clientId: `${config.applicationId}-consumer`,
      groupId: config.applicationId,
      assignors: [
        streamsAssignor({
          sourceTopics: new Map(subs.map((s) => [s.id, s.sourceTopics.map((t) => tasks.resolve(t))])),
          statefulSubtopologies: new Set(subs.filter((s) => s.stores.some((n) => topology.store(n)?.loggingEnabled === true)).map((s) => s.id)),
          numStandbyReplicas: config.numStandbyReplicas,
          subscriptionInfo: () => {
            const held = tasks.stateSummary();
            return { processId: this.deps.processId, endpoint: config.applicationServer, prevActive: held.active, prevStandby: held.standby, offsetSums: held.offsetSums, shutdownRequested: this.shutdownRequested };
          },
          onAssignment: (info) => this.onAssignment(info),
        }),
      ],
      autoCommit: false,
      autoOffsetReset: 'earliest',
      ...(config.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: config.sessionTimeoutMs } : {}),
      listeners: this.listeners(),
    });
    this.consumer = consumer;
    const sourceTopics = [...new Set(subs.flatMap((s) => s.sourceTopics).map((t) => tasks.resolve(t)))];
    await consumer.subscribe(sourceTopics);
    hooks.running();
    this.commitTimer = setInterval(() => this.requestCommit(), config.commitIntervalMs);
    this.wallClockTimer = setInterval(() => this.guard(() => tasks.punctuateWallClock(Date.now())), config.wallClockTickMs);
    this.loop = this.run(consumer);
  }

  /**
   * The assignment's userData, before the listeners run: standbys are
   * updated, and since the Consumer calls onPartitionsAssigned only when
   * partitions are added, a rebalance that only revokes (or changes nothing)
   * ends here or after the revoke.
   */
  private onAssignment(info: AssignmentInfo): void {
    const { hooks } = this.deps;
    if (!hooks.stopping()) {
      this.tasks.setStandbys(info.standby, info.active);
      const current = new Set(this.tasks.activeIds());
      const adds = info.active.some((t) => !current.has(t));
      const revokes = [...current].some((t) => !info.active.includes(t));
      this.runningAfterRevoke = !adds && revokes;
      if (!adds && !revokes) hooks.running();
    }
    hooks.assignment(info);
  }

  private listeners(): NonNullable<ConstructorParameters<typeof Consumer>[0]['listeners']> {
    const { hooks } = this.deps;
    return {
      onPartitionsRevoked: async (partitions) => {
        if (hooks.stopping()) return;
        hooks.rebalancing();
        await this.commit();
        this.tasks.closeFor(partitions);
        if (this.runningAfterRevoke) hooks.running();
      },
      onPartitionsLost: (partitions) => {
        if (hooks.stopping()) return;
        hooks.rebalancing();
        this.tasks.closeFor(partitions);
      },
      onPartitionsAssigned: async (partitions) => {
        if (hooks.stopping()) return;
        hooks.rebalancing();
        await this.tasks.createFor(partitions);
        hooks.running();
      },
    };
  }

  /**
   * SHUTDOWN_APPLICATION: the next subscription asks the leader to send every
   * member SHUTDOWN_REQUESTED; a rebalance is forced so it goes out now.
   */
  requestApplicationShutdown(): void {
    this.shutdownRequested = true;
    try {
      this.consumer?.enforceRebalance('SHUTDOWN_APPLICATION requested');
    } catch {
      // the consumer is closed: the instance shuts down on its own
    }
  }

  private async run(consumer: Consumer<Buffer | null, Buffer | null>): Promise<void> {
    try {
      for await (const batch of consumer.batches()) this.tasks.processBatch(batch);
    } catch (err) {
      this.deps.hooks.fatal(err);
    }
  }

  private guard(run: () => void): void {
    try {
      run();
    } catch (err) {
      this.deps.hooks.fatal(err);
    }
  }

  /** Starts a commit unless one is running (timer ticks and processor requests do not queue up). */
  requestCommit(): void {
    if (this.commitRunning) return;
    this.commitRunning = true;
    void this.commit()
      .catch((err: unknown) => this.deps.hooks.fatal(err))
      .finally(() => void (this.commitRunning = false));
  }

  /** One commit at a time: flush stores and output, then commit the processed offsets. */
  commit(): Promise<void> {
    const next = this.committing.then(async () => {
      const consumer = this.consumer;
      if (consumer === null) return;
      const offsets = this.tasks.takeOffsets();
      this.tasks.flushStores();
      await this.tasks.collector.flush();
      if (offsets.length > 0) await consumer.commit(offsets);
      this.tasks.writeCheckpoints();
    });
    this.committing = next.catch(() => {});
    return next;
  }

  /** Stops the timers, commits (unless the thread failed), leaves the group and closes the tasks. */
  async close(commitFirst: boolean): Promise<void> {
    this.stopTimers();
    const consumer = this.consumer;
    if (consumer !== null && commitFirst) await this.commit().catch((err: unknown) => this.deps.config.logger('error', `final commit failed: ${(err as Error)?.message}`));
    this.consumer = null;
    await consumer?.close().catch(() => {});
    await this.loop?.catch(() => {});
    await this.tasks.closeAll();
  }

  private stopTimers(): void {
    if (this.commitTimer !== null) clearInterval(this.commitTimer);
    if (this.wallClockTimer !== null) clearInterval(this.wallClockTimer);
    this.commitTimer = null;
    this.wallClockTimer = null;
  }
}

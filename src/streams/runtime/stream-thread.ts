/**
 * A stream thread (Kafka's StreamThread): one Consumer in the group
 * `<applicationId>` with the streams assignor, the tasks it was given
 * (TaskManager: active and standby), and the commit cycle. A commit flushes
 * the stores and waits for every output record to be acknowledged before it
 * commits the offsets of the records processed, so a crash can repeat output
 * but never lose input (at least once).
 *
 * Under exactly_once_v2 (KIP-447) the thread's producer is transactional
 * (StreamsProducer) and the consumer reads `read_committed`. A commit flushes
 * the stores and the output, adds the processed offsets to the transaction
 * with the consumer's group metadata and commits it; processing waits while
 * a commit runs, so every record sent belongs to exactly one transaction. A
 * failed commit (fenced producer, group generation gone, abortable error)
 * aborts the transaction, closes every task dirty (local state wiped),
 * creates them again from the changelogs and rewinds the input to the
 * committed offsets (`EosRecovery`); a fencing also rejoins the group.
 *
 * Rebalances are cooperative: only the tasks that move are committed and
 * closed (revoked) or created and restored (assigned); the assignment's
 * userData carries the standby tasks, the hosts of every task (interactive
 * query routing) and the SHUTDOWN_REQUESTED error code.
 */
import { Consumer, type Admin } from '../../client/index.js';
import type { StateStore } from '../state/store.js';
import type { Topology } from '../topology.js';
import type { AssignmentInfo } from './assignment-info.js';
import type { ResolvedConfig } from './config.js';
import type { TopicLayout } from './internal-topics.js';
import { ProducerCollector } from './producer-collector.js';
import { StreamsProducer } from './streams-producer.js';
import { EosRecovery } from './eos-recovery.js';
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
  layout: TopicLayout;
  globalStores: ReadonlyMap<string, StateStore> | undefined;
  processId: string;
  hooks: ThreadHooks;
}

export class StreamThread {
  readonly tasks: TaskManager;
  private consumer: Consumer<unknown, unknown> | null = null;
  private loop: Promise<void> | null = null;
  private commitTimer: NodeJS.Timeout | null = null;
  private wallClockTimer: NodeJS.Timeout | null = null;
  private committing: Promise<unknown> = Promise.resolve();
  private commitRunning = false;
  private shutdownRequested = false;
  private runningAfterRevoke = false;
  private readonly producer: StreamsProducer;
  private readonly eos: EosRecovery | null;
  /** True while a commit (or an exactly-once recovery) runs: processing and punctuation wait under exactly-once. */
  private inCommit = false;

  constructor(private readonly deps: ThreadDeps) {
    const { config, layout, processId } = deps;
    const eos = config.processingGuarantee === 'exactly_once_v2';
    // Kafka's names: the thread index is 1 (one stream thread per instance in this version).
    this.producer = new StreamsProducer({
      bootstrap: config.bootstrapServers,
      clientId: `${config.applicationId}-${processId}-StreamThread-1-producer`,
      transactionalId: eos ? `${config.applicationId}-${processId}-1` : null,
    });
    const collector = new ProducerCollector(this.producer, deps.admin, layout.partitions, config.onProductionError);
    this.tasks = new TaskManager(deps.topology, config, collector, deps.admin, () => this.requestCommit(), layout.partitions, deps.globalStores);
    this.eos = eos ? new EosRecovery(this.producer, this.tasks, config.logger) : null;
  }

  /** Joins the group; resolves after the first assignment is processed. */
  async start(): Promise<void> {
    const { config, topology, hooks } = this.deps;
    const tasks = this.tasks;
    const subs = topology.subtopologies();
    await this.producer.open();
    const consumer = new Consumer<unknown, unknown>({
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
      isolationLevel: this.eos !== null ? 'read_committed' : 'read_uncommitted',
      // Source topics whose serdes cannot fail are deserialized as they are decoded; the others arrive as bytes.
      keyDeserializer: tasks.fetchDeserializers.key,
      valueDeserializer: tasks.fetchDeserializers.value,
      ...(config.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: config.sessionTimeoutMs } : {}),
      listeners: this.listeners(),
    });
    this.consumer = consumer;
    const sourceTopics = [...new Set(subs.flatMap((s) => s.sourceTopics).map((t) => tasks.resolve(t)))];
    await consumer.subscribe(sourceTopics);
    hooks.running();
    this.commitTimer = setInterval(() => this.requestCommit(), config.commitIntervalMs);
    // Under exactly-once a punctuation waits for the commit to end (its output belongs to the next transaction).
    this.wallClockTimer = setInterval(() => {
      if (this.eos === null || !this.inCommit) this.guard(() => tasks.punctuateWallClock(Date.now()));
    }, config.wallClockTickMs);
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
        const clean = await this.commit();
        this.tasks.closeFor(partitions, clean);
        if (this.runningAfterRevoke) hooks.running();
      },
      onPartitionsLost: async (partitions) => {
        if (hooks.stopping()) return;
        hooks.rebalancing();
        // Exactly-once: the open transaction holds work of the lost tasks too; it is aborted and the kept tasks start again.
        const eos = this.eos;
        const consumer = this.consumer;
        if (eos !== null && consumer !== null) await this.exclusive(() => eos.recover(consumer, new Error('partitions lost'), partitions));
        else this.tasks.closeFor(partitions, false);
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

  private async run(consumer: Consumer<unknown, unknown>): Promise<void> {
    const eos = this.eos;
    try {
      for await (const batch of consumer.batches()) {
        if (eos !== null) {
          // Wait for a running commit; a batch handed out before a recovery rewound the input is stale.
          const generation = eos.generation;
          await this.committing;
          if (generation !== eos.generation || !this.tasks.owns(batch)) continue;
        }
        this.tasks.processBatch(batch);
      }
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

  /**
   * One commit at a time: flush stores and output, then commit the processed
   * offsets (under exactly-once: in the transaction). Resolves false when an
   * exactly-once commit failed and the tasks were re-initialised instead.
   */
  commit(): Promise<boolean> {
    return this.exclusive(async () => {
      const consumer = this.consumer;
      if (consumer === null) return true;
      const offsets = this.tasks.takeOffsets();
      this.tasks.flushStores();
      const collector = this.tasks.collector;
      if (this.eos !== null) {
        if (!(await this.eos.commit(consumer, offsets, () => collector.flush()))) return false;
      } else {
        await collector.flush();
        if (offsets.length > 0) await consumer.commit(offsets);
      }
      this.tasks.writeCheckpoints();
      return true;
    });
  }

  /** Runs `body` after the commits before it; processing waits on it under exactly-once. */
  private exclusive<T>(body: () => Promise<T>): Promise<T> {
    const next = this.committing.then(async () => {
      this.inCommit = true;
      try {
        return await body();
      } finally {
        this.inCommit = false;
      }
    });
    this.committing = next.then(() => undefined, () => undefined);
    return next;
  }

  /** Stops the timers, commits (unless the thread failed), leaves the group and closes the tasks. */
  async close(commitFirst: boolean): Promise<void> {
    this.stopTimers();
    const consumer = this.consumer;
    let clean = false;
    if (consumer !== null && commitFirst) {
      clean = await this.commit().catch((err: unknown) => {
        this.deps.config.logger('error', `final commit failed: ${(err as Error)?.message}`);
        return false;
      });
    }
    this.consumer = null;
    await consumer?.close().catch(() => {});
    await this.loop?.catch(() => {});
    await this.tasks.closeAll(clean);
    if (!clean) await this.producer.abortTransaction().catch(() => {});
    await this.producer.close();
  }

  private stopTimers(): void {
    if (this.commitTimer !== null) clearInterval(this.commitTimer);
    if (this.wallClockTimer !== null) clearInterval(this.wallClockTimer);
    this.commitTimer = null;
    this.wallClockTimer = null;
  }
}

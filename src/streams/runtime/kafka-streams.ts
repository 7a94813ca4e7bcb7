/**
 * KafkaStreams: runs a topology against a cluster (Kafka Streams'
 * `KafkaStreams`), at least once. One consumer in the group
 * `<applicationId>` reads every source topic with the range assignor, which
 * gives equal partition numbers of co-partitioned topics to one member; a
 * task is (sub-topology, partition). Tasks are created, and their stores
 * restored from the changelogs, when partitions are assigned, and committed
 * and closed when they are revoked. A commit flushes the stores and waits
 * for every output record to be acknowledged before it commits the offsets
 * of the records processed, so a crash can repeat output but never lose input.
 */
import { Admin, Consumer, Producer } from '../../client/index.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { StateStore } from '../state/store.js';
import type { Topology } from '../topology.js';
import { checkSupported, resolveConfig, type ResolvedConfig, type StreamsConfig } from './config.js';
import { prepareTopics, type TopicLayout } from './internal-topics.js';
import { ProducerCollector } from './producer-collector.js';
import { StreamsState, type StateListener } from './streams-state.js';
import { TaskManager } from './task-manager.js';
import { compositeStore } from './queryable-store.js';
import { GlobalStores } from './global-stores.js';
import { GlobalThread } from './global-thread.js';
import { Serdes, type Serde } from '../serdes.js';

/** Kafka's choices when a processing thread dies. */
export type StreamThreadExceptionResponse = 'REPLACE_THREAD' | 'SHUTDOWN_CLIENT' | 'SHUTDOWN_APPLICATION';

/** Runs a topology against a cluster. */
export class KafkaStreams {
  private readonly config: ResolvedConfig;
  private readonly state = new StreamsState();
  private exceptionHandler: (error: unknown) => StreamThreadExceptionResponse = () => 'SHUTDOWN_CLIENT';
  private admin: Admin | null = null;
  private producer: Producer<Buffer | null, Buffer | null> | null = null;
  private consumer: Consumer<Buffer | null, Buffer | null> | null = null;
  private tasks: TaskManager | null = null;
  private loop: Promise<void> | null = null;
  private commitTimer: NodeJS.Timeout | null = null;
  private wallClockTimer: NodeJS.Timeout | null = null;
  private committing: Promise<void> = Promise.resolve();
  private commitRunning = false;
  private layout: TopicLayout | null = null;
  private globals: GlobalStores | null = null;
  private globalThread: GlobalThread | null = null;

  constructor(
    private readonly topology: Topology,
    config: StreamsConfig,
  ) {
    topology.validate();
    this.config = resolveConfig(config);
  }

  /** The state: CREATED, REBALANCING, RUNNING, PENDING_SHUTDOWN, NOT_RUNNING or ERROR. */
  get currentState(): string {
    return this.state.current;
  }

  /** Calls `listener(newState, oldState)` on each state change. */
  onStateChange(listener: StateListener): void {
    this.state.addListener(listener);
  }

  /** Decides what happens when processing throws (default SHUTDOWN_CLIENT). */
  setUncaughtExceptionHandler(handler: (error: unknown) => StreamThreadExceptionResponse): void {
    this.exceptionHandler = handler;
  }

  /**
   * Creates the internal topics, joins the group and resolves once the first
   * assignment is processed and restored (state RUNNING). Refuses
   * exactly_once_v2 (ERR_STREAMS_CONFIG) until the broker supports transactions.
   */
  async start(): Promise<void> {
    if (this.state.current !== 'CREATED') throw new StreamsError(StreamsErrorCode.STATE, `start() can only be called once, in state CREATED (now ${this.state.current})`);
    checkSupported(this.config);
    this.state.transition('REBALANCING');
    try {
      this.admin = await Admin.connect({ bootstrap: this.config.bootstrapServers, clientId: `${this.config.applicationId}-admin` });
      this.layout = await prepareTopics(this.admin, this.topology, this.config.applicationId, this.config.replicationFactor);
      await this.startGlobalThread();
      this.producer = await Producer.connect<Buffer | null, Buffer | null>({ clusterOptions: { bootstrap: this.config.bootstrapServers, clientId: `${this.config.applicationId}-producer` } });
      await this.startThread();
    } catch (err) {
      await this.shutdown('ERROR');
      throw err;
    }
  }

  /** Stops processing, commits what was processed, leaves the group and closes the clients. */
  async close(): Promise<void> {
    if (this.state.current === 'NOT_RUNNING' || this.state.current === 'ERROR') return;
    if (this.state.current === 'CREATED') return void this.state.transition('NOT_RUNNING');
    await this.shutdown('NOT_RUNNING');
  }

  /** A read-only view of a key-value store over every local task (interactive queries). */
  store<K = unknown, V = unknown>(name: string): import('../state/store.js').ReadOnlyKeyValueStore<K, V> {
    if (this.state.current !== 'RUNNING') throw new StreamsError(StreamsErrorCode.STORE, `store '${name}' cannot be queried in state ${this.state.current} (wait for RUNNING)`);
    const global = this.globals?.stores.get(name);
    if (global !== undefined) return global as unknown as import('../state/store.js').ReadOnlyKeyValueStore<K, V>;
    if (this.topology.store(name) === undefined) throw new StreamsError(StreamsErrorCode.STORE, `the topology has no store '${name}'`);
    return compositeStore<K, V>(name, () => this.localStores(name));
  }

  private localStores(name: string): StateStore[] {
    if (this.state.current !== 'RUNNING' || this.tasks === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${name}' cannot be queried in state ${this.state.current}`);
    return this.tasks.storesNamed(name);
  }

  private async startThread(): Promise<void> {
    const config = this.config;
    const collector = new ProducerCollector(this.producer as Producer<Buffer | null, Buffer | null>, this.admin as Admin, (this.layout as TopicLayout).partitions, config.onProductionError);
    const tasks = new TaskManager(this.topology, config, collector, this.admin as Admin, () => this.requestCommit(), this.globals?.stores);
    this.tasks = tasks;
    const consumer = new Consumer<Buffer | null, Buffer | null>({
      bootstrap: config.bootstrapServers,
      clientId: `${config.applicationId}-consumer`,
      groupId: config.applicationId,
      assignors: ['range'],
      autoCommit: false,
      autoOffsetReset: 'earliest',
      ...(config.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: config.sessionTimeoutMs } : {}),
      listeners: {
        onPartitionsRevoked: async (partitions) => {
          if (this.state.current === 'PENDING_SHUTDOWN') return;
          this.state.transition('REBALANCING');
          await this.commit();
          tasks.closeFor(partitions);
        },
        onPartitionsLost: (partitions) => {
          if (this.state.current === 'PENDING_SHUTDOWN') return;
          this.state.transition('REBALANCING');
          tasks.closeFor(partitions);
        },
        onPartitionsAssigned: async (partitions) => {
          if (this.state.current === 'PENDING_SHUTDOWN') return;
          this.state.transition('REBALANCING');
          await tasks.createFor(partitions, (this.layout as TopicLayout).partitions);
          this.state.transition('RUNNING');
        },
      },
    });
    this.consumer = consumer;
    const sourceTopics = [...new Set(this.topology.subtopologies().flatMap((s) => s.sourceTopics).map((t) => tasks.resolve(t)))];
    await consumer.subscribe(sourceTopics);
    if (this.state.current === 'REBALANCING') this.state.transition('RUNNING');
    this.commitTimer = setInterval(() => this.requestCommit(), config.commitIntervalMs);
    this.wallClockTimer = setInterval(() => this.guard(() => tasks.punctuateWallClock(Date.now())), config.wallClockTickMs);
    this.loop = this.run(consumer, tasks);
  }

  /** Fills the global stores (GlobalKTables) before any task starts, then keeps them following their topics. */
  private async startGlobalThread(): Promise<void> {
    if (this.topology.globalStores.size === 0) return;
    const c = this.config;
    this.globals = new GlobalStores(this.topology, { applicationId: c.applicationId, defaultKeySerde: c.defaultKeySerde ?? (Serdes.ByteArray() as Serde<unknown>), defaultValueSerde: c.defaultValueSerde ?? (Serdes.ByteArray() as Serde<unknown>) });
    this.globalThread = new GlobalThread(this.globals, c.bootstrapServers, `${c.applicationId}-global-consumer`, (err) => this.onFatal(err));
    await this.globalThread.start(this.admin as Admin, c.logger);
  }

  private async run(consumer: Consumer<Buffer | null, Buffer | null>, tasks: TaskManager): Promise<void> {
    try {
      for await (const batch of consumer.batches()) tasks.processBatch(batch);
    } catch (err) {
      this.onFatal(err);
    }
  }

  private guard(run: () => void): void {
    try {
      run();
    } catch (err) {
      this.onFatal(err);
    }
  }

  private onFatal(err: unknown): void {
    if (this.state.current === 'PENDING_SHUTDOWN' || this.state.current === 'NOT_RUNNING' || this.state.current === 'ERROR') return;
    this.config.logger('error', `processing failed: ${(err as Error)?.message ?? String(err)}`);
    const response = this.exceptionHandler(err);
    if (response === 'REPLACE_THREAD') {
      void this.replaceThread();
      return;
    }
    if (response === 'SHUTDOWN_APPLICATION') this.config.logger('warn', 'SHUTDOWN_APPLICATION is not propagated to other instances in this version: shutting down this client');
    void this.shutdown('ERROR');
  }

  /** Closes the consumer without committing (the failed batch is reprocessed) and starts a new one. */
  private async replaceThread(): Promise<void> {
    this.stopTimers();
    const consumer = this.consumer;
    this.consumer = null;
    this.tasks?.closeAll();
    await this.globalThread?.close();
    this.globals?.close();
    await consumer?.close().catch(() => {});
    this.state.transition('REBALANCING');
    await this.startThread().catch((err: unknown) => {
      this.config.logger('error', `cannot replace the stream thread: ${(err as Error)?.message ?? String(err)}`);
      void this.shutdown('ERROR');
    });
  }

  /** Starts a commit unless one is running (timer ticks and processor requests do not queue up). */
  private requestCommit(): void {
    if (this.commitRunning) return;
    this.commitRunning = true;
    void this.commit()
      .catch((err: unknown) => this.onFatal(err))
      .finally(() => void (this.commitRunning = false));
  }

  /** One commit at a time: flush stores and output, then commit the processed offsets. */
  private commit(): Promise<void> {
    const next = this.committing.then(async () => {
      const tasks = this.tasks;
      const consumer = this.consumer;
      if (tasks === null || consumer === null) return;
      const offsets = tasks.takeOffsets();
      tasks.flushStores();
      await tasks.collector.flush();
      if (offsets.length > 0) await consumer.commit(offsets);
      tasks.writeCheckpoints();
    });
    this.committing = next.catch(() => {});
    return next;
  }

  private async shutdown(final: 'NOT_RUNNING' | 'ERROR'): Promise<void> {
    if (this.state.current === 'PENDING_SHUTDOWN' || this.state.current === 'NOT_RUNNING') return;
    this.state.transition('PENDING_SHUTDOWN');
    this.stopTimers();
    const consumer = this.consumer;
    if (consumer !== null && final === 'NOT_RUNNING') await this.commit().catch((err: unknown) => this.config.logger('error', `final commit failed: ${(err as Error)?.message}`));
    this.consumer = null;
    await consumer?.close().catch(() => {});
    await this.loop?.catch(() => {});
    this.tasks?.closeAll();
    await this.globalThread?.close();
    this.globals?.close();
    await this.producer?.close().catch(() => {});
    await this.admin?.close().catch(() => {});
    this.state.transition(final);
  }

  private stopTimers(): void {
    if (this.commitTimer !== null) clearInterval(this.commitTimer);
    if (this.wallClockTimer !== null) clearInterval(this.wallClockTimer);
    this.commitTimer = null;
    this.wallClockTimer = null;
  }
}

/**
 * KafkaStreams: runs a topology against a cluster (Kafka Streams'
 * `KafkaStreams`), at least once or exactly once (exactly_once_v2). Start-up creates the internal topics and
 * the global stores, then a stream thread (stream-thread.ts) joins the group
 * `<applicationId>` with the streams assignor, which places tasks (one per
 * sub-topology and partition) stickily and in balance over the instances,
 * with standby replicas elsewhere. This class owns the state machine
 * (Kafka's KafkaStreams.State), the uncaught-exception handler
 * (REPLACE_THREAD, SHUTDOWN_CLIENT, SHUTDOWN_APPLICATION) and interactive
 * queries: the local stores, and where a key lives (queryMetadataForKey).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Admin } from '../../client/index.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { ReadOnlyKeyValueStore, StateStore } from '../state/store.js';
import type { Topology } from '../topology.js';
import { resolveConfig, type ResolvedConfig, type StreamsConfig } from './config.js';
import { prepareTopics, type TopicLayout } from './internal-topics.js';
import { StreamsState, type StateListener, type StreamsStateName } from './streams-state.js';
import { compositeStore } from './queryable-store.js';
import { GlobalStores } from './global-stores.js';
import { GlobalThread } from './global-thread.js';
import { Serdes, type Serde } from '../serdes.js';
import { StreamThread } from './stream-thread.js';
import { AssignorError, type AssignmentInfo } from './assignment-info.js';
import { StreamsMetadataState, type KeyQueryMetadata, type KeySerializer, type StreamsMetadata } from './streams-metadata.js';

/** Kafka's choices when a processing thread dies. */
export type StreamThreadExceptionResponse = 'REPLACE_THREAD' | 'SHUTDOWN_CLIENT' | 'SHUTDOWN_APPLICATION';

/** How long a SHUTDOWN_APPLICATION request waits for the group to answer before this client shuts down alone. */
const SHUTDOWN_APPLICATION_WAIT_MS = 30_000;

/** Runs a topology against a cluster. */
export class KafkaStreams {
  private readonly config: ResolvedConfig;
  private readonly state = new StreamsState();
  /** One id per instance: the assignor groups this instance's members by it. */
  private readonly processId = randomUUID();
  private exceptionHandler: (error: unknown) => StreamThreadExceptionResponse = () => 'SHUTDOWN_CLIENT';
  private admin: Admin | null = null;
  private thread: StreamThread | null = null;
  private layout: TopicLayout | null = null;
  private globals: GlobalStores | null = null;
  private globalThread: GlobalThread | null = null;
  private readonly metadata: StreamsMetadataState;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly topology: Topology,
    config: StreamsConfig,
  ) {
    topology.validate();
    this.config = resolveConfig(config);
    const resolve = (t: string): string => (topology.isInternalTopic(t) ? `${this.config.applicationId}-${t}` : t);
    this.metadata = new StreamsMetadataState(topology.subtopologies(), (s) => s.sourceTopics.map(resolve), () => this.layout?.tasks ?? new Map());
  }

  /** The state: CREATED, REBALANCING, RUNNING, PENDING_SHUTDOWN, NOT_RUNNING, PENDING_ERROR or ERROR. */
  get currentState(): StreamsStateName {
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
   * assignment is processed and restored (state RUNNING).
   */
  async start(): Promise<void> {
    if (this.state.current !== 'CREATED') throw new StreamsError(StreamsErrorCode.STATE, `start() can only be called once, in state CREATED (now ${this.state.current})`);
    this.state.transition('REBALANCING');
    try {
      this.admin = await Admin.connect({ bootstrap: this.config.bootstrapServers, clientId: `${this.config.applicationId}-admin` });
      this.layout = await prepareTopics(this.admin, this.topology, this.config.applicationId, this.config.replicationFactor);
      await this.startGlobalThread();
      await this.startThread();
    } catch (err) {
      await this.shutdown('ERROR');
      throw err;
    }
  }

  /** Stops processing, commits what was processed, leaves the group and closes the clients. */
  async close(): Promise<void> {
    if (this.stopping !== null) return this.stopping;
    if (this.state.current === 'NOT_RUNNING' || this.state.current === 'ERROR') return;
    await this.shutdown('NOT_RUNNING');
  }

  /** A read-only view of a key-value store over every local active task (interactive queries). */
  store<K = unknown, V = unknown>(name: string): ReadOnlyKeyValueStore<K, V> {
    if (this.state.current !== 'RUNNING') throw new StreamsError(StreamsErrorCode.STORE, `store '${name}' cannot be queried in state ${this.state.current} (wait for RUNNING)`);
    const global = this.globals?.readOnlyStores.get(name);
    if (global !== undefined) return global as unknown as ReadOnlyKeyValueStore<K, V>;
    if (this.topology.store(name) === undefined) throw new StreamsError(StreamsErrorCode.STORE, `the topology has no store '${name}'`);
    return compositeStore<K, V>(name, () => this.localStores(name));
  }

  /**
   * Which instance (its `applicationServer`) holds `key` of `storeName` as
   * active, and which hold standbys (Kafka's queryMetadataForKey). The key is
   * serialized as the store's input is keyed. `activeHost` is null while the
   * task is not assigned.
   */
  queryMetadataForKey<K>(storeName: string, key: K, serializer: KeySerializer<K>): KeyQueryMetadata {
    this.requireStarted('queryMetadataForKey');
    if (this.topology.store(storeName) === undefined) throw new StreamsError(StreamsErrorCode.STORE, `the topology has no store '${storeName}'`);
    return this.metadata.forKey(storeName, key, serializer);
  }

  /** Every instance that set `applicationServer`, with its stores and partitions (Kafka's metadataForAllStreamsClients). */
  metadataForAllStreamsClients(): StreamsMetadata[] {
    this.requireStarted('metadataForAllStreamsClients');
    return this.metadata.all();
  }

  private requireStarted(what: string): void {
    const s = this.state.current;
    if (s !== 'RUNNING' && s !== 'REBALANCING') throw new StreamsError(StreamsErrorCode.STATE, `${what}() needs a running instance (now ${s})`);
  }

  private localStores(name: string): StateStore[] {
    if (this.state.current !== 'RUNNING' || this.thread === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${name}' cannot be queried in state ${this.state.current}`);
    return this.thread.tasks.storesNamed(name);
  }

  private async startThread(): Promise<void> {
    const thread: StreamThread = new StreamThread({
      topology: this.topology,
      config: this.config,
      admin: this.admin as Admin,
      layout: this.layout as TopicLayout,
      globalStores: this.globals?.readOnlyStores,
      processId: this.processId,
      hooks: {
        rebalancing: () => void (this.thread === thread && this.moveTo('REBALANCING')),
        running: () => void (this.thread === thread && this.moveTo('RUNNING')),
        assignment: (info) => this.onAssignment(info),
        // A replaced thread's late errors (its commit racing its close) are not this instance's.
        fatal: (err) => void (this.thread === thread && this.onFatal(err)),
        stopping: (): boolean => this.stopping !== null || this.thread !== thread,
      },
    });
    this.thread = thread;
    await thread.start();
  }

  /** A state change asked for by the thread (ignored once shutting down). */
  private moveTo(next: 'REBALANCING' | 'RUNNING'): void {
    if (this.stopping === null && this.state.canTransition(next)) this.state.transition(next);
  }

  private onAssignment(info: AssignmentInfo): void {
    this.metadata.update(info.hosts);
    if (info.errorCode === AssignorError.SHUTDOWN_REQUESTED && this.stopping === null) {
      this.config.logger('error', 'an instance of the application asked every instance to shut down (SHUTDOWN_APPLICATION): shutting down');
      void this.shutdown('ERROR');
    }
  }

  /** Fills the global stores (GlobalKTables) before any task starts, then keeps them following their topics. */
  private async startGlobalThread(): Promise<void> {
    if (this.topology.globalStores.size === 0) return;
    const c = this.config;
    this.globals = new GlobalStores(this.topology, {
      applicationId: c.applicationId,
      defaultKeySerde: c.defaultKeySerde ?? (Serdes.ByteArray() as Serde<unknown>),
      defaultValueSerde: c.defaultValueSerde ?? (Serdes.ByteArray() as Serde<unknown>),
      stateDir: join(c.stateDir, c.applicationId, 'global'),
      wallClockMs: () => Date.now(),
      onDeserializationError: c.onDeserializationError,
    });
    this.globalThread = new GlobalThread(this.globals, c.bootstrapServers, `${c.applicationId}-global-consumer`, (err) => this.onFatal(err));
    await this.globalThread.start(this.admin as Admin, c.logger);
  }

  private onFatal(err: unknown): void {
    if (this.stopping !== null) return;
    this.config.logger('error', `processing failed: ${(err as Error)?.message ?? String(err)}`);
    let response: StreamThreadExceptionResponse = 'SHUTDOWN_CLIENT';
    try {
      response = this.exceptionHandler(err);
    } catch (handlerError) {
      this.config.logger('error', `the uncaught exception handler threw (shutting down the client): ${(handlerError as Error)?.message ?? String(handlerError)}`);
    }
    if (response === 'REPLACE_THREAD') return void this.replaceThread();
    if (response === 'SHUTDOWN_APPLICATION') return this.shutdownApplication();
    void this.shutdown('ERROR');
  }

  /** Asks the whole application to stop (through the assignment's error code); alone after a bounded wait. */
  private shutdownApplication(): void {
    const thread = this.thread;
    if (thread === null) return void this.shutdown('ERROR');
    this.config.logger('warn', 'SHUTDOWN_APPLICATION: asking every instance to shut down');
    thread.requestApplicationShutdown();
    const timer = setTimeout(() => void this.shutdown('ERROR'), SHUTDOWN_APPLICATION_WAIT_MS);
    timer.unref();
  }

  /** Closes the thread without committing (the failed batch is reprocessed) and starts a new one. */
  private async replaceThread(): Promise<void> {
    const old = this.thread;
    this.thread = null;
    this.moveTo('REBALANCING');
    await old?.close(false);
    if (this.stopping !== null) return;
    this.config.logger('warn', 'REPLACE_THREAD: the stream thread was replaced');
    await this.startThread().catch((err: unknown) => {
      this.config.logger('error', `cannot replace the stream thread: ${(err as Error)?.message ?? String(err)}`);
      void this.shutdown('ERROR');
    });
  }

  private shutdown(final: 'NOT_RUNNING' | 'ERROR'): Promise<void> {
    this.stopping ??= (async () => {
      this.state.transition(final === 'NOT_RUNNING' ? 'PENDING_SHUTDOWN' : 'PENDING_ERROR');
      await this.thread?.close(final === 'NOT_RUNNING');
      await this.globalThread?.close();
      this.globals?.close();
      await this.admin?.close().catch(() => {});
      this.state.transition(final);
    })();
    return this.stopping;
  }
}

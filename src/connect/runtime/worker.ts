/**
 * The worker (Kafka's Worker): runs connector instances and their tasks on
 * this process, with converters, transforms, error handling, a shared
 * producer for source tasks and the DLQ, and a consumer per sink task.
 * The connector instance and each task are started and stopped one by one:
 * which run here, with which configs and target state, is the herder's
 * decision (standalone-herder.ts, distributed/herder.ts); in distributed
 * mode a task may run on a worker where its connector does not.
 */
import { Admin, Producer } from '../../client/index.js';
import { sourceProducerOptions } from './producer-config.js';
import { withPrefix } from '../converters/index.js';
import type { Converter } from '../converters/converter.js';
import type { Plugins } from '../plugins.js';
import { ConnectError, type Connector, type ConnectorContext } from '../spi.js';
import { TransformationChain } from '../transforms/index.js';
import { DeadLetterQueue, dlqConfig } from './dead-letter-queue.js';
import { RetryWithTolerance, errorPolicy } from './error-handling.js';
import { ConnectMetrics } from './metrics.js';
import type { OffsetStore } from './offset-store.js';
import { SinkTaskRunner } from './sink-task-runner.js';
import { SourceTaskRunner } from './source-task-runner.js';
import { TaskLifecycle, type ConnectState } from './task-state.js';
import type { WorkerConfig } from './worker-config.js';

export type TargetState = 'STARTED' | 'PAUSED' | 'STOPPED';

interface TaskRuntime {
  lifecycle: TaskLifecycle;
  runner: SourceTaskRunner | SinkTaskRunner | null;
  taskConfig: Record<string, string>;
}

/** A connector this worker knows: its instance runs here (`here`) and/or some of its tasks do. */
interface ConnectorRuntime {
  name: string;
  className: string;
  /** Started only when `here`; otherwise only asked for its task class and type. */
  connector: Connector;
  here: boolean;
  lifecycle: TaskLifecycle;
  config: Record<string, string>;
  tasks: Map<number, TaskRuntime>;
  activeTopics: Set<string>;
}

export interface TaskStatusInfo {
  id: number;
  state: string;
  worker_id: string;
  trace?: string;
}

/** What the herder hears from the worker: state changes (for the status topic) and task reconfiguration requests. */
export interface WorkerListener {
  onStatus?(connector: string, task: number | null, state: ConnectState, trace: string | null): void;
  onTaskReconfiguration?(connector: string): void;
  onActiveTopic?(connector: string, topic: string): void;
}

export class Worker {
  readonly metrics = new ConnectMetrics();
  private readonly running = new Map<string, ConnectorRuntime>();
  private producer: Producer<Buffer | null, Buffer | null> | null = null;
  /** Topics each connector used, kept across restarts until the connector is deleted (as Kafka's status store keeps them). */
  private readonly topicsUsed = new Map<string, Set<string>>();
  /** host:port of this worker's REST listener, known once it is bound. */
  workerId = '';

  constructor(
    readonly config: WorkerConfig,
    readonly plugins: Plugins,
    readonly offsets: OffsetStore,
    private readonly log: (message: string) => void = (m) => process.stderr.write(m + '\n'),
    private readonly listener: WorkerListener = {},
  ) {}

  async start(): Promise<void> {
    const { options, unknown } = sourceProducerOptions(this.config.raw);
    if (unknown.length > 0) this.log(`worker config: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a producer setting this worker knows; ignored`);
    this.producer = await Producer.connect<Buffer | null, Buffer | null>({
      // Topics a source writes to are created by the broker (auto.create.topics.enable), as with Kafka Connect's producers.
      clusterOptions: { bootstrap: this.config.bootstrap, clientId: this.config.clientId, allowAutoTopicCreation: true },
      ...options,
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.running.keys()].map((n) => this.stopAll(n)));
    await this.producer?.close();
    this.producer = null;
  }

  private requireProducer(): Producer<Buffer | null, Buffer | null> {
    if (this.producer === null) throw new ConnectError('worker is not started');
    return this.producer;
  }

  /** The runtime entry of a connector, made (not started) on first use. */
  private runtime(name: string, config: Record<string, string>): ConnectorRuntime {
    const existing = this.running.get(name);
    if (existing !== undefined) return existing;
    const found = this.plugins.newConnector(config['connector.class'] ?? '');
    if (found === undefined) throw new ConnectError(`Failed to find any class that implements Connector and which name matches ${config['connector.class'] ?? ''}`);
    const lifecycle = new TaskLifecycle((state, trace) => this.listener.onStatus?.(name, null, state, trace));
    const rt: ConnectorRuntime = { name, className: found.className, connector: found.connector, here: false, lifecycle, config, tasks: new Map(), activeTopics: this.topicSet(name) };
    this.running.set(name, rt);
    return rt;
  }

  /** True when the connector instance runs on this worker. */
  isRunning(name: string): boolean {
    return this.running.get(name)?.here ?? false;
  }

  /** Starts the connector instance (not its tasks); a failure shows as FAILED, never throws. */
  async startConnector(name: string, config: Record<string, string>, target: TargetState): Promise<void> {
    const rt = this.runtime(name, config);
    rt.config = config;
    rt.here = true;
    if (target === 'STOPPED') {
      rt.lifecycle.set('STOPPED');
      return;
    }
    try {
      await rt.connector.start(config, this.connectorContext(rt));
      rt.lifecycle.set(target === 'PAUSED' ? 'PAUSED' : 'RUNNING');
    } catch (err) {
      rt.lifecycle.fail(err);
    }
  }

  /** The running connector's task configs (at most tasks.max), or null when it is not running here (stopped, failed). */
  async generateTaskConfigs(name: string): Promise<Record<string, string>[] | null> {
    const rt = this.running.get(name);
    if (rt === undefined || !rt.here || rt.lifecycle.state === 'FAILED' || rt.lifecycle.state === 'STOPPED') return null;
    try {
      const tasksMax = Number(rt.config['tasks.max'] ?? '1');
      return (await rt.connector.taskConfigs(tasksMax)).slice(0, tasksMax);
    } catch (err) {
      rt.lifecycle.fail(err);
      return null;
    }
  }

  private connectorContext(rt: ConnectorRuntime): ConnectorContext & { offsetStorageReader: { offset: (p: Record<string, unknown>) => Record<string, unknown> | null; offsets: (ps: readonly Record<string, unknown>[]) => Map<Record<string, unknown>, Record<string, unknown> | null> } } {
    return {
      requestTaskReconfiguration: () => this.listener.onTaskReconfiguration?.(rt.name),
      raiseError: (e) => rt.lifecycle.fail(e),
      offsetStorageReader: {
        offset: (p) => this.offsets.get(rt.name, p),
        offsets: (ps) => new Map(ps.map((p) => [p, this.offsets.get(rt.name, p)])),
      },
    };
  }

  private converter(rt: ConnectorRuntime, which: 'key' | 'value'): Converter {
    const own = rt.config[`${which}.converter`];
    const className = own ?? (which === 'key' ? this.config.keyConverter : this.config.valueConverter);
    const cls = this.plugins.converterClass(className);
    if (cls === undefined) throw new ConnectError(`Class ${className} could not be found.`);
    const c = new cls();
    c.configure(own !== undefined ? withPrefix(rt.config, `${which}.converter.`) : withPrefix(this.config.raw, `${which}.converter.`), which === 'key');
    return c;
  }

  /** Starts one task of a connector with its task config (the connector instance need not run here). */
  startTask(name: string, id: number, connectorConfig: Record<string, string>, taskConfig: Record<string, string>, target: TargetState): void {
    let rt: ConnectorRuntime;
    try {
      rt = this.runtime(name, connectorConfig);
    } catch (err) {
      this.log(`[${name}-${id}] ${(err as Error).message}`);
      return;
    }
    if (!rt.here) rt.config = connectorConfig;
    rt.tasks.set(id, this.newTask(rt, id, taskConfig, target));
  }

  private newTask(rt: ConnectorRuntime, id: number, taskConfig: Record<string, string>, target: TargetState): TaskRuntime {
    const labels = ConnectMetrics.task(rt.name, id);
    const lifecycle = new TaskLifecycle((state, trace) => {
      this.metrics.taskRunning.set(labels, state === 'RUNNING' ? 1 : 0);
      this.listener.onStatus?.(rt.name, id, state, trace);
    });
    const task: TaskRuntime = { lifecycle, runner: null, taskConfig };
    if (target === 'PAUSED') lifecycle.set('PAUSED');
    try {
      const props = { ...rt.config, ...taskConfig };
      // Retries end when the task is being stopped.
      const errors = new RetryWithTolerance(errorPolicy(rt.config), (m) => this.log(`[${rt.name}-${id}] ${m}`), () => task.runner?.isStopping ?? false);
      const common = {
        connector: rt.name,
        taskId: id,
        props,
        converters: { key: this.converter(rt, 'key'), value: this.converter(rt, 'value') },
        chain: TransformationChain.fromConfig(rt.config, this.plugins),
        errors,
        metrics: this.metrics,
        lifecycle,
        flushIntervalMs: this.config.offsetFlushIntervalMs,
        activeTopics: this.reportingTopics(rt),
      };
      const producer = this.requireProducer();
      if (rt.connector.type === 'source') {
        task.runner = new SourceTaskRunner({ ...common, task: new (rt.connector.taskClass())(), producer, offsets: this.offsets });
      } else {
        const dlq = dlqConfig(rt.config);
        task.runner = new SinkTaskRunner({
          ...common,
          task: new (rt.connector.taskClass())(),
          bootstrap: this.config.bootstrap,
          clientId: this.config.clientId,
          dlq: dlq === null ? null : new DeadLetterQueue(dlq, producer, rt.name, id),
        });
        if (dlq !== null) void this.createDlqTopic(dlq.topic, rt.config);
      }
      task.runner.start();
    } catch (err) {
      lifecycle.fail(err);
    }
    return task;
  }

  /** Records the topics a task used, telling the listener of each new one (KIP-558's status-topic records). */
  private reportingTopics(rt: ConnectorRuntime): { add(topic: string): void } {
    return {
      add: (topic) => {
        if (rt.activeTopics.has(topic)) return;
        rt.activeTopics.add(topic);
        this.listener.onActiveTopic?.(rt.name, topic);
      },
    };
  }

  private async createDlqTopic(topic: string, config: Readonly<Record<string, string>>): Promise<void> {
    const admin = await Admin.connect({ bootstrap: this.config.bootstrap, clientId: this.config.clientId });
    try {
      await admin.createTopics([{ name: topic, replicationFactor: Number(config['errors.deadletterqueue.topic.replication.factor'] ?? '3'), numPartitions: 1 }]);
    } catch (err) {
      this.log(`creating the dead letter queue topic ${topic} failed: ${(err as Error).message}`);
    } finally {
      await admin.close();
    }
  }

  private topicSet(name: string): Set<string> {
    let set = this.topicsUsed.get(name);
    if (set === undefined) this.topicsUsed.set(name, (set = new Set()));
    return set;
  }

  /** Drops a deleted connector's active topics. */
  forgetTopics(name: string): void {
    this.topicsUsed.delete(name);
  }

  /** Stops the connector instance and its tasks on this worker. */
  async stopAll(name: string): Promise<void> {
    await this.stopTasks(name);
    await this.stopConnector(name);
  }

  /** Stops the connector instance (its tasks keep running). */
  async stopConnector(name: string): Promise<void> {
    const rt = this.running.get(name);
    if (rt === undefined || !rt.here) return;
    rt.here = false;
    await Promise.resolve(rt.connector.stop()).catch(() => undefined);
    if (rt.lifecycle.state !== 'FAILED') rt.lifecycle.set('UNASSIGNED');
    this.dropIfIdle(rt);
  }

  async stopTasks(name: string): Promise<void> {
    const ids = [...(this.running.get(name)?.tasks.keys() ?? [])];
    await Promise.all(ids.map((id) => this.stopTask(name, id)));
  }

  async stopTask(name: string, id: number): Promise<void> {
    const rt = this.running.get(name);
    const t = rt?.tasks.get(id);
    if (rt === undefined || t === undefined) return;
    rt.tasks.delete(id);
    await this.stopRunner(t);
    this.dropIfIdle(rt);
  }

  private dropIfIdle(rt: ConnectorRuntime): void {
    if (!rt.here && rt.tasks.size === 0 && this.running.get(rt.name) === rt) this.running.delete(rt.name);
  }

  private async stopRunner(t: TaskRuntime): Promise<void> {
    const timeoutMs = this.config.shutdownTimeoutMs;
    const stopping = t.runner?.stop() ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([stopping, timeout]).finally(() => clearTimeout(timer));
    if (t.lifecycle.state !== 'FAILED') t.lifecycle.set('UNASSIGNED');
  }

  /** Restarts the connector instance if it runs here (Kafka's restart without tasks). */
  async restartConnectorInstance(name: string): Promise<void> {
    const rt = this.running.get(name);
    if (rt === undefined || !rt.here) return;
    const target: TargetState = rt.lifecycle.state === 'PAUSED' ? 'PAUSED' : 'STARTED';
    rt.lifecycle.set('RESTARTING');
    await Promise.resolve(rt.connector.stop()).catch(() => undefined);
    try {
      await rt.connector.start(rt.config, this.connectorContext(rt));
      rt.lifecycle.set(target === 'PAUSED' ? 'PAUSED' : 'RUNNING');
    } catch (err) {
      rt.lifecycle.fail(err);
    }
  }

  /** Restarts one task running here with the same config. */
  async restartTask(name: string, id: number): Promise<void> {
    const rt = this.running.get(name);
    const t = rt?.tasks.get(id);
    if (rt === undefined || t === undefined) return;
    t.lifecycle.set('RESTARTING');
    await this.stopRunner(t);
    rt.tasks.set(id, this.newTask(rt, id, t.taskConfig, this.targetOf(rt)));
  }

  private targetOf(rt: ConnectorRuntime): TargetState {
    return rt.lifecycle.state === 'PAUSED' || [...rt.tasks.values()].some((t) => t.lifecycle.state === 'PAUSED') ? 'PAUSED' : 'STARTED';
  }

  /** Pauses the connector instance and tasks running here. */
  pause(name: string): void {
    const rt = this.running.get(name);
    if (rt === undefined || rt.lifecycle.state === 'STOPPED') return;
    if (rt.here && rt.lifecycle.state !== 'FAILED') rt.lifecycle.set('PAUSED');
    for (const t of rt.tasks.values()) if (t.lifecycle.state === 'RUNNING') t.lifecycle.set('PAUSED');
  }

  resume(name: string): void {
    const rt = this.running.get(name);
    if (rt === undefined) return;
    if (rt.lifecycle.state === 'PAUSED') rt.lifecycle.set('RUNNING');
    for (const t of rt.tasks.values()) if (t.lifecycle.state === 'PAUSED') t.lifecycle.set('RUNNING');
  }

  /** The state of the connector instance, when it runs here. */
  connectorState(name: string): { state: ConnectState; trace?: string } | null {
    const rt = this.running.get(name);
    if (rt === undefined || !rt.here) return null;
    return rt.lifecycle.trace === null ? { state: rt.lifecycle.state } : { state: rt.lifecycle.state, trace: rt.lifecycle.trace };
  }

  /** The tasks of a connector running here. */
  taskStatuses(name: string): TaskStatusInfo[] {
    const rt = this.running.get(name);
    const out = [...(rt?.tasks ?? new Map<number, TaskRuntime>()).entries()].map(([id, t]) => ({ id, state: t.lifecycle.state, worker_id: this.workerId, ...(t.lifecycle.trace === null ? {} : { trace: t.lifecycle.trace }) }));
    return out.sort((x, y) => x.id - y.id);
  }

  /** Connectors whose instance runs here, and tasks running here as [connector, id]. */
  localWork(): { connectors: string[]; tasks: [string, number][] } {
    const connectors: string[] = [];
    const tasks: [string, number][] = [];
    for (const rt of this.running.values()) {
      if (rt.here) connectors.push(rt.name);
      for (const id of rt.tasks.keys()) tasks.push([rt.name, id]);
    }
    return { connectors, tasks };
  }

  /** The config of a connector instance running here (null when it does not). */
  connectorConfig(name: string): Record<string, string> | null {
    const rt = this.running.get(name);
    return rt?.here === true ? rt.config : null;
  }

  /** The config a task running here was started with (null when it does not run here). */
  taskConfig(name: string, id: number): Record<string, string> | null {
    return this.running.get(name)?.tasks.get(id)?.taskConfig ?? null;
  }

  /** 'source' or 'sink' for a connector config's class ('unknown' when no plugin has it). */
  connectorType(config: Readonly<Record<string, string>> | undefined): 'source' | 'sink' | 'unknown' {
    if (config === undefined) return 'unknown';
    return this.plugins.newConnector(config['connector.class'] ?? '')?.connector.type ?? 'unknown';
  }

  activeTopics(name: string): string[] {
    return [...(this.topicsUsed.get(name) ?? [])].sort();
  }
}

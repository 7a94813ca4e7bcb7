/**
 * The worker (Kafka's Worker): runs connector instances and their tasks on
 * this process, with converters, transforms, error handling, a shared
 * producer for source tasks and the DLQ, and a consumer per sink task.
 * Which connectors run here, with which config and target state, is the
 * herder's decision (standalone-herder.ts).
 */
import { Admin, Producer } from '../../client/index.js';
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
import { TaskLifecycle } from './task-state.js';
import type { WorkerConfig } from './worker-config.js';

export type TargetState = 'STARTED' | 'PAUSED' | 'STOPPED';

interface TaskRuntime {
  lifecycle: TaskLifecycle;
  runner: SourceTaskRunner | SinkTaskRunner | null;
}

interface ConnectorRuntime {
  name: string;
  className: string;
  connector: Connector;
  lifecycle: TaskLifecycle;
  config: Record<string, string>;
  taskConfigs: Record<string, string>[];
  tasks: TaskRuntime[];
  activeTopics: Set<string>;
}

export interface TaskStatusInfo {
  id: number;
  state: string;
  worker_id: string;
  trace?: string;
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
    private readonly onTaskConfigs: (name: string, configs: Record<string, string>[]) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.producer = await Producer.connect<Buffer | null, Buffer | null>({
      // Topics a source writes to are created by the broker (auto.create.topics.enable), as with Kafka Connect's producers.
      clusterOptions: { bootstrap: this.config.bootstrap, clientId: this.config.clientId, allowAutoTopicCreation: true },
      lingerMs: 5,
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.running.keys()].map((n) => this.stopConnector(n)));
    await this.producer?.close();
    this.producer = null;
  }

  private requireProducer(): Producer<Buffer | null, Buffer | null> {
    if (this.producer === null) throw new ConnectError('worker is not started');
    return this.producer;
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /** Starts the connector and (unless STOPPED) its tasks; a failure shows as FAILED, never throws. */
  async startConnector(name: string, config: Record<string, string>, target: TargetState): Promise<void> {
    const found = this.plugins.newConnector(config['connector.class'] ?? '');
    if (found === undefined) throw new ConnectError(`Failed to find any class that implements Connector and which name matches ${config['connector.class'] ?? ''}`);
    const rt: ConnectorRuntime = { name, className: found.className, connector: found.connector, lifecycle: new TaskLifecycle(), config, taskConfigs: [], tasks: [], activeTopics: this.topicSet(name) };
    this.running.set(name, rt);
    if (target === 'STOPPED') {
      rt.lifecycle.set('STOPPED');
      return;
    }
    try {
      await rt.connector.start(config, this.connectorContext(rt));
      rt.lifecycle.set(target === 'PAUSED' ? 'PAUSED' : 'RUNNING');
      const tasksMax = Number(config['tasks.max'] ?? '1');
      rt.taskConfigs = (await rt.connector.taskConfigs(tasksMax)).slice(0, tasksMax);
      this.onTaskConfigs(name, rt.taskConfigs);
      for (let id = 0; id < rt.taskConfigs.length; id++) rt.tasks.push(this.startTask(rt, id, target));
    } catch (err) {
      rt.lifecycle.fail(err);
    }
  }

  private connectorContext(rt: ConnectorRuntime): ConnectorContext & { offsetStorageReader: { offset: (p: Record<string, unknown>) => Record<string, unknown> | null; offsets: (ps: readonly Record<string, unknown>[]) => Map<Record<string, unknown>, Record<string, unknown> | null> } } {
    return {
      requestTaskReconfiguration: () => {
        void this.restartConnector(rt.name, true, false);
      },
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

  private startTask(rt: ConnectorRuntime, id: number, target: TargetState): TaskRuntime {
    const lifecycle = new TaskLifecycle((state) => this.metrics.taskRunning.set(ConnectMetrics.task(rt.name, id), state === 'RUNNING' ? 1 : 0));
    const task: TaskRuntime = { lifecycle, runner: null };
    if (target === 'PAUSED') lifecycle.set('PAUSED');
    try {
      const props = { ...rt.config, ...rt.taskConfigs[id] };
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
        activeTopics: rt.activeTopics,
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

  async stopConnector(name: string): Promise<void> {
    const rt = this.running.get(name);
    if (rt === undefined) return;
    this.running.delete(name);
    await Promise.all(rt.tasks.map((t) => this.stopTask(t)));
    await Promise.resolve(rt.connector.stop()).catch(() => undefined);
  }

  private async stopTask(t: TaskRuntime): Promise<void> {
    const timeoutMs = this.config.shutdownTimeoutMs;
    const stopping = t.runner?.stop() ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([stopping, timeout]).finally(() => clearTimeout(timer));
    if (t.lifecycle.state !== 'FAILED') t.lifecycle.set('UNASSIGNED');
  }

  async restartConnector(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<void> {
    const rt = this.running.get(name);
    if (rt === undefined) return;
    const restartConnector = !onlyFailed || rt.lifecycle.state === 'FAILED';
    const target: TargetState = rt.lifecycle.state === 'PAUSED' ? 'PAUSED' : 'STARTED';
    if (restartConnector && includeTasks && !onlyFailed) {
      await this.stopConnector(name);
      await this.startConnector(name, rt.config, target);
      return;
    }
    if (restartConnector) {
      rt.lifecycle.set('RESTARTING');
      await Promise.resolve(rt.connector.stop()).catch(() => undefined);
      try {
        await rt.connector.start(rt.config, this.connectorContext(rt));
        rt.lifecycle.set(target === 'PAUSED' ? 'PAUSED' : 'RUNNING');
      } catch (err) {
        rt.lifecycle.fail(err);
      }
    }
    if (includeTasks) {
      for (let id = 0; id < rt.tasks.length; id++) if (!onlyFailed || rt.tasks[id]?.lifecycle.state === 'FAILED') await this.restartTask(name, id);
    }
  }

  async restartTask(name: string, id: number): Promise<void> {
    const rt = this.running.get(name);
    const t = rt?.tasks[id];
    if (rt === undefined || t === undefined) return;
    t.lifecycle.set('RESTARTING');
    await this.stopTask(t);
    rt.tasks[id] = this.startTask(rt, id, rt.lifecycle.state === 'PAUSED' ? 'PAUSED' : 'STARTED');
  }

  pause(name: string): void {
    const rt = this.running.get(name);
    if (rt === undefined || rt.lifecycle.state === 'STOPPED') return;
    if (rt.lifecycle.state !== 'FAILED') rt.lifecycle.set('PAUSED');
    for (const t of rt.tasks) if (t.lifecycle.state === 'RUNNING') t.lifecycle.set('PAUSED');
  }

  resume(name: string): void {
    const rt = this.running.get(name);
    if (rt === undefined) return;
    if (rt.lifecycle.state === 'PAUSED') rt.lifecycle.set('RUNNING');
    for (const t of rt.tasks) if (t.lifecycle.state === 'PAUSED') t.lifecycle.set('RUNNING');
  }

  connectorState(name: string): { state: string; trace?: string } | null {
    const rt = this.running.get(name);
    if (rt === undefined) return null;
    return rt.lifecycle.trace === null ? { state: rt.lifecycle.state } : { state: rt.lifecycle.state, trace: rt.lifecycle.trace };
  }

  taskStatuses(name: string): TaskStatusInfo[] {
    const rt = this.running.get(name);
    return (rt?.tasks ?? []).map((t, id) => ({ id, state: t.lifecycle.state, worker_id: this.workerId, ...(t.lifecycle.trace === null ? {} : { trace: t.lifecycle.trace }) }));
  }

  taskConfigs(name: string): Record<string, string>[] {
    return this.running.get(name)?.taskConfigs ?? [];
  }

  connectorType(name: string): 'source' | 'sink' | 'unknown' {
    return this.running.get(name)?.connector.type ?? 'unknown';
  }

  activeTopics(name: string): string[] {
    return [...(this.topicsUsed.get(name) ?? [])].sort();
  }
}

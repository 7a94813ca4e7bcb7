/**
 * The distributed herder (Kafka's DistributedHerder): serves the REST API
 * of one worker in a group. Reads (connectors, configs, statuses, topics,
 * offsets) come from this worker's view of the config, status and offset
 * topics, so any worker answers them. Changes go through the leader, which
 * alone writes connector and task configs: a follower throws
 * ForwardRequest with the leader's URL and the REST layer forwards the
 * request (rest/forward.ts); pause and resume are written by any worker, as
 * Kafka does. While a rebalance is pending, or before the first one, a
 * change is refused with 409 as Kafka does.
 *
 * One loop drives the group membership (worker-coordinator.ts) and applies,
 * in order, what the config topic and the REST API ask of this worker's
 * connectors and tasks (local-work.ts).
 */
import type { Cluster, GenerationInfo } from '../../client/index.js';
import { ForwardRequest } from '../rest/forward.js';
import type { Plugins } from '../plugins.js';
import { invalidConfigMessage, validateConnectorConfig, type ConfigInfos } from '../runtime/connector-config.js';
import { restartPlan, type ConnectorInfo, type ConnectorStateInfo, type Herder, type OffsetsBody, type RestartPlan, type TaskInfo, type TaskState } from '../runtime/herder.js';
import { ALTERED, RESET, alterSinkOffsets, readSinkOffsets, resetSinkOffsets, sinkEntries, sourceEntries, stopFirst } from '../runtime/offsets-api.js';
import { badRequest, conflict, connectorNotFound, notFound } from '../runtime/rest-errors.js';
import type { TargetState, Worker } from '../runtime/worker.js';
import type { ConfigStore } from './config-store.js';
import type { DistributedConfig } from './distributed-config.js';
import { LocalWork } from './local-work.js';
import type { KafkaOffsetStore } from './offset-store.js';
import type { ConnectAssignment } from './protocol.js';
import type { StatusStore } from './status-store.js';
import { sendTaskConfigs } from './task-configs-client.js';
import { WorkerCoordinator } from './worker-coordinator.js';

export const NO_LEADER = 'Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway.';
export const REBALANCE_EXPECTED = 'Request cannot be completed because a rebalance is expected';
const NOT_LEADER = 'Cannot complete request because this worker is not the leader';
const IDLE_WAIT_MS = 1_000;
/** How long a change waits for a rebalance in progress before it is refused with 409 (below the 90 s a forwarding worker waits). */
export const REBALANCE_WAIT_MS = 15_000;
const RETRY_BACKOFF_MS_MAX = 5_000;

export interface DistributedStores {
  configs: ConfigStore;
  statuses: StatusStore;
  offsets: KafkaOffsetStore;
}

export class DistributedHerder implements Herder {
  readonly coordinator: WorkerCoordinator;
  readonly local: LocalWork;
  private readonly configs: ConfigStore;
  private readonly statuses: StatusStore;
  private readonly offsetStore: KafkaOffsetStore;
  private assignment: ConnectAssignment | null = null;
  private generation: GenerationInfo | null = null;
  private readonly queue: (() => Promise<void>)[] = [];
  private wakeUp: (() => void) | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private delayTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly worker: Worker,
    stores: DistributedStores,
    cluster: Cluster,
    d: DistributedConfig,
    private readonly log: (message: string) => void,
  ) {
    this.configs = stores.configs;
    this.statuses = stores.statuses;
    this.offsetStore = stores.offsets;
    this.local = new LocalWork({
      worker,
      configs: this.configs,
      offsets: this.offsetStore,
      sendTaskConfigs: (name, configs) => this.handTaskConfigs(name, configs),
      requestRejoin: (reason) => this.requestRejoin(reason),
      log,
    });
    this.coordinator = new WorkerCoordinator(cluster, d, `${worker.config.clientId}-${d.groupId}`, () => this.url, {
      owned: () => this.local.owned(),
      configOffset: () => this.configs.offset,
      configured: () => this.configured(),
      onAssignment: (a, generation) => this.onAssignment(a, generation),
      onRejoinNeeded: () => this.wake(),
      onError: (err) => log(`group ${d.groupId}: ${(err as Error).message}`),
    });
  }

  get plugins(): Plugins {
    return this.worker.plugins;
  }

  get isLeader(): boolean {
    return this.generation?.isLeader === true && this.assignment !== null;
  }

  /** The leader's URL once this worker has an assignment. */
  get leaderUrl(): string | null {
    return this.assignment?.leaderUrl ?? null;
  }

  /** This worker's advertised REST URL (set by start()). */
  url = '';

  /** Joins the group, advertising `url` to the other workers (known once the REST listener is bound). */
  start(url: string): void {
    this.url = url;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.delayTimer !== null) clearTimeout(this.delayTimer);
    this.wake();
    await this.loop;
    await this.local.stopAll();
    await this.coordinator.member.close().catch(() => undefined);
  }

  // ------------------------------------------------------------- the loop

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  requestRejoin(reason: string): void {
    this.coordinator.member.requestRejoin(reason);
    this.wake();
  }

  /** Runs `f` on the herder's loop, after what was queued before; resolves with its end. */
  act(f: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push(() => f().then(resolve, reject));
      this.wake();
    });
  }

  private async run(): Promise<void> {
    let backoffMs = 100;
    while (!this.stopping) {
      try {
        // A lost membership (session expired) means others may run our work now: stop it before rejoining.
        if (this.coordinator.member.generationInfo === null && this.generation !== null && this.local.busy) await this.local.stopAll();
        await this.coordinator.member.ensureActive();
        backoffMs = 100;
        for (let next = this.queue.shift(); next !== undefined && !this.stopping; next = this.queue.shift()) await next();
      } catch (err) {
        if (this.stopping) break;
        this.log(`rebalance of the worker group failed, retrying: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, backoffMs));
        backoffMs = Math.min(backoffMs * 2, RETRY_BACKOFF_MS_MAX);
      }
      if (!this.stopping && this.queue.length === 0 && !this.coordinator.member.rejoinNeeded) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_WAIT_MS);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
    for (const f of this.queue.splice(0)) await f().catch(() => undefined);
  }

  private async configured(): Promise<{ allocation: { connectors: string[]; tasks: { connector: string; task: number }[] }; offset: bigint }> {
    await this.configs.log.readToEnd();
    const connectors = [...this.configs.connectors.keys()].sort();
    const tasks = connectors.flatMap((c) => (this.configs.tasks.get(c) ?? []).map((_, task) => ({ connector: c, task })));
    return { allocation: { connectors, tasks }, offset: this.configs.offset };
  }

  private async onAssignment(a: ConnectAssignment, generation: GenerationInfo): Promise<void> {
    this.generation = generation;
    if (this.configs.offset < a.configOffset) await this.configs.log.readToEnd();
    await this.local.apply(a);
    this.assignment = a;
    if (this.delayTimer !== null) clearTimeout(this.delayTimer);
    this.delayTimer = null;
    if (a.delayMs > 0) {
      // KIP-415: rejoin when the departed worker's grace period ends, so the leader can hand its work out.
      this.delayTimer = setTimeout(() => this.requestRejoin('scheduled rebalance'), a.delayMs);
    }
    // Configs written after the leader computed this assignment (their events came before it knew it led): assign again.
    if (generation.isLeader && this.configs.offset > a.configOffset) this.requestRejoin('configs changed during the rebalance');
  }

  /** Config topic events, applied on the loop; the leader rebalances when the set of work may have changed. */
  readonly configEvents = {
    onConnectorConfig: (name: string, removed: boolean): void => {
      void this.act(() => this.local.connectorChanged(name, removed)).catch((err: unknown) => this.log(`[${name}] ${(err as Error).message}`));
      if (this.isLeader) this.requestRejoin(`connector ${name} ${removed ? 'removed' : 'configured'}`);
    },
    onTaskConfigs: (name: string): void => {
      void this.act(() => this.local.tasksChanged(name)).catch((err: unknown) => this.log(`[${name}] ${(err as Error).message}`));
      if (this.isLeader) this.requestRejoin(`task configs of ${name} committed`);
    },
    onTargetState: (name: string, state: TargetState): void => {
      void this.act(() => this.local.targetChanged(name, state)).catch((err: unknown) => this.log(`[${name}] ${(err as Error).message}`));
    },
    onRestartRequest: (name: string, includeTasks: boolean, onlyFailed: boolean): void => {
      void this.act(() => this.local.restartRequested(name, includeTasks, onlyFailed)).catch((err: unknown) => this.log(`[${name}] ${(err as Error).message}`));
    },
  };

  /** Worker events: statuses and active topics to the status topic, task reconfiguration requests. */
  readonly workerEvents = {
    onStatus: (connector: string, task: number | null, state: string, trace: string | null): void => {
      const status = { state, trace, worker_id: this.worker.workerId, generation: this.generation?.generationId ?? -1 };
      this.statuses.put(connector, task, status).catch((err: unknown) => this.log(`[${connector}] status not written: ${(err as Error).message}`));
    },
    onActiveTopic: (connector: string, topic: string): void => {
      this.statuses.putTopic(connector, 0, topic).catch((err: unknown) => this.log(`[${connector}] active topic not written: ${(err as Error).message}`));
    },
    onTaskReconfiguration: (connector: string): void => {
      void this.act(() => this.local.reconcileTasks(connector));
    },
  };

  /** A connector running here has new task configs: the leader writes them. */
  private async handTaskConfigs(name: string, configs: Record<string, string>[]): Promise<void> {
    if (this.isLeader) return this.configs.putTaskConfigs(name, configs);
    await sendTaskConfigs(() => this.leaderUrl, name, configs);
  }

  // ------------------------------------------------------------- REST: gates

  private get rebalancing(): boolean {
    return this.coordinator.member.rejoinNeeded || this.coordinator.member.isJoining;
  }

  /**
   * Changes need a settled group, then the leader (Kafka's
   * checkRebalanceNeeded and NotLeaderException). A request that comes
   * during a rebalance waits for it (as Kafka's herder queues requests
   * until its rebalance is over) up to REBALANCE_WAIT_MS, then gets 409.
   */
  private async leaderOnly(): Promise<void> {
    if (this.assignment === null) throw conflict(NO_LEADER);
    const deadline = Date.now() + REBALANCE_WAIT_MS;
    while (this.rebalancing && Date.now() < deadline && !this.stopping) await new Promise((r) => setTimeout(r, 50));
    if (this.rebalancing) throw conflict(REBALANCE_EXPECTED);
    if (!this.isLeader) throw new ForwardRequest(this.assignment.leaderUrl, NOT_LEADER);
  }

  private config(name: string): Record<string, string> {
    const c = this.configs.connectors.get(name);
    if (c === undefined) throw connectorNotFound(name);
    return c;
  }

  // ------------------------------------------------------------- REST: reads

  connectors(): Promise<string[]> {
    return Promise.resolve([...this.configs.connectors.keys()].sort());
  }

  validate(props: Record<string, string>): ConfigInfos {
    return validateConnectorConfig(this.worker.plugins, props);
  }

  connectorInfo(name: string): Promise<ConnectorInfo> {
    const config = this.config(name);
    const tasks = (this.configs.tasks.get(name) ?? []).map((_, task) => ({ connector: name, task }));
    return Promise.resolve({ name, config: { ...config }, tasks, type: this.worker.connectorType(config) });
  }

  connectorConfig(name: string): Promise<Record<string, string>> {
    return Promise.resolve({ ...this.config(name) });
  }

  taskConfigs(name: string): Promise<TaskInfo[]> {
    this.config(name);
    return Promise.resolve((this.configs.tasks.get(name) ?? []).map((config, task) => ({ id: { connector: name, task }, config: { ...config } })));
  }

  status(name: string): Promise<ConnectorStateInfo> {
    const config = this.config(name);
    const c = this.statuses.connector(name);
    if (c === null) throw notFound(`No status found for connector ${name}`);
    const tasks: TaskState[] = [];
    (this.configs.tasks.get(name) ?? []).forEach((_, id) => {
      const s = this.statuses.task(name, id);
      if (s !== null) tasks.push({ id, state: s.state, worker_id: s.worker_id, ...(s.trace === null ? {} : { trace: s.trace }) });
    });
    const connector = { state: c.state, worker_id: c.worker_id, ...(c.trace === null ? {} : { trace: c.trace }) };
    return Promise.resolve({ name, connector, tasks, type: this.worker.connectorType(config) });
  }

  taskStatus(name: string, id: number): Promise<TaskState> {
    this.config(name);
    const s = id < (this.configs.tasks.get(name) ?? []).length ? this.statuses.task(name, id) : null;
    if (s === null) throw notFound(`No status found for task ${name}-${id}`);
    return Promise.resolve({ id, state: s.state, worker_id: s.worker_id, ...(s.trace === null ? {} : { trace: s.trace }) });
  }

  topics(name: string): Promise<string[]> {
    this.config(name);
    return Promise.resolve(this.statuses.activeTopics(name));
  }

  async offsets(name: string): Promise<OffsetsBody> {
    const config = this.config(name);
    const { bootstrap, clientId } = this.worker.config;
    if (this.worker.connectorType(config) === 'sink') return readSinkOffsets(bootstrap, clientId, name);
    await this.offsetStore.log.readToEnd();
    return { offsets: this.offsetStore.all(name).map((e) => ({ partition: { ...e.partition }, offset: e.offset === null ? null : { ...e.offset } })) };
  }

  // ------------------------------------------------------------- REST: changes

  async putConnectorConfig(name: string, config: Record<string, string>, allowReplace: boolean): Promise<{ created: boolean; info: ConnectorInfo }> {
    await this.leaderOnly();
    const full = { ...config, name };
    const infos = this.validate(full);
    if (infos.error_count > 0) throw badRequest(invalidConfigMessage(infos));
    const exists = this.configs.connectors.has(name);
    if (exists && !allowReplace) throw conflict(`Connector ${name} already exists`);
    await this.configs.putConnectorConfig(name, full);
    return { created: !exists, info: await this.connectorInfo(name) };
  }

  async deleteConnector(name: string): Promise<void> {
    await this.leaderOnly();
    this.config(name);
    await this.configs.removeConnector(name);
  }

  /** The leader plans from the status topic and writes the request; each worker restarts what it runs of the plan. */
  async restartConnector(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<RestartPlan> {
    await this.leaderOnly();
    this.config(name);
    const plan = restartPlan(await this.status(name), includeTasks, onlyFailed);
    await this.configs.putRestartRequest(name, includeTasks, onlyFailed);
    return plan;
  }

  /** The worker running the task restarts it; otherwise the leader sends the request on to the task's owner (Kafka's NotAssignedException). */
  async restartTask(name: string, id: number): Promise<void> {
    this.config(name);
    if (id < 0 || id >= (this.configs.tasks.get(name) ?? []).length) throw notFound(`Task ${name}-${id} not found`);
    if (this.local.ownsTask(name, id)) return this.act(() => this.worker.restartTask(name, id));
    await this.leaderOnly();
    const owner = this.coordinator.taskOwnerUrl({ connector: name, task: id });
    if (owner === null || owner === this.url) throw conflict(`Cannot restart task ${name}-${id}: it is not assigned to any worker yet`);
    throw new ForwardRequest(owner, `Task ${name}-${id} runs on ${owner}`);
  }

  /** Pause and resume: any worker writes the target state. Stop: the leader, which also empties the task configs (KIP-875). */
  async setTarget(name: string, target: TargetState): Promise<void> {
    if (target === 'STOPPED') await this.leaderOnly();
    this.config(name);
    await this.configs.putTargetState(name, target);
    if (target === 'STOPPED') await this.configs.putTaskConfigs(name, []);
  }

  async putTaskConfigs(name: string, configs: Record<string, string>[]): Promise<void> {
    await this.leaderOnly();
    this.config(name);
    await this.configs.putTaskConfigs(name, configs);
  }

  async modifyOffsets(name: string, body: OffsetsBody | null): Promise<string> {
    await this.leaderOnly();
    const config = this.config(name);
    if (this.configs.targetState(name) !== 'STOPPED' || (this.configs.tasks.get(name) ?? []).length > 0) throw stopFirst(name);
    const { bootstrap, clientId } = this.worker.config;
    if (this.worker.connectorType(config) === 'sink') {
      if (body === null) await resetSinkOffsets(bootstrap, clientId, name);
      else await alterSinkOffsets(bootstrap, clientId, name, sinkEntries(body));
    } else {
      await this.offsetStore.log.readToEnd();
      const entries = body === null ? this.offsetStore.all(name).map((e) => ({ partition: e.partition, offset: null })) : sourceEntries(body);
      await this.offsetStore.set(name, entries);
    }
    return body === null ? RESET : ALTERED;
  }
}

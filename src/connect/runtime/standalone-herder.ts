/**
 * The standalone herder (Kafka's StandaloneHerder): one worker owns every
 * connector; connector configs live in memory (from the command line's
 * connector.properties files and the REST API) and source offsets in
 * offset.storage.file.filename. Every REST operation lands here.
 */
import type { Plugins } from '../plugins.js';
import { invalidConfigMessage, validateConnectorConfig, type ConfigInfos } from './connector-config.js';
import { restartPlan, type ConnectorInfo, type ConnectorStateInfo, type Herder, type OffsetsBody, type RestartPlan, type TaskInfo, type TaskState } from './herder.js';
import { ALTERED, RESET, alterSinkOffsets, readSinkOffsets, resetSinkOffsets, sinkEntries, sourceEntries, stopFirst } from './offsets-api.js';
import { badRequest, conflict, connectorNotFound, notFound } from './rest-errors.js';
import type { TargetState, Worker } from './worker.js';

export type { ConnectorInfo, ConnectorStateInfo, OffsetsBody } from './herder.js';

export class StandaloneHerder implements Herder {
  private readonly configs = new Map<string, Record<string, string>>();
  private readonly targets = new Map<string, TargetState>();
  private readonly tasks = new Map<string, Record<string, string>[]>();

  constructor(readonly worker: Worker) {}

  get plugins(): Plugins {
    return this.worker.plugins;
  }

  async stop(): Promise<void> {
    await this.worker.stop();
  }

  connectors(): Promise<string[]> {
    return Promise.resolve([...this.configs.keys()].sort());
  }

  private config(name: string): Record<string, string> {
    const c = this.configs.get(name);
    if (c === undefined) throw connectorNotFound(name);
    return c;
  }

  validate(props: Record<string, string>): ConfigInfos {
    return validateConnectorConfig(this.worker.plugins, props);
  }

  async putConnectorConfig(name: string, config: Record<string, string>, allowReplace: boolean): Promise<{ created: boolean; info: ConnectorInfo }> {
    const full = { ...config, name };
    const infos = this.validate(full);
    if (infos.error_count > 0) throw badRequest(invalidConfigMessage(infos));
    const exists = this.configs.has(name);
    if (exists && !allowReplace) throw conflict(`Connector ${name} already exists`);
    if (exists) await this.worker.stopAll(name);
    this.configs.set(name, full);
    this.targets.set(name, this.targets.get(name) ?? 'STARTED');
    await this.startConnector(name);
    return { created: !exists, info: await this.connectorInfo(name) };
  }

  /** Starts the connector, then (unless stopped or failed) the tasks it asks for. */
  private async startConnector(name: string): Promise<void> {
    const config = this.config(name);
    const target = this.targets.get(name) ?? 'STARTED';
    await this.worker.startConnector(name, config, target);
    const taskConfigs = target === 'STOPPED' ? [] : ((await this.worker.generateTaskConfigs(name)) ?? []);
    this.tasks.set(name, taskConfigs);
    taskConfigs.forEach((tc, id) => this.worker.startTask(name, id, config, tc, target));
  }

  /** The connector asked for new task configs (requestTaskReconfiguration): restart it with its tasks. */
  async reconfigure(name: string): Promise<void> {
    if (!this.configs.has(name)) return;
    await this.worker.stopAll(name);
    await this.startConnector(name);
  }

  async deleteConnector(name: string): Promise<void> {
    this.config(name);
    await this.worker.stopAll(name);
    this.worker.forgetTopics(name);
    this.configs.delete(name);
    this.targets.delete(name);
    this.tasks.delete(name);
  }

  connectorInfo(name: string): Promise<ConnectorInfo> {
    const config = this.config(name);
    const tasks = (this.tasks.get(name) ?? []).map((_, task) => ({ connector: name, task }));
    return Promise.resolve({ name, config: { ...config }, tasks, type: this.worker.connectorType(config) });
  }

  connectorConfig(name: string): Promise<Record<string, string>> {
    return Promise.resolve({ ...this.config(name) });
  }

  status(name: string): Promise<ConnectorStateInfo> {
    const config = this.config(name);
    const state = this.worker.connectorState(name) ?? { state: 'UNASSIGNED' };
    return Promise.resolve({ name, connector: { ...state, worker_id: this.worker.workerId }, tasks: this.worker.taskStatuses(name), type: this.worker.connectorType(config) });
  }

  async taskStatus(name: string, id: number): Promise<TaskState> {
    const task = (await this.status(name)).tasks.find((t) => t.id === id);
    if (task === undefined) throw notFound(`No status found for task ${name}-${id}`);
    return task;
  }

  taskConfigs(name: string): Promise<TaskInfo[]> {
    this.config(name);
    return Promise.resolve((this.tasks.get(name) ?? []).map((config, task) => ({ id: { connector: name, task }, config })));
  }

  async restartConnector(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<RestartPlan> {
    this.config(name);
    const plan = restartPlan(await this.status(name), includeTasks, onlyFailed);
    if (includeTasks && !onlyFailed) {
      await this.reconfigure(name);
      return plan;
    }
    if (plan.connector) await this.worker.restartConnectorInstance(name);
    for (const id of plan.tasks) await this.worker.restartTask(name, id);
    return plan;
  }

  async restartTask(name: string, id: number): Promise<void> {
    this.config(name);
    if (id < 0 || id >= (this.tasks.get(name) ?? []).length) throw notFound(`Task ${name}-${id} not found`);
    await this.worker.restartTask(name, id);
  }

  async setTarget(name: string, target: TargetState): Promise<void> {
    this.config(name);
    const previous = this.targets.get(name) ?? 'STARTED';
    this.targets.set(name, target);
    if (target === 'STOPPED' || previous === 'STOPPED') {
      await this.worker.stopAll(name);
      await this.startConnector(name);
    } else if (target === 'PAUSED') this.worker.pause(name);
    else this.worker.resume(name);
  }

  topics(name: string): Promise<string[]> {
    this.config(name);
    return Promise.resolve(this.worker.activeTopics(name));
  }

  async offsets(name: string): Promise<OffsetsBody> {
    const config = this.config(name);
    const { bootstrap, clientId } = this.worker.config;
    if (this.worker.connectorType(config) === 'sink') return readSinkOffsets(bootstrap, clientId, name);
    return { offsets: this.worker.offsets.all(name).map((e) => ({ partition: { ...e.partition }, offset: e.offset === null ? null : { ...e.offset } })) };
  }

  /** PATCH (alter) or DELETE (reset) of a stopped connector's offsets (KIP-875). */
  async modifyOffsets(name: string, body: OffsetsBody | null): Promise<string> {
    const config = this.config(name);
    if (this.targets.get(name) !== 'STOPPED') throw stopFirst(name);
    const { bootstrap, clientId } = this.worker.config;
    if (this.worker.connectorType(config) === 'sink') {
      if (body === null) await resetSinkOffsets(bootstrap, clientId, name);
      else await alterSinkOffsets(bootstrap, clientId, name, sinkEntries(body));
    } else if (body === null) {
      await this.worker.offsets.set(name, this.worker.offsets.all(name).map((e) => ({ partition: e.partition, offset: null })));
    } else {
      await this.worker.offsets.set(name, sourceEntries(body));
    }
    return body === null ? RESET : ALTERED;
  }
}

/**
 * The standalone herder (Kafka's StandaloneHerder): one worker owns every
 * connector; connector configs live in memory (from the command line's
 * connector.properties files and the REST API) and source offsets in
 * offset.storage.file.filename. Every REST operation lands here.
 */
import { Admin } from '../../client/index.js';
import type { SourceOffset, SourcePartition } from '../spi.js';
import { invalidConfigMessage, validateConnectorConfig, type ConfigInfos } from './connector-config.js';
import { badRequest, conflict, connectorNotFound, notFound } from './rest-errors.js';
import type { TargetState, Worker } from './worker.js';

export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type: string;
}

export interface ConnectorStateInfo {
  name: string;
  connector: { state: string; worker_id: string; trace?: string };
  tasks: { id: number; state: string; worker_id: string; trace?: string }[];
  type: string;
}

export interface OffsetsBody {
  offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];
}

const STOP_FIRST = (name: string): string =>
  `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${name}/stop' endpoint`;

export class StandaloneHerder {
  private readonly configs = new Map<string, Record<string, string>>();
  private readonly targets = new Map<string, TargetState>();

  constructor(readonly worker: Worker) {}

  async stop(): Promise<void> {
    await this.worker.stop();
  }

  connectors(): string[] {
    return [...this.configs.keys()].sort();
  }

  private config(name: string): Record<string, string> {
    const c = this.configs.get(name);
    if (c === undefined) throw connectorNotFound(name);
    return c;
  }

  validate(props: Record<string, string>): ConfigInfos {
    return validateConnectorConfig(this.worker.plugins, props);
  }

  /** Creates or replaces a connector; `created` tells which. */
  async putConnectorConfig(name: string, config: Record<string, string>, allowReplace: boolean): Promise<{ created: boolean; info: ConnectorInfo }> {
    const full = { ...config, name };
    const infos = this.validate(full);
    if (infos.error_count > 0) throw badRequest(invalidConfigMessage(infos));
    const exists = this.configs.has(name);
    if (exists && !allowReplace) throw conflict(`Connector ${name} already exists`);
    if (exists) await this.worker.stopConnector(name);
    this.configs.set(name, full);
    const target = this.targets.get(name) ?? 'STARTED';
    this.targets.set(name, target);
    await this.worker.startConnector(name, full, target);
    return { created: !exists, info: this.connectorInfo(name) };
  }

  async deleteConnector(name: string): Promise<void> {
    this.config(name);
    await this.worker.stopConnector(name);
    this.worker.forgetTopics(name);
    this.configs.delete(name);
    this.targets.delete(name);
  }

  connectorInfo(name: string): ConnectorInfo {
    const config = this.config(name);
    const tasks = this.worker.taskConfigs(name).map((_, task) => ({ connector: name, task }));
    return { name, config: { ...config }, tasks, type: this.worker.connectorType(name) };
  }

  connectorConfig(name: string): Record<string, string> {
    return { ...this.config(name) };
  }

  status(name: string): ConnectorStateInfo {
    this.config(name);
    const state = this.worker.connectorState(name) ?? { state: 'UNASSIGNED' };
    return { name, connector: { ...state, worker_id: this.worker.workerId }, tasks: this.worker.taskStatuses(name), type: this.worker.connectorType(name) };
  }

  taskStatus(name: string, id: number): ConnectorStateInfo['tasks'][number] {
    const task = this.status(name).tasks.find((t) => t.id === id);
    if (task === undefined) throw notFound(`No status found for task ${name}-${id}`);
    return task;
  }

  taskConfigs(name: string): { id: { connector: string; task: number }; config: Record<string, string> }[] {
    this.config(name);
    return this.worker.taskConfigs(name).map((config, task) => ({ id: { connector: name, task }, config }));
  }

  async restartConnector(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<void> {
    this.config(name);
    await this.worker.restartConnector(name, includeTasks, onlyFailed);
  }

  async restartTask(name: string, id: number): Promise<void> {
    this.config(name);
    if (id < 0 || id >= this.worker.taskConfigs(name).length) throw notFound(`Task ${name}-${id} not found`);
    await this.worker.restartTask(name, id);
  }

  async setTarget(name: string, target: TargetState): Promise<void> {
    const config = this.config(name);
    const previous = this.targets.get(name) ?? 'STARTED';
    this.targets.set(name, target);
    if (target === 'STOPPED') {
      await this.worker.stopConnector(name);
      await this.worker.startConnector(name, config, 'STOPPED');
    } else if (previous === 'STOPPED') {
      await this.worker.stopConnector(name);
      await this.worker.startConnector(name, config, target);
    } else if (target === 'PAUSED') this.worker.pause(name);
    else this.worker.resume(name);
  }

  topics(name: string): string[] {
    this.config(name);
    return this.worker.activeTopics(name);
  }

  async offsets(name: string): Promise<OffsetsBody> {
    this.config(name);
    if (this.worker.connectorType(name) === 'sink') return this.sinkOffsets(name);
    return { offsets: this.worker.offsets.all(name).map((e) => ({ partition: { ...e.partition }, offset: e.offset === null ? null : { ...e.offset } })) };
  }

  private async sinkOffsets(name: string): Promise<OffsetsBody> {
    const admin = await Admin.connect({ bootstrap: this.worker.config.bootstrap, clientId: this.worker.config.clientId });
    try {
      const committed = await admin.fetchGroupOffsets(`connect-${name}`);
      return {
        offsets: committed
          .filter((c) => c.offset >= 0n)
          .map((c) => ({ partition: { kafka_topic: c.topic, kafka_partition: c.partition }, offset: { kafka_offset: Number(c.offset) } })),
      };
    } finally {
      await admin.close();
    }
  }

  /** PATCH (alter) or DELETE (reset) of a stopped source connector's offsets (KIP-875). */
  async modifyOffsets(name: string, body: OffsetsBody | null): Promise<string> {
    this.config(name);
    if (this.targets.get(name) !== 'STOPPED') throw badRequest(STOP_FIRST(name));
    if (this.worker.connectorType(name) === 'sink') throw badRequest('Altering or resetting the offsets of sink connectors is not supported by this worker');
    if (body === null) {
      await this.worker.offsets.set(name, this.worker.offsets.all(name).map((e) => ({ partition: e.partition, offset: null })));
      return 'The offsets for this connector have been reset successfully';
    }
    if (!Array.isArray(body.offsets) || body.offsets.length === 0) throw badRequest('The offsets to be modified must not be null or empty');
    await this.worker.offsets.set(
      name,
      body.offsets.map((o) => ({ partition: o.partition as SourcePartition, offset: o.offset as SourceOffset | null })),
    );
    return 'The offsets for this connector have been altered successfully';
  }
}

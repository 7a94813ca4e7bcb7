/**
 * What the REST API asks of a herder (Kafka's Herder interface), answered
 * by the standalone herder (standalone-herder.ts) and the distributed one
 * (distributed/herder.ts), with the JSON shapes of Kafka Connect's REST
 * entities.
 */
import type { Plugins } from '../plugins.js';
import type { ConfigInfos } from './connector-config.js';
import type { TargetState } from './worker.js';

/** A connector's name, config, tasks and type (GET /connectors/{name}). */
export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type: string;
}

/** A task's state in a status response. */
export interface TaskState {
  id: number;
  state: string;
  worker_id: string;
  trace?: string;
}

/** A connector's status with its tasks' (GET /connectors/{name}/status). */
export interface ConnectorStateInfo {
  name: string;
  connector: { state: string; worker_id: string; trace?: string };
  tasks: TaskState[];
  type: string;
}

/** What one POST /connectors/{name}/restart restarts (KIP-745, Kafka's RestartPlan). */
export interface RestartPlan {
  readonly connector: boolean;
  /** Task ids. */
  readonly tasks: readonly number[];
  /** The status before the restart with what restarts shown as RESTARTING: the 202 answer. */
  readonly status: ConnectorStateInfo;
}

/**
 * The connector restarts unless `onlyFailed` and it is not FAILED; with
 * `includeTasks` every task does, or only the FAILED ones with `onlyFailed`.
 */
export function restartPlan(before: ConnectorStateInfo, includeTasks: boolean, onlyFailed: boolean): RestartPlan {
  const connector = !onlyFailed || before.connector.state === 'FAILED';
  const tasks = includeTasks ? before.tasks.filter((t) => !onlyFailed || t.state === 'FAILED').map((t) => t.id) : [];
  const status: ConnectorStateInfo = {
    name: before.name,
    connector: connector ? { state: 'RESTARTING', worker_id: before.connector.worker_id } : before.connector,
    tasks: before.tasks.map((t) => (tasks.includes(t.id) ? { id: t.id, state: 'RESTARTING', worker_id: t.worker_id } : t)),
    type: before.type,
  };
  return { connector, tasks, status };
}

/** KIP-875's offsets body: source partitions/offsets as the connector wrote them, sink ones as kafka_topic/kafka_partition/kafka_offset. */
export interface OffsetsBody {
  offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];
}

/** A task's id and config, as GET /connectors/{name}/tasks lists them. */
export interface TaskInfo {
  id: { connector: string; task: number };
  config: Record<string, string>;
}

/** What a worker's REST API asks of its herder (Kafka's Herder): the standalone and the distributed herder answer it. */
export interface Herder {
  readonly plugins: Plugins;
  connectors(): Promise<string[]>;
  validate(props: Record<string, string>): ConfigInfos;
  /** Creates or replaces a connector; `created` tells which. */
  putConnectorConfig(name: string, config: Record<string, string>, allowReplace: boolean): Promise<{ created: boolean; info: ConnectorInfo }>;
  deleteConnector(name: string): Promise<void>;
  connectorInfo(name: string): Promise<ConnectorInfo>;
  connectorConfig(name: string): Promise<Record<string, string>>;
  status(name: string): Promise<ConnectorStateInfo>;
  taskStatus(name: string, id: number): Promise<TaskState>;
  taskConfigs(name: string): Promise<TaskInfo[]>;
  /** Restarts what restartPlan() selects; resolves with the plan (KIP-745). */
  restartConnector(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<RestartPlan>;
  restartTask(name: string, id: number): Promise<void>;
  setTarget(name: string, target: TargetState): Promise<void>;
  topics(name: string): Promise<string[]>;
  /** GET /connectors/{name}/offsets. */
  offsets(name: string): Promise<OffsetsBody>;
  /** PATCH (alter, body) or DELETE (reset, null) of a stopped connector's offsets; the success message. */
  modifyOffsets(name: string, body: OffsetsBody | null): Promise<string>;
  /** Distributed only: a worker running a connector hands its new task configs to the leader (Kafka's internal POST /connectors/{name}/tasks). */
  putTaskConfigs?(name: string, configs: Record<string, string>[]): Promise<void>;
}

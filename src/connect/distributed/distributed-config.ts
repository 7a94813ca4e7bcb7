/**
 * The distributed worker's own settings (Kafka's DistributedConfig), by
 * Kafka's names and defaults, read from worker.properties next to the
 * common worker settings (runtime/worker-config.ts).
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';
import type { WorkerConfig } from '../runtime/worker-config.js';

const DEF = new ConfigDef()
  .define({ name: 'group.id', type: 'STRING', importance: 'HIGH', documentation: 'The group of workers this worker belongs to.' })
  .define({ name: 'config.storage.topic', type: 'STRING', importance: 'HIGH', documentation: 'Compacted topic of connector and task configs (one partition).' })
  .define({ name: 'offset.storage.topic', type: 'STRING', importance: 'HIGH', documentation: 'Compacted topic of source connector offsets.' })
  .define({ name: 'status.storage.topic', type: 'STRING', importance: 'HIGH', documentation: 'Compacted topic of connector and task statuses.' })
  .define({ name: 'config.storage.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'LOW', documentation: 'Replication factor of the config topic when it is created (-1: broker default).' })
  .define({ name: 'offset.storage.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'LOW', documentation: 'Replication factor of the offset topic when it is created (-1: broker default).' })
  .define({ name: 'status.storage.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'LOW', documentation: 'Replication factor of the status topic when it is created (-1: broker default).' })
  .define({ name: 'offset.storage.partitions', type: 'INT', defaultValue: 25, importance: 'LOW', documentation: 'Partitions of the offset topic when it is created.', validator: Validators.atLeast(1) })
  .define({ name: 'status.storage.partitions', type: 'INT', defaultValue: 5, importance: 'LOW', documentation: 'Partitions of the status topic when it is created.', validator: Validators.atLeast(1) })
  .define({ name: 'session.timeout.ms', type: 'INT', defaultValue: 10000, importance: 'HIGH', documentation: 'A worker that sends no heartbeat for this long leaves the group.' })
  .define({ name: 'heartbeat.interval.ms', type: 'INT', defaultValue: 3000, importance: 'HIGH', documentation: 'Time between heartbeats to the group coordinator.' })
  .define({ name: 'rebalance.timeout.ms', type: 'INT', defaultValue: 60000, importance: 'HIGH', documentation: 'How long a rebalance waits for every worker to rejoin.' })
  .define({ name: 'scheduled.rebalance.max.delay.ms', type: 'INT', defaultValue: 300000, importance: 'LOW', documentation: 'How long the work of a departed worker waits for it to come back before it is reassigned (KIP-415).', validator: Validators.atLeast(0) })
  .define({ name: 'connect.protocol', type: 'STRING', defaultValue: 'compatible', importance: 'LOW', documentation: 'Group protocol: compatible (incremental cooperative, KIP-415).' })
  .define({ name: 'rest.advertised.host.name', type: 'STRING', defaultValue: '', importance: 'LOW', documentation: 'Host name other workers use to reach this worker (default: the listener host).' })
  .define({ name: 'rest.advertised.port', type: 'INT', defaultValue: -1, importance: 'LOW', documentation: 'Port other workers use to reach this worker (default: the listener port).' })
  .define({ name: 'rest.advertised.listener', type: 'STRING', defaultValue: 'http', importance: 'LOW', documentation: 'Scheme of the advertised URL (http).' });

export interface DistributedConfig {
  readonly groupId: string;
  readonly configTopic: string;
  readonly offsetTopic: string;
  readonly statusTopic: string;
  readonly configReplicationFactor: number;
  readonly offsetReplicationFactor: number;
  readonly statusReplicationFactor: number;
  readonly offsetPartitions: number;
  readonly statusPartitions: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly scheduledRebalanceMaxDelayMs: number;
  readonly advertisedHost: string;
  readonly advertisedPort: number;
  readonly advertisedScheme: string;
}

/** Parses the distributed keys; throws ConfigException listing every problem (missing group.id or topics first). */
export function parseDistributedConfig(raw: Readonly<Record<string, string>>): DistributedConfig {
  const c = ParsedConfig.of(DEF, raw);
  const protocol = c.string('connect.protocol');
  if (protocol !== 'compatible') throw new Error(`Invalid value ${protocol} for configuration connect.protocol: this worker speaks the 'compatible' protocol (incremental cooperative rebalancing) only`);
  return {
    groupId: c.string('group.id'),
    configTopic: c.string('config.storage.topic'),
    offsetTopic: c.string('offset.storage.topic'),
    statusTopic: c.string('status.storage.topic'),
    configReplicationFactor: c.number('config.storage.replication.factor'),
    offsetReplicationFactor: c.number('offset.storage.replication.factor'),
    statusReplicationFactor: c.number('status.storage.replication.factor'),
    offsetPartitions: c.number('offset.storage.partitions'),
    statusPartitions: c.number('status.storage.partitions'),
    sessionTimeoutMs: c.number('session.timeout.ms'),
    heartbeatIntervalMs: c.number('heartbeat.interval.ms'),
    rebalanceTimeoutMs: c.number('rebalance.timeout.ms'),
    scheduledRebalanceMaxDelayMs: c.number('scheduled.rebalance.max.delay.ms'),
    advertisedHost: c.string('rest.advertised.host.name'),
    advertisedPort: c.number('rest.advertised.port'),
    advertisedScheme: c.string('rest.advertised.listener'),
  };
}

/** The URL other workers use to reach this one (Kafka's RestServer.advertisedUrl). */
export function advertisedUrl(d: DistributedConfig, worker: WorkerConfig, boundPort: number): string {
  const host = d.advertisedHost !== '' ? d.advertisedHost : worker.listenerHost === '0.0.0.0' ? '127.0.0.1' : worker.listenerHost;
  const port = d.advertisedPort > 0 ? d.advertisedPort : boundPort;
  return `${d.advertisedScheme}://${host}:${port}`;
}

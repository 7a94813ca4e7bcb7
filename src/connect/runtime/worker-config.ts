/**
 * The worker's own config (Kafka's WorkerConfig, StandaloneConfig and
 * DistributedConfig, by Kafka's names), read from worker.properties.
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';

export const LISTENERS_DEFAULT = 'http://127.0.0.1:8083';
const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';

const WORKER_DEF = new ConfigDef()
  .define({ name: 'bootstrap.servers', type: 'LIST', defaultValue: ['localhost:9092'], importance: 'HIGH', documentation: 'Kafka brokers to connect to.' })
  .define({ name: 'listeners', type: 'LIST', defaultValue: [LISTENERS_DEFAULT], importance: 'LOW', documentation: 'REST API listener, http://host:port (port 0 picks a free one).' })
  .define({ name: 'key.converter', type: 'CLASS', defaultValue: JSON_CONVERTER, importance: 'HIGH', documentation: 'Converter class for record keys.' })
  .define({ name: 'value.converter', type: 'CLASS', defaultValue: JSON_CONVERTER, importance: 'HIGH', documentation: 'Converter class for record values.' })
  .define({ name: 'plugin.path', type: 'LIST', defaultValue: [], importance: 'LOW', documentation: 'Directories holding connector plugins.' })
  .define({ name: 'offset.flush.interval.ms', type: 'LONG', defaultValue: 60000, importance: 'LOW', documentation: 'Interval at which to try committing offsets for tasks.', validator: Validators.atLeast(1) })
  .define({ name: 'offset.storage.file.filename', type: 'STRING', defaultValue: '', importance: 'HIGH', documentation: 'File to store source connector offsets in (standalone).' })
  .define({ name: 'task.shutdown.graceful.timeout.ms', type: 'LONG', defaultValue: 5000, importance: 'LOW', documentation: 'Time to wait for tasks to shut down gracefully.' })
  .define({ name: 'client.id', type: 'STRING', defaultValue: 'connect', importance: 'LOW', documentation: 'Client id of the worker\'s Kafka clients.' });

export interface WorkerConfig {
  readonly raw: Readonly<Record<string, string>>;
  readonly bootstrap: string;
  readonly listenerHost: string;
  readonly listenerPort: number;
  readonly keyConverter: string;
  readonly valueConverter: string;
  readonly pluginPath: string;
  readonly offsetFlushIntervalMs: number;
  readonly offsetFile: string;
  readonly shutdownTimeoutMs: number;
  readonly clientId: string;
}

/** Parses worker.properties values; throws ConfigException listing every problem. */
export function parseWorkerConfig(raw: Readonly<Record<string, string>>): WorkerConfig {
  const c = ParsedConfig.of(WORKER_DEF, raw);
  const listener = c.list('listeners')[0] ?? LISTENERS_DEFAULT;
  const m = /^http:\/\/([^:/]*|\[[^\]]+\]):(\d+)\/?$/.exec(listener);
  if (m === null) throw new Error(`Invalid value ${listener} for configuration listeners: expected http://host:port (https is not supported)`);
  return {
    raw,
    bootstrap: c.list('bootstrap.servers').join(','),
    listenerHost: m[1] === '' ? '0.0.0.0' : (m[1] ?? '127.0.0.1'),
    listenerPort: Number(m[2]),
    keyConverter: c.string('key.converter'),
    valueConverter: c.string('value.converter'),
    pluginPath: c.list('plugin.path').join(','),
    offsetFlushIntervalMs: c.number('offset.flush.interval.ms'),
    offsetFile: c.string('offset.storage.file.filename'),
    shutdownTimeoutMs: c.number('task.shutdown.graceful.timeout.ms'),
    clientId: c.string('client.id'),
  };
}

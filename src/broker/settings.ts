/**
 * The resolved settings a broker runs with: plain data, built from a
 * BrokerConfig (server.properties + overrides) by `settingsFromConfig`, or
 * directly by tests and the embeddable broker.
 */
import type { LogConfig } from '../storage/config.js';
import type { TopicRules } from './services.js';

export interface ListenerSettings {
  name: string;
  host: string;
  port: number;
}

export interface BrokerSettings {
  nodeId: number;
  dataDir: string;
  listeners: ListenerSettings[];
  /** Where clients are told to connect, by listener name; port 0 = the bound port. */
  advertisedListeners: ListenerSettings[];
  rack: string | null;
  numPartitions: number;
  defaultReplicationFactor: number;
  autoCreateTopicsEnable: boolean;
  deleteTopicEnable: boolean;
  /** socket.request.max.bytes */
  requestBytesMax: number;
  /** queued.max.requests, applied per connection */
  inFlightRequestsMax: number;
  /** How often the log manager's background work (flush.ms, retention) runs. */
  logTickIntervalMs: number;
  retentionCheckIntervalMs: number;
  shutdownGraceMs: number;
  /** Effective log config for a topic, given its config overrides. */
  logConfigFor(overrides: ReadonlyMap<string, string>): LogConfig;
  /** Effective request-path rules for a topic, given its config overrides. */
  topicRulesFor(overrides: ReadonlyMap<string, string>): TopicRules;
  /** Validates topic config overrides (CreateTopics); one message per bad key. */
  validateTopicConfigs(configs: ReadonlyMap<string, string>): { key: string; message: string }[];
}

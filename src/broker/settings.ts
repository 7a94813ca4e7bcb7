/**
 * The resolved settings a broker runs with: plain data, built from a
 * BrokerConfig (server.properties + overrides) by `settingsFromConfig`, or
 * directly by tests and the embeddable broker.
 */
import type { LogConfig } from '../storage/config.js';
import type { TopicRules } from '../replication/topic-rules.js';
import type { GroupSettings } from '../coordinator/group/group-service.js';
import { listenerSecurityFromConfig, type ListenerSecurity } from '../security/listener-security.js';
import { authorizerConfigFrom } from '../security/authorizer/config.js';
import type { AuthorizerConfig } from '../security/authorizer/standard-authorizer.js';
import type { TransactionSettings } from '../coordinator/transaction/transaction-service.js';
import { quotaSettingsFromConfig, type QuotaSettings } from '../security/quota/settings.js';
import type { ConnectionSecurity } from '../net/connection-options.js';
import { nodeLinkSecurity } from '../security/node-links.js';

export interface ListenerSettings {
  name: string;
  host: string;
  port: number;
  /** What the listener demands of connections (SASL); absent = PLAINTEXT. */
  security?: ListenerSecurity;
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
  /** max.incremental.fetch.session.cache.slots: fetch sessions kept (KIP-227); 0 turns them off. */
  fetchSessionCacheSlots?: number;
  /** Quota windows and connection limits (absent: Kafka's default windows, no connection limits). */
  quotas?: QuotaSettings;
  /** queued.max.requests, applied per connection */
  inFlightRequestsMax: number;
  /** How often the log manager's background work (flush.ms, retention) runs. */
  logTickIntervalMs: number;
  retentionCheckIntervalMs: number;
  /** log.cleaner.enable: run compaction for topics with cleanup.policy=compact. */
  logCleanerEnable: boolean;
  /** log.cleaner.backoff.ms */
  logCleanerBackoffMs: number;
  /** log.open.files.max: descriptors the logs may hold open (0 = from the process limit). */
  logOpenFilesMax: number;
  shutdownGraceMs: number;
  /** metrics.listeners: HTTP listeners for /metrics and /health (empty = off). */
  metricsListeners: readonly string[];
  /** authorizer.class.name, super.users, allow.everyone.if.no.acl.found; absent = no authorization (Kafka's default). */
  authorizer?: AuthorizerConfig | null;
  /** Consumer groups and __consumer_offsets. */
  groups: GroupSettings;
  /** Transactions and __transaction_state. */
  transactions: TransactionSettings;
  /** Effective log config for a topic, given its config overrides. */
  logConfigFor(overrides: ReadonlyMap<string, string>): LogConfig;
  /** Effective request-path rules for a topic, given its config overrides. */
  topicRulesFor(overrides: ReadonlyMap<string, string>): TopicRules;
  /** Validates topic config overrides (CreateTopics); one message per bad key. */
  validateTopicConfigs(configs: ReadonlyMap<string, string>): { key: string; message: string }[];
  /**
   * The static config overlaid with dynamic broker configs (DescribeConfigs,
   * AlterConfigs); logConfigFor/topicRulesFor resolve through it, so dynamic
   * broker defaults apply. Absent when settings are built by hand: the broker
   * then describes defaults and dynamic broker defaults do not apply.
   */
  dynamicConfig?: DynamicBrokerConfig;
  /**
   * Roles, quorum and liveness (docs/cluster.md). Absent = the single-node
   * default: combined broker + controller, a one-voter quorum of this node.
   */
  cluster?: ClusterSettings;
  /** Follower fetching and ISR upkeep (replica.* configs); absent = Kafka's defaults. */
  replication?: ReplicationSettings;
}

/** replica.* configs and the listener followers fetch over. */
export interface ReplicationSettings {
  /** inter.broker.listener.name (or the listener security.inter.broker.protocol names). */
  readonly interBrokerListenerName: string;
  /** replica.lag.time.max.ms */
  readonly lagTimeMaxMs: number;
  /** replica.fetch.max.bytes (per partition) */
  readonly fetchMaxBytes: number;
  /** replica.fetch.min.bytes */
  readonly fetchMinBytes: number;
  /** replica.fetch.wait.max.ms */
  readonly fetchWaitMaxMs: number;
  /** replica.fetch.response.max.bytes */
  readonly fetchResponseMaxBytes: number;
  /** replica.fetch.backoff.ms */
  readonly fetchBackoffMs: number;
  /** replica.selector.class (KIP-392); null: consumers read from leaders. */
  readonly selectorClass?: string | null;
}

export interface QuorumVoterSettings {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

export interface ClusterSettings {
  /**
   * How this node connects to other nodes' inter-broker and controller
   * listeners (TLS and/or SASL; src/security/node-links.ts). Absent = PLAINTEXT.
   */
  readonly links?: { readonly interBroker: ConnectionSecurity; readonly controller: ConnectionSecurity };
  /** process.roles */
  readonly roles: { readonly broker: boolean; readonly controller: boolean };
  /** controller.quorum.voters; empty = this node alone (combined mode only). */
  readonly voters: readonly QuorumVoterSettings[];
  /** controller.listener.names (upper-case); the first is the one controllers talk on. */
  readonly controllerListenerNames: readonly string[];
  /** broker.session.timeout.ms */
  readonly brokerSessionTimeoutMs: number;
  /** broker.heartbeat.interval.ms */
  readonly brokerHeartbeatIntervalMs: number;
  /** controller.quorum.election.timeout.ms */
  readonly electionTimeoutMs: number;
  /** controller.quorum.fetch.timeout.ms */
  readonly fetchTimeoutMs: number;
  /** controller.quorum.request.timeout.ms */
  readonly requestTimeoutMs: number;
  /** controller.quorum.retry.backoff.ms */
  readonly retryBackoffMs: number;
  /** cluster.id for a new data dir (every node of a cluster the same); null = random (a lone node). */
  readonly clusterId: string | null;
  /** metadata.log.max.record.bytes.between.snapshots: a Raft metadata snapshot after this many new bytes. */
  readonly snapshotIntervalBytes: number;
  /** auto.leader.rebalance.enable */
  readonly autoLeaderRebalanceEnable: boolean;
  /** leader.imbalance.check.interval.seconds, in ms */
  readonly leaderImbalanceCheckIntervalMs: number;
  /** min.insync.replicas and unclean.leader.election.enable of topics without their own (elections, KIP-966 ELR). */
  readonly minInSyncReplicasDefault: number;
  readonly uncleanLeaderElectionDefault: boolean;
}

/** True when this node runs alone: one voter (itself, or none given) and both roles. */
export function isSingleNode(settings: BrokerSettings): boolean {
  const c = settings.cluster;
  if (c === undefined) return true;
  return c.roles.broker && c.roles.controller && (c.voters.length === 0 || (c.voters.length === 1 && c.voters[0]?.id === settings.nodeId));
}

import type { BrokerConfig } from '../config/broker.js';
import { type TopicConfig } from '../config/topic.js';
import { validateTopicConfigs } from '../config/topic-broker.js';
import { DynamicBrokerConfig } from './configs/dynamic-broker-config.js';

function toRecord(overrides: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries(overrides);
}

export function logConfigOf(t: TopicConfig): LogConfig {
  return {
    segmentBytes: t.segmentBytes,
    segmentMs: t.segmentMs,
    retentionMs: t.retentionMs,
    retentionBytes: t.retentionBytes,
    indexIntervalBytes: t.indexIntervalBytes,
    segmentIndexBytes: t.segmentIndexBytes,
    flushIntervalMessages: t.flushIntervalMessages,
    flushIntervalMs: t.flushIntervalMs,
    cleanupPolicy: { delete: t.cleanupPolicy.delete, compact: t.cleanupPolicy.compact },
    deleteRetentionMs: t.deleteRetentionMs,
    minCleanableDirtyRatio: t.minCleanableDirtyRatio,
    minCompactionLagMs: t.minCompactionLagMs,
    maxCompactionLagMs: t.maxCompactionLagMs,
  };
}

export function topicRulesOf(t: TopicConfig): TopicRules {
  return {
    maxMessageBytes: t.maxMessageBytes,
    segmentBytes: t.segmentBytes,
    messageTimestampType: t.messageTimestampType,
    timestampBeforeMaxMs: t.timestampBeforeMaxMs,
    timestampAfterMaxMs: t.timestampAfterMaxMs,
    minInsyncReplicas: t.minInsyncReplicas,
    compacted: t.cleanupPolicy.compact,
    compressionType: t.compressionType,
    mirrorState: t.mirrorState,
    ...(t.mirrorPromotedOffsets.size > 0 ? { mirrorPromotedOffsets: t.mirrorPromotedOffsets } : {}),
  };
}

/** Resolves a parsed server.properties (plus overrides) into BrokerSettings. */
export function settingsFromConfig(config: BrokerConfig): BrokerSettings {
  const dynamic = new DynamicBrokerConfig(config);
  const dataDir = config.logDirs[0] ?? './data';
  return {
    nodeId: config.nodeId,
    dataDir,
    listeners: config.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port, security: listenerSecurityFromConfig(config, l.name, l.securityProtocol) })),
    advertisedListeners: config.advertisedListeners.map((l) => ({ name: l.name, host: l.host, port: l.port })),
    rack: config.get('broker.rack'),
    numPartitions: config.get('num.partitions'),
    defaultReplicationFactor: config.get('default.replication.factor'),
    autoCreateTopicsEnable: config.get('auto.create.topics.enable'),
    deleteTopicEnable: config.get('delete.topic.enable'),
    requestBytesMax: config.get('socket.request.max.bytes'),
    fetchSessionCacheSlots: config.get('max.incremental.fetch.session.cache.slots'),
    inFlightRequestsMax: config.get('queued.max.requests'),
    quotas: quotaSettingsFromConfig(config, config.interBrokerListenerName),
    logTickIntervalMs: Math.max(10, Math.min(config.get('log.flush.scheduler.interval.ms'), 1000)),
    retentionCheckIntervalMs: config.get('log.retention.check.interval.ms'),
    logCleanerEnable: config.get('log.cleaner.enable'),
    logCleanerBackoffMs: config.get('log.cleaner.backoff.ms'),
    logOpenFilesMax: config.get('log.open.files.max'),
    shutdownGraceMs: 10_000,
    metricsListeners: config.get('metrics.listeners'),
    authorizer: authorizerConfigFrom(config),
    groups: {
      offsetsTopicNumPartitions: config.get('offsets.topic.num.partitions'),
      offsetsTopicReplicationFactor: config.get('offsets.topic.replication.factor'),
      offsetsTopicSegmentBytes: config.get('offsets.topic.segment.bytes'),
      offsetsRetentionCheckIntervalMs: config.get('offsets.retention.check.interval.ms'),
      coordinator: {
        initialRebalanceDelayMs: config.get('group.initial.rebalance.delay.ms'),
        minSessionTimeoutMs: config.get('group.min.session.timeout.ms'),
        maxSessionTimeoutMs: config.get('group.max.session.timeout.ms'),
        maxSize: config.get('group.max.size'),
        offsetsRetentionMs: config.get('offsets.retention.minutes') * 60_000,
        offsetMetadataMaxBytes: config.get('offset.metadata.max.bytes'),
      },
    },
    transactions: {
      numPartitions: config.get('transaction.state.log.num.partitions'),
      replicationFactor: config.get('transaction.state.log.replication.factor'),
      minIsr: config.get('transaction.state.log.min.isr'),
      segmentBytes: config.get('transaction.state.log.segment.bytes'),
      maxTimeoutMs: config.get('transaction.max.timeout.ms'),
      idExpirationMs: config.get('transactional.id.expiration.ms'),
      abortTimedOutIntervalMs: config.get('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
      removeExpiredIntervalMs: config.get('transaction.remove.expired.transaction.cleanup.interval.ms'),
      writeTimeoutMs: config.get('offsets.commit.timeout.ms'),
      partitionVerification: config.get('transaction.partition.verification.enable'),
      hangingAbort: config.get('transaction.hanging.abort.enable'),
      hangingCheckIntervalMs: config.get('transaction.hanging.check.interval.ms'),
    },
    logConfigFor: (overrides) => logConfigOf(dynamic.topicConfig(toRecord(overrides))),
    topicRulesFor: (overrides) => topicRulesOf(dynamic.topicConfig(toRecord(overrides))),
    validateTopicConfigs: (configs) => validateTopicConfigs(Object.fromEntries(configs)).map((e) => ({ key: e.key, message: e.message })),
    dynamicConfig: dynamic,
    replication: {
      interBrokerListenerName: config.interBrokerListenerName,
      lagTimeMaxMs: Number(config.get('replica.lag.time.max.ms')),
      fetchMaxBytes: config.get('replica.fetch.max.bytes'),
      fetchMinBytes: config.get('replica.fetch.min.bytes'),
      fetchWaitMaxMs: config.get('replica.fetch.wait.max.ms'),
      fetchResponseMaxBytes: config.get('replica.fetch.response.max.bytes'),
      fetchBackoffMs: config.get('replica.fetch.backoff.ms'),
      selectorClass: config.get('replica.selector.class'),
    },
    cluster: {
      // A lone node has no other node to connect to.
      ...(config.quorumVoters.length === 0 ? {} : { links: { interBroker: nodeLinkSecurity(config, 'inter.broker'), controller: nodeLinkSecurity(config, 'controller') } }),
      roles: config.roles,
      voters: config.quorumVoters.map((v) => ({ id: v.id, host: v.host, port: v.port })),
      controllerListenerNames: config.get('controller.listener.names').map((n) => n.toUpperCase()),
      brokerSessionTimeoutMs: config.get('broker.session.timeout.ms'),
      brokerHeartbeatIntervalMs: config.get('broker.heartbeat.interval.ms'),
      electionTimeoutMs: config.get('controller.quorum.election.timeout.ms'),
      fetchTimeoutMs: config.get('controller.quorum.fetch.timeout.ms'),
      requestTimeoutMs: config.get('controller.quorum.request.timeout.ms'),
      retryBackoffMs: config.get('controller.quorum.retry.backoff.ms'),
      clusterId: config.get('cluster.id'),
      snapshotIntervalBytes: Number(config.get('metadata.log.max.record.bytes.between.snapshots')),
      autoLeaderRebalanceEnable: config.get('auto.leader.rebalance.enable'),
      leaderImbalanceCheckIntervalMs: Number(config.get('leader.imbalance.check.interval.seconds')) * 1000,
      minInSyncReplicasDefault: config.get('min.insync.replicas'),
      uncleanLeaderElectionDefault: config.get('unclean.leader.election.enable'),
    },
  };
}


/**
 * Broker config definitions: Kafka's names and (Kafka 3.x KRaft) defaults.
 * Where our default differs on purpose, `kafkaDefault` records Kafka's and the
 * doc says why. The loader and cross-key checks are in broker.ts.
 */
import {
  bool, defineConfigs, enumOf, int, list, listOf, long, LONG_MAX, INT_MAX, str,
  type ConfigSource, type ConfigSpec, type ConfigValues, type IgnoredKeys, type UpdateMode, type ValueOf,
} from './def.js';
import { LOG_LEVELS, type LogLevel } from '../util/log.js';
import { parseEndpoint, parseProtocolMapEntry, parseVoter, SECURITY_PROTOCOLS } from './listeners.js';
import { TOPIC_CONFIGS, SEGMENT_BYTES_MIN, type TopicConfigKey } from './topic.js';
import { securityConfigs } from './security-defs.js';
import { quotaConfigs } from './quota-defs.js';
import { sslConfigs } from './ssl-defs.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A broker key that is the default of topic key `topicKey`: same type and validator. */
function fromTopic<K extends TopicConfigKey>(topicKey: K, o: { doc?: string; dynamic?: UpdateMode; importance?: 'high' | 'medium' | 'low' } = {}): ConfigSpec<ValueOf<(typeof TOPIC_CONFIGS)[K]>> {
  // The spec is reused whole (parser, validator, default); only docs and update mode change.
  const spec = TOPIC_CONFIGS[topicKey] as unknown as ConfigSpec<ValueOf<(typeof TOPIC_CONFIGS)[K]>>;
  return {
    ...spec,
    doc: o.doc ?? `${spec.doc} Default for the topic config "${topicKey}".`,
    dynamic: o.dynamic ?? 'cluster-wide',
    importance: o.importance ?? 'medium',
  };
}

const firstReason = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): string | undefined => (r.ok ? undefined : r.reason);
const notZero = (v: number): string | undefined => (v === 0 ? 'use -1 for unlimited, or at least 1' : undefined);

/** The replica selectors `replica.selector.class` accepts, by Kafka's class names (src/replication/replica-selector.ts). */
export const REPLICA_SELECTOR_CLASS_NAMES: readonly string[] = [
  'org.apache.kafka.common.replica.RackAwareReplicaSelector',
  'org.apache.kafka.common.replica.LeaderSelector',
];
export { LOG_LEVELS, type LogLevel };

const serverConfigs = {
  // ---- node identity and roles (KRaft)
  'node.id': int({ default: 1, min: 0, importance: 'high', kafkaDefault: 'no default, required', fallback: [{ key: 'broker.id', factor: 1 }],
    doc: 'This node\'s id in the cluster. Kafka requires it in KRaft mode; ours defaults to 1 for a single node.' }),
  'broker.id': int({ default: null, min: 0, importance: 'low',
    doc: 'Old name of node.id (ZooKeeper mode). If both are set they must be equal.' }),
  'process.roles': listOf({ values: ['broker', 'controller'], default: ['broker', 'controller'], nonEmpty: true, importance: 'high', kafkaDefault: 'no default, required',
    doc: 'broker, controller, or both (combined mode, our default: a one-node cluster). A broker-only node is a Raft observer of the controllers\' metadata quorum (its node.id must not be a voter).' }),
  'controller.quorum.voters': list({ default: [], importance: 'high', expected: 'a comma-separated list of id@host:port',
    validateItem: (s) => firstReason(parseVoter(s)),
    doc: 'The metadata quorum\'s voters. Empty (ours) on a combined node means a one-voter quorum of this node, with no controller listener needed.' }),
  'cluster.id': str({ default: null, importance: 'medium', kafkaDefault: 'none (kafka-storage format --cluster-id)', expected: 'a 22-character base64url uuid',
    validate: (v) => (/^[A-Za-z0-9_-]{22}$/.test(v) ? undefined : 'a cluster id is a 22-character base64url uuid, e.g. MkU3OEVBNTcwNTJENDM2Qg'),
    doc: 'Cluster id written to meta.properties of a new data directory; every node of a multi-node cluster needs the same one (tributary cluster up picks it). Default: a random id (a single node). Must match an existing meta.properties.' }),
  'controller.listener.names': list({ default: [], importance: 'high',
    doc: 'Listener names used by the controller; required when controller.quorum.voters is set and this node is a controller.' }),
  'listeners': list({ default: ['PLAINTEXT://127.0.0.1:9092'], importance: 'high', kafkaDefault: 'PLAINTEXT://:9092',
    expected: 'a comma-separated list of NAME://host:port', validateItem: (s) => firstReason(parseEndpoint(s)),
    doc: 'Addresses to listen on. An empty host means all interfaces; port 0 picks a free port. Ours binds loopback only by default.' }),
  'advertised.listeners': list({ default: null, importance: 'high', dynamic: 'per-broker',
    expected: 'a comma-separated list of NAME://host:port', validateItem: (s) => firstReason(parseEndpoint(s)),
    doc: 'Addresses given to clients. Default: listeners (minus controller listeners), with an empty or 0.0.0.0 host replaced by 127.0.0.1 — set it when clients connect from other machines.' }),
  'listener.security.protocol.map': list({ default: SECURITY_PROTOCOLS.map((p) => `${p}:${p}`), importance: 'low', dynamic: 'per-broker',
    expected: 'a comma-separated list of NAME:PROTOCOL', validateItem: (s) => firstReason(parseProtocolMapEntry(s)),
    doc: 'Security protocol of each listener name. A listener named after a protocol needs no entry.' }),
  'inter.broker.listener.name': str({ default: null, importance: 'medium',
    doc: 'Listener brokers use to talk to each other. Default: the listener named by security.inter.broker.protocol.' }),
  'security.inter.broker.protocol': enumOf({ values: SECURITY_PROTOCOLS, default: 'PLAINTEXT', importance: 'medium',
    doc: 'Protocol between brokers; do not set together with inter.broker.listener.name.' }),
  'broker.rack': str({ default: null, importance: 'medium', doc: 'Rack of this broker, for rack-aware replica placement.' }),
  // ---- storage
  'log.dir': str({ default: './data', importance: 'high', kafkaDefault: '/tmp/kafka-logs',
    doc: 'Data directory, used when log.dirs is not set. Ours is ./data (relative to the working directory).' }),
  'log.dirs': list({ default: null, importance: 'high', doc: 'Data directories; overrides log.dir.' }),
  'metadata.log.dir': str({ default: null, importance: 'high', doc: 'Directory of the metadata log; default: the first of log.dirs.' }),
  // ---- topics
  'num.partitions': int({ default: 1, min: 1, importance: 'medium', doc: 'Partitions of auto-created topics and of topics created without a count.' }),
  'default.replication.factor': int({ default: 1, min: 1, importance: 'medium', doc: 'Replication factor of auto-created topics and of topics created without one.' }),
  'auto.create.topics.enable': bool({ default: true, importance: 'high', doc: 'Create a topic when a client asks for metadata of, or produces to, an unknown one.' }),
  'delete.topic.enable': bool({ default: true, importance: 'high', doc: 'Allow DeleteTopics.' }),
  'min.insync.replicas': fromTopic('min.insync.replicas', { importance: 'high' }),
  'unclean.leader.election.enable': fromTopic('unclean.leader.election.enable', { importance: 'high' }),
  'compression.type': fromTopic('compression.type', { importance: 'high' }),
  'message.max.bytes': fromTopic('max.message.bytes', { importance: 'high' }),
  // ---- log segments and retention
  'log.segment.bytes': fromTopic('segment.bytes', { importance: 'high' }),
  'log.roll.ms': long({ default: 7 * DAY_MS, min: 1, fallback: [{ key: 'log.roll.hours', factor: HOUR_MS }], kafkaDefault: 'null (log.roll.hours)', dynamic: 'cluster-wide',
    doc: 'Roll a segment after this time; when not set, log.roll.hours applies. Default for "segment.ms".' }),
  'log.roll.hours': int({ default: 168, min: 1, importance: 'high', doc: 'Roll a segment after this many hours (log.roll.ms wins).' }),
  'log.roll.jitter.ms': long({ default: 0, min: 0, fallback: [{ key: 'log.roll.jitter.hours', factor: HOUR_MS }], kafkaDefault: 'null (log.roll.jitter.hours)', dynamic: 'cluster-wide',
    doc: 'Jitter subtracted from the roll time. Default for "segment.jitter.ms".' }),
  'log.roll.jitter.hours': int({ default: 0, min: 0, importance: 'high', doc: 'Jitter in hours (log.roll.jitter.ms wins).' }),
  'log.retention.ms': long({ default: 7 * DAY_MS, min: -1, validate: notZero, importance: 'high', dynamic: 'cluster-wide', kafkaDefault: 'null (log.retention.minutes, then log.retention.hours)',
    fallback: [{ key: 'log.retention.minutes', factor: MINUTE_MS }, { key: 'log.retention.hours', factor: HOUR_MS }],
    doc: 'Keep segments this long; -1 = forever. Precedence: log.retention.ms, then log.retention.minutes, then log.retention.hours. Default for "retention.ms".' }),
  'log.retention.minutes': int({ default: null, min: -1, validate: notZero, importance: 'high', doc: 'Retention in minutes (log.retention.ms wins over it).' }),
  'log.retention.hours': int({ default: 168, min: -1, validate: notZero, importance: 'high', doc: 'Retention in hours (lowest precedence).' }),
  'log.retention.bytes': fromTopic('retention.bytes', { importance: 'high' }),
  'log.retention.check.interval.ms': long({ default: 5 * MINUTE_MS, min: 1, doc: 'How often the retention (and cleaner) check runs.' }),
  'log.cleanup.policy': fromTopic('cleanup.policy'),
  'log.cleaner.enable': bool({ default: true, doc: 'Run log compaction for compacted topics (needed for __consumer_offsets).' }),
  'log.cleaner.backoff.ms': long({ default: 15_000, min: 0, doc: 'Sleep of the cleaner when there is nothing to clean.' }),
  'log.cleaner.delete.retention.ms': fromTopic('delete.retention.ms'),
  'log.cleaner.min.compaction.lag.ms': fromTopic('min.compaction.lag.ms'),
  'log.cleaner.max.compaction.lag.ms': fromTopic('max.compaction.lag.ms'),
  'log.cleaner.min.cleanable.ratio': fromTopic('min.cleanable.dirty.ratio'),
  'log.index.interval.bytes': fromTopic('index.interval.bytes'),
  'log.index.size.max.bytes': fromTopic('segment.index.bytes'),
  'log.flush.interval.messages': fromTopic('flush.messages', { importance: 'high' }),
  'log.flush.interval.ms': long({ default: LONG_MAX, min: 0, fallback: [{ key: 'log.flush.scheduler.interval.ms', factor: 1 }], importance: 'high', dynamic: 'cluster-wide',
    kafkaDefault: 'null (log.flush.scheduler.interval.ms)', doc: 'fsync data unflushed this long; when not set, log.flush.scheduler.interval.ms applies. Default for "flush.ms".' }),
  'log.flush.scheduler.interval.ms': long({ default: LONG_MAX, min: 0, importance: 'high', doc: 'How often the flusher checks logs. Default: never (2^53-1).' }),
  'log.flush.offset.checkpoint.interval.ms': int({ default: 60_000, min: 0, importance: 'high', doc: 'How often the recovery-point checkpoint is written.' }),
  'log.flush.start.offset.checkpoint.interval.ms': int({ default: 60_000, min: 0, importance: 'high', doc: 'How often the log-start-offset checkpoint is written.' }),
  'log.segment.delete.delay.ms': fromTopic('file.delete.delay.ms'),
  'log.preallocate': fromTopic('preallocate'),
  'log.message.timestamp.type': fromTopic('message.timestamp.type'),
  'log.message.timestamp.difference.max.ms': fromTopic('message.timestamp.difference.max.ms'),
  'log.message.timestamp.before.max.ms': fromTopic('message.timestamp.before.max.ms'),
  'log.message.timestamp.after.max.ms': fromTopic('message.timestamp.after.max.ms'),
  'log.message.downconversion.enable': fromTopic('message.downconversion.enable'),
};

const networkConfigs = {
  'socket.request.max.bytes': int({ default: 104_857_600, min: 1, importance: 'high', doc: 'Largest request frame accepted; bigger ones close the connection.' }),
  'queued.max.requests': int({ default: 500, min: 1, importance: 'high',
    doc: 'Kafka: requests queued for the I/O threads. Ours: the most requests in flight on one connection; reading pauses beyond it.' }),
  'connections.max.idle.ms': long({ default: 10 * MINUTE_MS, importance: 'medium', doc: 'Close connections idle this long; -1 = never.' }),
  'max.incremental.fetch.session.cache.slots': int({ default: 1000, min: 0, importance: 'medium',
    doc: 'Most incremental fetch sessions (KIP-227) the broker keeps; 0: every fetch is a full fetch.' }),
  'fetch.max.bytes': int({ default: 57_671_680, min: 1024, importance: 'medium', doc: 'Largest Fetch response the broker builds.' }),
  // ---- replication
  'replica.lag.time.max.ms': long({ default: 30_000, min: 1, importance: 'high', doc: 'A follower that has not caught up for this long leaves the ISR.' }),
  'replica.fetch.max.bytes': int({ default: 1_048_576, min: 0, doc: 'Bytes per partition a follower fetches.' }),
  'replica.fetch.min.bytes': int({ default: 1, min: 1, doc: 'Least bytes a follower fetch waits for.' }),
  'replica.fetch.wait.max.ms': int({ default: 500, min: 0, doc: 'Longest a follower fetch waits; keep below replica.lag.time.max.ms.' }),
  'replica.fetch.response.max.bytes': int({ default: 10_485_760, min: 0, doc: 'Largest follower fetch response.' }),
  'replica.fetch.backoff.ms': int({ default: 1000, min: 0, doc: 'Sleep after a follower fetch error.' }),
  'replica.selector.class': str({ default: null, importance: 'medium', expected: REPLICA_SELECTOR_CLASS_NAMES.join(' or '),
    validate: (v) => (REPLICA_SELECTOR_CLASS_NAMES.includes(v) ? undefined : `expected ${REPLICA_SELECTOR_CLASS_NAMES.join(' or ')}`),
    doc: 'Fetch from follower (KIP-392): with RackAwareReplicaSelector a leader sends consumers that give client.rack to an in-sync replica in their rack. Unset: consumers read from leaders.' }),
  // ---- KRaft quorum
  'controller.quorum.election.timeout.ms': int({ default: 1000, min: 1, importance: 'high', doc: 'Time without a leader before a voter starts an election.' }),
  'controller.quorum.fetch.timeout.ms': int({ default: 2000, min: 1, importance: 'high', doc: 'Time without a successful fetch before a follower becomes a candidate.' }),
  'controller.quorum.election.backoff.max.ms': int({ default: 1000, min: 1, importance: 'high', doc: 'Most backoff before a new election.' }),
  'controller.quorum.append.linger.ms': int({ default: 25, min: 0, doc: 'How long the leader batches metadata writes.' }),
  'controller.quorum.request.timeout.ms': int({ default: 2000, min: 1, doc: 'Timeout of quorum requests.' }),
  'controller.quorum.retry.backoff.ms': int({ default: 20, min: 0, doc: 'Backoff before retrying a failed quorum request.' }),
  'broker.heartbeat.interval.ms': int({ default: 2000, min: 1, doc: 'How often a broker heartbeats to the controller.' }),
  'broker.session.timeout.ms': int({ default: 9000, min: 1, doc: 'A broker without heartbeats for this long is fenced.' }),
  'auto.leader.rebalance.enable': bool({ default: true, importance: 'high', doc: 'The active controller moves leadership back to each partition\'s preferred replica once it is an in-sync replica again.' }),
  'leader.imbalance.check.interval.seconds': long({ default: 300, min: 1, importance: 'high', doc: 'How often the active controller looks for partitions not led by their preferred replica.' }),
  'metadata.log.segment.bytes': int({ default: 1024 * 1024 * 1024, min: SEGMENT_BYTES_MIN, doc: 'Segment size of the metadata log.' }),
  'metadata.log.segment.ms': long({ default: 7 * DAY_MS, min: 1, doc: 'Roll time of the metadata log.' }),
  'metadata.max.retention.bytes': long({ default: 100 * 1024 * 1024, min: -1, doc: 'Metadata log size kept beyond the latest snapshot; -1 = unlimited.' }),
  'metadata.max.retention.ms': long({ default: 7 * DAY_MS, min: -1, doc: 'Metadata log age kept beyond the latest snapshot; -1 = forever.' }),
  'metadata.log.max.record.bytes.between.snapshots': long({ default: 20 * 1024 * 1024, min: 1, doc: 'Take a metadata snapshot after this many new bytes.' }),
  'metadata.max.idle.interval.ms': int({ default: 500, min: 0, doc: 'How often the active controller writes a no-op record.' }),
};

const coordinatorConfigs = {
  // ---- groups and offsets
  'group.initial.rebalance.delay.ms': int({ default: 3000, min: 0, importance: 'medium', doc: 'Wait for more members before the first rebalance of an empty group.' }),
  'group.min.session.timeout.ms': int({ default: 6000, min: 0, importance: 'medium', doc: 'Smallest session timeout a member may ask for.' }),
  'group.max.session.timeout.ms': int({ default: 1_800_000, min: 0, importance: 'medium', doc: 'Largest session timeout a member may ask for.' }),
  'group.max.size': int({ default: INT_MAX, min: 1, importance: 'medium', doc: 'Most members in one group.' }),
  'offsets.topic.num.partitions': int({ default: 50, min: 1, importance: 'high', doc: 'Partitions of __consumer_offsets (cannot change after it exists).' }),
  'offsets.topic.replication.factor': int({ default: 3, min: 1, importance: 'high',
    doc: 'Replication factor of __consumer_offsets; lowered to the number of live brokers when it is created with fewer.' }),
  'offsets.topic.segment.bytes': int({ default: 104_857_600, min: 1, importance: 'high', doc: 'Segment size of __consumer_offsets.' }),
  'offsets.retention.minutes': int({ default: 7 * 24 * 60, min: 1, importance: 'high', doc: 'Keep the committed offsets of an empty group this long.' }),
  'offsets.retention.check.interval.ms': long({ default: 10 * MINUTE_MS, min: 1, importance: 'high', doc: 'How often stale offsets are removed.' }),
  'offsets.commit.timeout.ms': int({ default: 5000, min: 1, importance: 'high', doc: 'How long an offset commit waits for its write to replicate.' }),
  'offset.metadata.max.bytes': int({ default: 4096, min: 0, importance: 'high', doc: 'Largest metadata string of a committed offset.' }),
  // ---- transactions and idempotence
  'transactional.id.expiration.ms': int({ default: 7 * DAY_MS, min: 1, importance: 'high', doc: 'Forget a transactional id unused this long.' }),
  'transaction.partition.verification.enable': bool({ default: true, importance: 'low',
    doc: 'KIP-890 part 1: a partition leader checks with the transaction coordinator that a partition is in the producer\'s transaction before its first transactional append.' }),
  'transaction.max.timeout.ms': int({ default: 15 * MINUTE_MS, min: 1, importance: 'high', doc: 'Largest transaction timeout a producer may ask for.' }),
  'transaction.state.log.num.partitions': int({ default: 50, min: 1, importance: 'high', doc: 'Partitions of __transaction_state.' }),
  'transaction.state.log.replication.factor': int({ default: 3, min: 1, importance: 'high',
    doc: 'Replication factor of __transaction_state; lowered to the number of live brokers when it is created with fewer.' }),
  'transaction.state.log.min.isr': int({ default: 2, min: 1, importance: 'high', doc: 'min.insync.replicas of __transaction_state (capped at its replication factor).' }),
  'transaction.state.log.segment.bytes': int({ default: 104_857_600, min: 1, importance: 'high', doc: 'Segment size of __transaction_state.' }),
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': int({ default: 10_000, min: 1, doc: 'How often timed-out transactions are aborted.' }),
  'transaction.hanging.abort.enable': bool({ default: true, importance: 'medium', kafkaDefault: 'none (Tributary only)',
    doc: 'A partition leader aborts (writes an ABORT marker for) a hanging transaction: one open longer than transaction.max.timeout.ms that no transaction coordinator knows. Off: it is only reported (metrics, tributary txn list --hanging).' }),
  'transaction.hanging.check.interval.ms': int({ default: 60_000, min: 1, importance: 'low', kafkaDefault: 'none (Tributary only)', doc: 'How often a broker looks for hanging transactions on the partitions it leads.' }),
  'transaction.remove.expired.transaction.cleanup.interval.ms': int({ default: HOUR_MS, min: 1, doc: 'How often expired transactional ids are removed.' }),
  'producer.id.expiration.ms': int({ default: DAY_MS, min: 1, importance: 'low', dynamic: 'cluster-wide', doc: 'Forget an idle idempotent producer\'s state after this long.' }),
  'producer.id.expiration.check.interval.ms': int({ default: 10 * MINUTE_MS, min: 1, importance: 'low', doc: 'How often expired producer ids are removed.' }),
  // ---- Tributary's own
  'log.level': enumOf({ values: LOG_LEVELS, default: 'info', caseInsensitive: true, importance: 'medium',
    doc: 'Tributary only (not a Kafka key): pino log level of the broker process.' }),
  'log.open.files.max': int({ default: 0, min: 0, importance: 'medium',
    doc: 'Tributary only: most file descriptors the partition logs hold open at once; beyond it the least recently used are closed and reopened on use. 0 = half of the process\'s open-file limit (ulimit -n), at least 64.' }),
  'metrics.listeners': list({ default: [], importance: 'low', expected: 'a comma-separated list of http://host:port',
    validateItem: (s) => (/^http:\/\/(\[[0-9A-Fa-f:.]*\]|[0-9A-Za-z\-._]*):\d{1,5}$/.test(s) ? undefined : `"${s}" is not http://host:port`),
    doc: 'Tributary only: HTTP endpoints serving metrics (Prometheus text). Empty = off.' }),
};

export const BROKER_CONFIGS = defineConfigs({ ...serverConfigs, ...networkConfigs, ...securityConfigs, ...sslConfigs, ...quotaConfigs, ...coordinatorConfigs });
export type BrokerConfigKey = keyof typeof BROKER_CONFIGS;
export type BrokerConfigValues = ConfigValues<typeof BROKER_CONFIGS>;

/** Where one broker value came from: the key that set it, or the key's default. */
export interface BrokerSourceInfo {
  readonly source: ConfigSource;
  readonly key: string;
}

/**
 * Keys found in Kafka config files that have no meaning here (thread pools,
 * socket buffers, ZooKeeper). They are accepted so Kafka's own
 * server.properties loads, and each one is logged as a warning at startup.
 * Security keys (ssl.*, sasl.*, authorizer.class.name) are deliberately NOT
 * here: silently ignoring them would look like protection that is not there;
 * the ones Tributary implements are in security-defs.ts.
 */
export const IGNORED_BROKER_KEYS: IgnoredKeys = {
  keys: [
    'num.network.threads', 'num.io.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir', 'background.threads',
    'socket.send.buffer.bytes', 'socket.receive.buffer.bytes', 'socket.listen.backlog.size', 'queued.max.request.bytes',
    'replica.socket.timeout.ms', 'replica.socket.receive.buffer.bytes', 'replica.high.watermark.checkpoint.interval.ms',
    'log.cleaner.threads', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.io.buffer.size', 'log.cleaner.io.buffer.load.factor',
    'log.cleaner.io.max.bytes.per.second', 'offsets.load.buffer.size', 'transaction.state.log.load.buffer.size',
    'controlled.shutdown.enable', 'controlled.shutdown.max.retries', 'controlled.shutdown.retry.backoff.ms',
    'leader.imbalance.per.broker.percentage',
    'inter.broker.protocol.version', 'log.message.format.version', 'metric.reporters', 'metrics.num.samples',
    'metrics.sample.window.ms', 'metrics.recording.level', 'kafka.metrics.reporters', 'kafka.metrics.polling.interval.secs',
  ],
  prefixes: ['zookeeper.'],
};

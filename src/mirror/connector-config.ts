/**
 * The configs the three mirror connectors share and their own ones, by
 * MirrorMaker 2's names and defaults (MirrorConnectorConfig,
 * MirrorSourceConfig, MirrorCheckpointConfig, MirrorHeartbeatConfig).
 * Clients reach the clusters through `source.cluster.bootstrap.servers` and
 * `target.cluster.bootstrap.servers` (as MirrorMaker's dedicated mode
 * writes them into each connector's config).
 */
import { ConfigDef, ConfigException, ParsedConfig, Validators, type ConfigValue } from '../connect/config-def.js';
import { policyFromConfig, type ReplicationPolicy } from './policy.js';
import { RegexFilter } from './filters.js';

export const BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter';
export const TOPICS_EXCLUDE_DEFAULT = 'mm2.*\\.internal,.*\\.replica,__.*';
export const GROUPS_EXCLUDE_DEFAULT = 'console-consumer-.*,connect-.*,__.*';
export const CONFIG_PROPERTIES_EXCLUDE_DEFAULT = [
  'follower\\.replication\\.throttled\\.replicas',
  'leader\\.replication\\.throttled\\.replicas',
  'message\\.timestamp\\.difference\\.max\\.ms',
  'message\\.timestamp\\.type',
  'unclean\\.leader\\.election\\.enable',
  'min\\.insync\\.replicas',
].join(',');

const positive = Validators.atLeast(1);

/** Keys every mirror connector takes. */
export const COMMON_DEF = new ConfigDef()
  .define({ name: 'source.cluster.alias', type: 'STRING', importance: 'HIGH', documentation: 'Alias of the source cluster (A in A->B).' })
  .define({ name: 'target.cluster.alias', type: 'STRING', defaultValue: 'target', importance: 'HIGH', documentation: 'Alias of the target cluster (B in A->B).' })
  .define({ name: 'source.cluster.bootstrap.servers', type: 'LIST', importance: 'HIGH', documentation: 'Brokers of the source cluster.' })
  .define({ name: 'target.cluster.bootstrap.servers', type: 'LIST', importance: 'HIGH', documentation: 'Brokers of the target cluster.' })
  .define({ name: 'replication.policy.class', type: 'CLASS', defaultValue: 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy', importance: 'LOW', documentation: 'How remote topics are named (DefaultReplicationPolicy or IdentityReplicationPolicy).' })
  .define({ name: 'replication.policy.separator', type: 'STRING', defaultValue: '.', importance: 'LOW', documentation: 'Separator between the cluster alias and the topic in remote topic names.' })
  .define({ name: 'mode', type: 'STRING', defaultValue: 'mm2', importance: 'HIGH', documentation: 'mm2: MirrorMaker 2 replication (records re-produced, offsets translated); exact: Tributary\'s offset-preserving mode (batches copied into read-only mirror topics at the same offsets, group offsets copied as they are; docs/mirror.md).', validator: Validators.in('mm2', 'exact') })
  .define({ name: 'admin.timeout.ms', type: 'LONG', defaultValue: 60000, importance: 'LOW', documentation: 'Timeout of admin calls.', validator: positive });

export const SOURCE_DEF = new ConfigDef()
  .merge(COMMON_DEF)
  .define({ name: 'topics', type: 'LIST', defaultValue: ['.*'], importance: 'HIGH', documentation: 'Topics to replicate: comma-separated regular expressions (whole-name match).' })
  .define({ name: 'topics.exclude', type: 'LIST', defaultValue: TOPICS_EXCLUDE_DEFAULT.split(','), importance: 'HIGH', documentation: 'Topics never replicated: comma-separated regular expressions.' })
  .define({ name: 'config.properties.exclude', type: 'LIST', defaultValue: CONFIG_PROPERTIES_EXCLUDE_DEFAULT.split(','), importance: 'HIGH', documentation: 'Topic configs never synced: comma-separated regular expressions.' })
  .define({ name: 'replication.factor', type: 'INT', defaultValue: 2, importance: 'HIGH', documentation: 'Replication factor of remote topics (-1: the target broker default).' })
  .define({ name: 'offset-syncs.topic.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'LOW', documentation: 'Replication factor of the offset syncs topic.' })
  .define({ name: 'offset-syncs.topic.location', type: 'STRING', defaultValue: 'source', importance: 'LOW', documentation: 'Cluster holding the offset syncs topic: source or target.', validator: Validators.in('source', 'target') })
  .define({ name: 'refresh.topics.enabled', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Whether to look for new topics and partitions periodically.' })
  .define({ name: 'refresh.topics.interval.seconds', type: 'DOUBLE', defaultValue: 600, importance: 'LOW', documentation: 'How often to look for new topics and partitions.' })
  .define({ name: 'sync.topic.configs.enabled', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Whether to copy topic configs to remote topics.' })
  .define({ name: 'sync.topic.configs.interval.seconds', type: 'DOUBLE', defaultValue: 600, importance: 'LOW', documentation: 'How often to copy topic configs.' })
  .define({ name: 'sync.topic.acls.enabled', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Whether to copy the LITERAL topic ACLs of replicated topics to their remote topics (read-only: ALLOW WRITE skipped, ALLOW ALL as READ).' })
  .define({ name: 'sync.topic.acls.interval.seconds', type: 'DOUBLE', defaultValue: 600, importance: 'LOW', documentation: 'How often to copy topic ACLs.' })
  .define({ name: 'offset.lag.max', type: 'LONG', defaultValue: 100, importance: 'LOW', documentation: 'How far the offset translated from the last offset sync may fall behind before a new sync is emitted.', validator: Validators.atLeast(0) })
  .define({ name: 'consumer.max.poll.records', type: 'INT', defaultValue: 500, importance: 'LOW', documentation: 'Records per fetch batch of the source consumer.', validator: positive })
  .define({ name: 'consumer.auto.offset.reset', type: 'STRING', defaultValue: 'earliest', importance: 'LOW', documentation: 'Where a partition with no stored offset starts: earliest or latest.', validator: Validators.in('earliest', 'latest') });

export const CHECKPOINT_DEF = new ConfigDef()
  .merge(COMMON_DEF)
  .define({ name: 'topics', type: 'LIST', defaultValue: ['.*'], importance: 'HIGH', documentation: 'Topics whose group offsets are checkpointed.' })
  .define({ name: 'topics.exclude', type: 'LIST', defaultValue: TOPICS_EXCLUDE_DEFAULT.split(','), importance: 'HIGH', documentation: 'Topics never checkpointed.' })
  .define({ name: 'groups', type: 'LIST', defaultValue: ['.*'], importance: 'HIGH', documentation: 'Consumer groups to checkpoint: comma-separated regular expressions.' })
  .define({ name: 'groups.exclude', type: 'LIST', defaultValue: GROUPS_EXCLUDE_DEFAULT.split(','), importance: 'HIGH', documentation: 'Consumer groups never checkpointed.' })
  .define({ name: 'offset-syncs.topic.location', type: 'STRING', defaultValue: 'source', importance: 'LOW', documentation: 'Cluster holding the offset syncs topic: source or target.', validator: Validators.in('source', 'target') })
  .define({ name: 'checkpoints.topic.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'LOW', documentation: 'Replication factor of the checkpoints topic.' })
  .define({ name: 'emit.checkpoints.enabled', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Whether to emit checkpoints.' })
  .define({ name: 'emit.checkpoints.interval.seconds', type: 'DOUBLE', defaultValue: 60, importance: 'LOW', documentation: 'How often to emit checkpoints.' })
  .define({ name: 'refresh.groups.enabled', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Whether to look for new consumer groups periodically.' })
  .define({ name: 'refresh.groups.interval.seconds', type: 'DOUBLE', defaultValue: 600, importance: 'LOW', documentation: 'How often to look for new consumer groups.' })
  .define({ name: 'sync.group.offsets.enabled', type: 'BOOLEAN', defaultValue: false, importance: 'LOW', documentation: 'Whether to commit translated offsets to the target cluster\'s groups (only groups with no active member there).' })
  .define({ name: 'sync.group.offsets.interval.seconds', type: 'DOUBLE', defaultValue: 60, importance: 'LOW', documentation: 'How often to commit translated offsets to target groups.' });

export const HEARTBEAT_DEF = new ConfigDef()
  .merge(COMMON_DEF)
  .define({ name: 'emit.heartbeats.enabled', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Whether to emit heartbeats.' })
  .define({ name: 'emit.heartbeats.interval.seconds', type: 'DOUBLE', defaultValue: 1, importance: 'LOW', documentation: 'How often to emit heartbeats.' })
  .define({ name: 'heartbeats.topic.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'LOW', documentation: 'Replication factor of the heartbeats topic.' });

/** What every mirror connector and task reads from its config. */
export interface MirrorConfig {
  readonly c: ParsedConfig;
  readonly source: string;
  readonly target: string;
  readonly sourceBootstrap: string;
  readonly targetBootstrap: string;
  readonly policy: ReplicationPolicy;
  readonly topicFilter: RegexFilter;
  /** `mode = exact`: offset-preserving copies into mirror topics (exact-task.ts). */
  readonly exact: boolean;
}

export function parseMirrorConfig(def: ConfigDef, props: Readonly<Record<string, string>>): MirrorConfig {
  const c = ParsedConfig.of(def, props);
  const source = c.string('source.cluster.alias');
  const hasTopics = def.get('topics') !== undefined;
  return {
    c,
    source,
    target: c.string('target.cluster.alias'),
    sourceBootstrap: c.list('source.cluster.bootstrap.servers').join(','),
    targetBootstrap: c.list('target.cluster.bootstrap.servers').join(','),
    policy: policyFromConfig(props, source),
    topicFilter: hasTopics ? new RegexFilter('topics', c.list('topics'), c.list('topics.exclude')) : new RegexFilter('topics', ['.*'], []),
    exact: c.string('mode') === 'exact',
  };
}

/** Seconds (DOUBLE) of a key as milliseconds, at least 10 ms. */
export function intervalMs(c: ParsedConfig, name: string): number {
  return Math.max(10, Math.round(c.number(name) * 1000));
}

/**
 * Validation a mirror connector adds to its ConfigDef's: the policy class
 * must be known, and records must pass as bytes (ByteArrayConverter for key
 * and value), since mirrored keys and values are opaque.
 */
export function validateMirror(def: ConfigDef, props: Readonly<Record<string, string>>): ConfigValue[] {
  const values = def.validate(props);
  const add = (name: string, error: string): void => {
    const v = values.find((x) => x.name === name);
    if (v !== undefined) v.errors.push(error);
    else values.push({ name, value: props[name] ?? null, recommendedValues: [], errors: [error], visible: true });
  };
  try {
    policyFromConfig(props);
  } catch (err) {
    add('replication.policy.class', (err as Error).message);
  }
  for (const which of ['key.converter', 'value.converter']) {
    const v = props[which];
    if (v !== BYTE_ARRAY_CONVERTER && v !== 'ByteArrayConverter') add(which, `${which} must be ${BYTE_ARRAY_CONVERTER}: mirrored records are copied as bytes`);
  }
  for (const name of ['topics', 'topics.exclude', 'groups', 'groups.exclude', 'config.properties.exclude']) {
    if (def.get(name) === undefined || props[name] === undefined) continue;
    try {
      new RegexFilter(name, props[name].split(','), []);
    } catch (err) {
      add(name, (err as ConfigException).message);
    }
  }
  return values;
}

/**
 * Replication policies: how a topic replicated from cluster A is named on
 * the target, and how a name is traced back to where it came from (Kafka's
 * `ReplicationPolicy`, KIP-382). Two policies, with MirrorMaker 2's class
 * names: `DefaultReplicationPolicy` (`A.orders`, with
 * `replication.policy.separator`) and `IdentityReplicationPolicy` (same
 * names; KIP-690), plus the names of MirrorMaker 2's internal topics.
 *
 * Cycle detection follows the names: a topic whose source (or any source
 * up its chain) is the target cluster came from there and is never sent
 * back. The identity policy cannot see where a topic came from (except
 * heartbeats), so it cannot break cycles; mm2-config.ts refuses an
 * identity setup that would loop.
 */
export const DEFAULT_POLICY_CLASS = 'org.apache.kafka.connect.mirror.DefaultReplicationPolicy';
export const IDENTITY_POLICY_CLASS = 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy';
export const SEPARATOR_DEFAULT = '.';
const HEARTBEATS_TOPIC = 'heartbeats';

/** How remote topics are named and traced back (Kafka's ReplicationPolicy). */
export interface ReplicationPolicy {
  /** The name on the target of `topic` replicated from `sourceCluster`. */
  formatRemoteTopic(sourceCluster: string, topic: string): string;
  /** The cluster a remote topic came from, or null for a topic that looks local. */
  topicSource(topic: string): string | null;
  /** The topic's name one hop upstream, or null when it looks local. */
  upstreamTopic(topic: string): string | null;
  /** The name at the very first cluster (the whole chain undone). */
  originalTopic(topic: string): string;
  heartbeatsTopic(): string;
  offsetSyncsTopic(cluster: string): string;
  checkpointsTopic(cluster: string): string;
  isHeartbeatsTopic(topic: string): boolean;
  isCheckpointsTopic(topic: string): boolean;
  /** MirrorMaker's own internal topics (offset syncs, checkpoints). */
  isMM2InternalTopic(topic: string): boolean;
  /** Internal topics of Kafka, Connect and MirrorMaker: never replicated. */
  isInternalTopic(topic: string): boolean;
}

/** `A.orders`: the source alias, the separator, the topic (Kafka's DefaultReplicationPolicy). */
export class DefaultReplicationPolicy implements ReplicationPolicy {
  constructor(readonly separator: string = SEPARATOR_DEFAULT) {
    if (separator === '') throw new Error('replication.policy.separator must not be empty');
  }

  formatRemoteTopic(sourceCluster: string, topic: string): string {
    return `${sourceCluster}${this.separator}${topic}`;
  }

  topicSource(topic: string): string | null {
    const at = topic.indexOf(this.separator);
    return at <= 0 ? null : topic.slice(0, at);
  }

  upstreamTopic(topic: string): string | null {
    const source = this.topicSource(topic);
    return source === null ? null : topic.slice(source.length + this.separator.length);
  }

  originalTopic(topic: string): string {
    let current = topic;
    for (let up = this.upstreamTopic(current); up !== null && up !== current; up = this.upstreamTopic(current)) current = up;
    return current;
  }

  heartbeatsTopic(): string {
    return HEARTBEATS_TOPIC;
  }

  private internalSuffix(): string {
    return `${this.separator}internal`;
  }

  offsetSyncsTopic(cluster: string): string {
    return `mm2-offset-syncs${this.separator}${cluster}${this.internalSuffix()}`;
  }

  checkpointsTopic(cluster: string): string {
    return `${cluster}${this.separator}checkpoints${this.internalSuffix()}`;
  }

  isHeartbeatsTopic(topic: string): boolean {
    return this.originalTopic(topic) === HEARTBEATS_TOPIC;
  }

  isCheckpointsTopic(topic: string): boolean {
    return topic.endsWith(`${this.separator}checkpoints${this.internalSuffix()}`);
  }

  isMM2InternalTopic(topic: string): boolean {
    return (topic.startsWith('mm2') && topic.endsWith(this.internalSuffix())) || this.isCheckpointsTopic(topic);
  }

  isInternalTopic(topic: string): boolean {
    const kafkaInternal = topic.startsWith('__') || topic.startsWith('.');
    const connectInternal = topic.endsWith('-internal') || topic.endsWith('.internal');
    return this.isMM2InternalTopic(topic) || kafkaInternal || connectInternal;
  }
}

/**
 * Same names on both sides (Kafka's IdentityReplicationPolicy, KIP-690),
 * except heartbeats, which keep the prefix so heartbeats still show the
 * path records took. `sourceCluster` (`source.cluster.alias`) is what
 * topicSource answers for an ordinary topic.
 */
export class IdentityReplicationPolicy extends DefaultReplicationPolicy {
  constructor(separator: string = SEPARATOR_DEFAULT, private readonly sourceCluster: string | null = null) {
    super(separator);
  }

  private looksLikeHeartbeat(topic: string): boolean {
    return topic.endsWith(this.heartbeatsTopic());
  }

  override formatRemoteTopic(sourceCluster: string, topic: string): string {
    return this.looksLikeHeartbeat(topic) ? super.formatRemoteTopic(sourceCluster, topic) : topic;
  }

  override topicSource(topic: string): string | null {
    return this.looksLikeHeartbeat(topic) ? super.topicSource(topic) : this.sourceCluster;
  }

  override upstreamTopic(topic: string): string | null {
    return this.looksLikeHeartbeat(topic) ? super.upstreamTopic(topic) : topic;
  }
}

/** The policy a connector or mm2.properties config names (`replication.policy.class`, full or short name). */
export function policyFromConfig(props: Readonly<Record<string, string>>, sourceCluster: string | null = null): ReplicationPolicy {
  const cls = (props['replication.policy.class'] ?? DEFAULT_POLICY_CLASS).trim();
  const separator = props['replication.policy.separator'] ?? SEPARATOR_DEFAULT;
  if (cls === DEFAULT_POLICY_CLASS || cls === 'DefaultReplicationPolicy') return new DefaultReplicationPolicy(separator);
  if (cls === IDENTITY_POLICY_CLASS || cls === 'IdentityReplicationPolicy') return new IdentityReplicationPolicy(separator, sourceCluster);
  throw new Error(`replication.policy.class ${cls} is not known: use ${DEFAULT_POLICY_CLASS} or ${IDENTITY_POLICY_CLASS}`);
}

/**
 * True when `topic`, seen on the source cluster, came from `targetCluster`
 * somewhere up its chain: replicating it would send records home
 * (MirrorSourceConnector.isCycle).
 */
export function isCycle(policy: ReplicationPolicy, topic: string, targetCluster: string): boolean {
  let current = topic;
  for (let hops = 0; hops < 1000; hops++) {
    const source = policy.topicSource(current);
    if (source === null) return false;
    if (source === targetCluster) return true;
    const up = policy.upstreamTopic(current);
    // Identity-like policies answer the topic itself: nothing more to learn.
    if (up === null || up === current) return false;
    current = up;
  }
  return false;
}

/** Whether the source connector may replicate `topic` at all: not internal, not a cycle; heartbeats always qualify (the filter is applied by the caller). */
export function replicable(policy: ReplicationPolicy, topic: string, targetCluster: string): boolean {
  return !policy.isInternalTopic(topic) && !isCycle(policy, topic, targetCluster);
}

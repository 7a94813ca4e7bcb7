/**
 * Connects the broker to the metadata layer: boots the controller and its
 * metadata log (a one-voter Raft log when this node is alone), applies
 * every committed delta to the replica manager (open
 * logs for new partitions assigned here, delete logs of deleted topics, apply
 * topic config changes), and exposes the image and controller operations to
 * handlers as a MetadataService.
 */
import { ScramMechanismId } from '../controller/metadata/scram-credentials.js';
import type { Logger } from 'pino';
import type { FileSystem } from '../storage/fs.js';
import type { Clock } from '../util/clock.js';
import { systemTimer } from '../util/timer.js';
import { ConfigResourceType } from '../controller/metadata/records.js';
import type { MetadataDelta } from '../controller/metadata/delta.js';
import type { MetadataImage, TopicState } from '../controller/metadata/image.js';
import { bootController, type BootedController } from '../controller/boot.js';
import type { MetadataLog } from '../controller/metadata-log.js';
import type { BrokerEndpoint, MetadataService, TopicView } from './metadata-service.js';
import type { OngoingReassignmentView, TopicPartitionResults } from './metadata-service.js';
import { ErrorCode } from '../protocol/errors.js';
import { ongoingReassignment } from '../controller/partition-admin.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { BrokerSettings, ListenerSettings } from './settings.js';
import type { DynamicBrokerConfig } from './configs/dynamic-broker-config.js';
import { configSchemaFor } from './configs/schema.js';

export interface StartMetadataOptions {
  settings: BrokerSettings;
  fs: FileSystem;
  clock: Clock;
  logger: Logger;
  replicaManager: ReplicaManager;
  /** Topic config overrides, kept current for the replica manager and handlers. */
  topicOverrides: Map<string, ReadonlyMap<string, string>>;
  /** Told about every partition added or changed (after the replica manager applied it). */
  onPartitionChanged?: (topic: string, partition: number) => void;
  /** The Raft metadata log of a multi-node cluster (src/broker/lifecycle/cluster-node.ts); default: a one-voter Raft log (this node alone). */
  log?: MetadataLog;
}

export interface StartedMetadata {
  service: MetadataService;
  /** Registers (or re-registers) this node with its advertised endpoints. */
  registerBroker(endpoints: readonly ListenerSettings[]): Promise<void>;
  close(): Promise<void>;
  /** The controller, image and log (cluster nodes drive the controller and the lifecycle from these). */
  booted: BootedController;
}

function isInternalTopic(name: string): boolean {
  return name === '__consumer_offsets' || name === '__transaction_state';
}

/**
 * A topic as Metadata and DescribeTopicPartitions show it. Offline replicas
 * are those on a broker that is not registered or is fenced (Kafka's
 * KRaftMetadataCache.getOfflineReplicas; we have one log dir per broker).
 */
function topicView(t: TopicState, image: MetadataImage): TopicView {
  const offline = (replicas: readonly number[]): number[] => replicas.filter((id) => {
    const b = image.broker(id);
    return b === undefined || b.fenced;
  });
  const partitions = [...t.partitions.values()]
    .sort((a, b) => a.partitionId - b.partitionId)
    .map((p) => ({
      partition: p.partitionId, leader: p.leader, leaderEpoch: p.leaderEpoch, replicas: p.replicas, isr: p.isr,
      elr: p.elr, lastKnownElr: p.lastKnownElr, offlineReplicas: offline(p.replicas),
    }));
  return { name: t.name, topicId: t.topicId, isInternal: isInternalTopic(t.name), partitions };
}

export function applyDelta(delta: MetadataDelta, image: MetadataImage, opts: StartMetadataOptions): void {
  const { replicaManager, topicOverrides, logger } = opts;
  for (const t of delta.topicsDeleted) {
    topicOverrides.delete(t.name);
    for (const partition of t.partitionIds) replicaManager.removePartition(t.name, partition, true);
    logger.info({ topic: t.name, topicId: t.topicId }, 'topic deleted');
  }
  const touchedTopics = new Set<string>();
  let brokerConfigChanged = false;
  for (const c of delta.configsChanged) {
    if (c.resourceType === ConfigResourceType.Broker) {
      brokerConfigChanged = applyBrokerConfig(c.resourceName, image, opts) || brokerConfigChanged;
      continue;
    }
    if (c.resourceType !== ConfigResourceType.Topic) continue;
    topicOverrides.set(c.resourceName, new Map(image.topicConfigs(c.resourceName)));
    touchedTopics.add(c.resourceName);
  }
  for (const e of [...delta.partitionsAdded, ...delta.partitionsChanged]) {
    replicaManager.applyAssignment({
      topic: e.topicName,
      topicId: e.topicId,
      partition: e.partition.partitionId,
      replicas: e.partition.replicas,
      isr: e.partition.isr,
      leader: e.partition.leader,
      leaderEpoch: e.partition.leaderEpoch,
      partitionEpoch: e.partition.partitionEpoch,
    });
  }
  // A dynamic broker default changes every topic that does not override it.
  if (brokerConfigChanged) for (const p of replicaManager.all()) touchedTopics.add(p.topic);
  for (const topic of touchedTopics) replicaManager.updateTopicConfig(topic);
  for (const e of [...delta.partitionsAdded, ...delta.partitionsChanged]) opts.onPartitionChanged?.(e.topicName, e.partition.partitionId);
  for (const t of delta.topicsCreated) logger.info({ topic: t.name, topicId: t.topicId }, 'topic created');
}

/** Feeds a broker resource's committed configs to the dynamic overlay; true when this node's config changed. */
function applyBrokerConfig(resourceName: string, image: MetadataImage, opts: StartMetadataOptions): boolean {
  const dynamic = opts.settings.dynamicConfig;
  if (dynamic === undefined) return false;
  const configs = image.configs(ConfigResourceType.Broker, resourceName);
  const { changed, problems } = dynamic.apply(resourceName, configs);
  for (const p of problems) opts.logger.warn({ resource: resourceName, key: p.key }, p.message);
  if (changed) opts.logger.info({ resource: resourceName === '' ? '<cluster default>' : resourceName, configs: Object.fromEntries(configs) }, 'dynamic broker config applied');
  return changed;
}

export async function startMetadata(opts: StartMetadataOptions): Promise<StartedMetadata> {
  const { settings } = opts;
  const booted: BootedController = await bootController({
    dataDir: settings.dataDir,
    fs: opts.fs,
    clock: opts.clock,
    nodeId: settings.nodeId,
    numPartitionsDefault: settings.numPartitions,
    replicationFactorDefault: settings.defaultReplicationFactor,
    validateTopicConfigs: (configs) => settings.validateTopicConfigs(configs),
    ...(settings.dynamicConfig === undefined
      ? {}
      : {
          validateBrokerConfigs: (resourceName: string, configs: ReadonlyMap<string, string>) => (settings.dynamicConfig as DynamicBrokerConfig).validate(resourceName, configs),
          configSchema: configSchemaFor(settings.dynamicConfig),
        }),
    onDelta: (delta, image) => applyDelta(delta, image, opts),
    ...(opts.log === undefined ? { timer: systemTimer, onWarning: (message: string) => opts.logger.warn(message) } : { log: opts.log }),
    ...(settings.cluster === undefined
      ? {}
      : {
          clusterId: settings.cluster.clusterId ?? undefined,
          brokerSessionTimeoutMs: settings.cluster.brokerSessionTimeoutMs,
          minInSyncReplicasDefault: settings.cluster.minInSyncReplicasDefault,
          uncleanLeaderElectionDefault: settings.cluster.uncleanLeaderElectionDefault,
        }),
    onElections: (elections) => {
      for (const e of elections) {
        // An unclean election may lose acknowledged records (KIP-966 / Kafka's UncleanLeaderElectionsPerSec): always say so.
        if (e.kind === 'unclean') opts.logger.warn({ topic: e.topicName, partition: e.partitionId, leader: e.leader }, 'unclean leader election: the new leader may miss acknowledged records');
        else if (e.kind === 'none') opts.logger.warn({ topic: e.topicName, partition: e.partitionId }, 'partition offline: no replica may lead');
      }
    },
  });
  const image = (): MetadataImage => booted.image();

  const service: MetadataService = {
    clusterId: booted.clusterId,
    autoCreateTopicsEnable: settings.autoCreateTopicsEnable,
    controllerId: () => settings.nodeId,
    topicExists: (name) => image().topicByName(name) !== undefined,
    topic: (name) => {
      const now = image();
      const t = now.topicByName(name);
      return t ? topicView(t, now) : undefined;
    },
    topicNameById: (id) => image().topicById(id)?.name,
    topics: () => {
      const now = image();
      return [...now.topics()].map((t) => topicView(t, now)).sort((a, b) => a.name.localeCompare(b.name));
    },
    brokers: (listenerName): BrokerEndpoint[] =>
      image()
        .unfencedBrokers()
        .flatMap((b) => {
          const ep = b.endPoints.find((e) => e.name === listenerName) ?? b.endPoints[0];
          return ep ? [{ nodeId: b.brokerId, host: ep.host, port: ep.port, rack: b.rack }] : [];
        }),
    createTopics: (topics, validateOnly) => booted.controller.createTopics(topics, { validateOnly }),
    deleteTopics: (refs) => {
      if (!settings.deleteTopicEnable) {
        return Promise.resolve(
          refs.map((r) => ({ name: r.name, topicId: r.topicId ?? '', errorCode: 73, errorMessage: 'topic deletion is disabled (delete.topic.enable=false)' })),
        );
      }
      return booted.controller.deleteTopics(refs);
    },
    createPartitions: (specs, validateOnly) => booted.controller.createPartitions(specs, { validateOnly }),
    ...partitionLeadershipOps(booted),
    alterConfigs: (resources, validateOnly) => booted.controller.alterConfigs(resources, { validateOnly }),
    incrementalAlterConfigs: (resources, validateOnly) => booted.controller.incrementalAlterConfigs(resources, { validateOnly }),
    scramCredential: (mechanism, user) => image().scramCredentials.get(user, ScramMechanismId[mechanism]),
    scramUsers: () => image().scramCredentials.users(),
    scramCredentialsOf: (user) => image().scramCredentials.ofUser(user),
    alterScramCredentials: (deletions, upsertions) => booted.controller.alterUserScramCredentials(deletions, upsertions),
    acls: () => [...image().acls.all()],
    createAcls: (bindings) => booted.controller.createAcls(bindings),
    deleteAcls: (filters) => booted.controller.deleteAcls(filters),
    clientQuotas: () => image().clientQuotas,
    alterClientQuotas: (alterations, validateOnly) => booted.controller.alterClientQuotas(alterations, { validateOnly }),
    allocateProducerIds: () => booted.controller.allocateProducerIds(settings.nodeId, image().broker(settings.nodeId)?.brokerEpoch ?? -1n),
  };

  return {
    service,
    registerBroker: async (endpoints) => {
      await booted.controller.registerBroker({ endpoints, rack: settings.rack });
    },
    close: () => booted.close(),
    booted,
  };
}

/**
 * ElectLeaders and partition reassignments: the controller's operations
 * (src/controller/partition-admin.ts), committed as PartitionChangeRecords
 * (the handlers forward the requests to the active controller first). New
 * replicas of a reassignment catch up as followers; the controller completes
 * it when they are all in the ISR.
 */
function partitionLeadershipOps(booted: BootedController): Pick<MetadataService, 'electLeaders' | 'alterPartitionReassignments' | 'listPartitionReassignments'> {
  const controller = booted.controller;
  return {
    electLeaders: (electionType, topicPartitions) => controller.electLeaders(electionType, topicPartitions),
    alterPartitionReassignments: (targets) => controller.alterPartitionReassignments(targets),
    listPartitionReassignments: (topics) => {
      const img = booted.image();
      const requested = topics ?? [...img.topics()].map((t) => ({ topic: t.name, partitions: [...t.partitions.keys()] }));
      const out: OngoingReassignmentView[] = [];
      for (const t of requested) {
        const partitions = t.partitions.flatMap((p) => {
          const state = img.partition(t.topic, p);
          const ongoing = state === undefined ? null : ongoingReassignment(state);
          return ongoing === null ? [] : [{ partition: p, ...ongoing }];
        });
        if (partitions.length > 0) out.push({ topic: t.topic, partitions });
      }
      return out;
    },
  };
}

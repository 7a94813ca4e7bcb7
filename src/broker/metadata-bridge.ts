/**
 * Connects the broker to the metadata layer: boots the controller and its
 * metadata log, applies every committed delta to the replica manager (open
 * logs for new partitions assigned here, delete logs of deleted topics, apply
 * topic config changes), and exposes the image and controller operations to
 * handlers as a MetadataService.
 */
import type { Logger } from 'pino';
import type { FileSystem } from '../storage/fs.js';
import type { Clock } from '../util/clock.js';
import { ConfigResourceType } from '../controller/metadata/records.js';
import type { MetadataDelta } from '../controller/metadata/delta.js';
import type { MetadataImage, TopicState } from '../controller/metadata/image.js';
import { bootController, type BootedController } from '../controller/boot.js';
import type { BrokerEndpoint, MetadataService, TopicView } from './metadata-service.js';
import type { ReplicaManager } from './replica-manager.js';
import type { BrokerSettings, ListenerSettings } from './settings.js';

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
}

export interface StartedMetadata {
  service: MetadataService;
  /** Registers (or re-registers) this node with its advertised endpoints. */
  registerBroker(endpoints: readonly ListenerSettings[]): Promise<void>;
  close(): Promise<void>;
}

function isInternalTopic(name: string): boolean {
  return name === '__consumer_offsets' || name === '__transaction_state';
}

function topicView(t: TopicState): TopicView {
  const partitions = [...t.partitions.values()]
    .sort((a, b) => a.partitionId - b.partitionId)
    .map((p) => ({ partition: p.partitionId, leader: p.leader, leaderEpoch: p.leaderEpoch, replicas: p.replicas, isr: p.isr }));
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
  for (const c of delta.configsChanged) {
    if (c.resourceType !== ConfigResourceType.Topic) continue;
    topicOverrides.set(c.resourceName, new Map(image.topicConfigs(c.resourceName)));
    touchedTopics.add(c.resourceName);
  }
  for (const e of [...delta.partitionsAdded, ...delta.partitionsChanged]) {
    replicaManager.becomeReplica({
      topic: e.topicName,
      topicId: e.topicId,
      partition: e.partition.partitionId,
      replicas: e.partition.replicas,
      isr: e.partition.isr,
      leader: e.partition.leader,
      leaderEpoch: e.partition.leaderEpoch,
    });
  }
  for (const topic of touchedTopics) replicaManager.updateTopicConfig(topic);
  for (const e of [...delta.partitionsAdded, ...delta.partitionsChanged]) opts.onPartitionChanged?.(e.topicName, e.partition.partitionId);
  for (const t of delta.topicsCreated) logger.info({ topic: t.name, topicId: t.topicId }, 'topic created');
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
    onDelta: (delta, image) => applyDelta(delta, image, opts),
  });
  const image = (): MetadataImage => booted.image();

  const service: MetadataService = {
    clusterId: booted.clusterId,
    autoCreateTopicsEnable: settings.autoCreateTopicsEnable,
    controllerId: () => settings.nodeId,
    topicExists: (name) => image().topicByName(name) !== undefined,
    topic: (name) => {
      const t = image().topicByName(name);
      return t ? topicView(t) : undefined;
    },
    topicNameById: (id) => image().topicById(id)?.name,
    topics: () => [...image().topics()].map(topicView).sort((a, b) => a.name.localeCompare(b.name)),
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
  };

  return {
    service,
    registerBroker: (endpoints) => booted.controller.registerBroker({ endpoints, rack: settings.rack }),
    close: () => booted.close(),
  };
}

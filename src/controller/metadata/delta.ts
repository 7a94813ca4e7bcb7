/**
 * What one applied batch changed in the MetadataImage. Subscribers (the broker
 * creating and deleting partition logs, the metadata cache answering Metadata
 * requests) read deltas instead of diffing images.
 *
 * A delta holds the net effect of its batch: a topic created and deleted in
 * the same batch appears in neither list, a partition added and then changed
 * appears once in `partitionsAdded` with its final state. A topic deleted and
 * re-created under the same name appears in both lists with different ids:
 * process `topicsDeleted` before `topicsCreated`.
 */
import type { BrokerRegistration, PartitionState } from './image.js';

export interface TopicRef {
  readonly name: string;
  readonly topicId: string;
}

export interface DeletedTopic extends TopicRef {
  /** The partition ids the topic had, so their logs can be deleted. */
  readonly partitionIds: readonly number[];
}

export interface PartitionEntry {
  readonly topicName: string;
  readonly topicId: string;
  readonly partition: PartitionState;
}

export interface PartitionChangeEntry extends PartitionEntry {
  readonly previous: PartitionState;
}

export interface ConfigChange {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly name: string;
  /** The new value; null when the key was deleted. */
  readonly value: string | null;
}

export interface BrokerChange {
  readonly brokerId: number;
  /** The registration now; null when the broker was unregistered. */
  readonly registration: BrokerRegistration | null;
  readonly previous: BrokerRegistration | null;
}

export interface FeatureChange {
  readonly name: string;
  /** 0 when the feature was removed. */
  readonly featureLevel: number;
}

export interface MetadataDelta {
  /** Offsets of the batch that produced the delta (the whole image for an initial delta). */
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  /** True for the delta that describes a whole image to a new subscriber. */
  readonly initial: boolean;
  readonly topicsCreated: readonly TopicRef[];
  readonly topicsDeleted: readonly DeletedTopic[];
  /** Every new partition, including those of created topics. */
  readonly partitionsAdded: readonly PartitionEntry[];
  readonly partitionsChanged: readonly PartitionChangeEntry[];
  readonly configsChanged: readonly ConfigChange[];
  readonly brokersChanged: readonly BrokerChange[];
  readonly featuresChanged: readonly FeatureChange[];
}

export function isEmptyDelta(d: MetadataDelta): boolean {
  return (
    d.topicsCreated.length === 0 &&
    d.topicsDeleted.length === 0 &&
    d.partitionsAdded.length === 0 &&
    d.partitionsChanged.length === 0 &&
    d.configsChanged.length === 0 &&
    d.brokersChanged.length === 0 &&
    d.featuresChanged.length === 0
  );
}

/** Accumulates the net effect of records as the image applies them. */
export class DeltaBuilder {
  private readonly created = new Map<string, TopicRef>();
  private readonly deleted: DeletedTopic[] = [];
  private readonly added = new Map<string, PartitionEntry>();
  private readonly changed = new Map<string, PartitionChangeEntry>();
  private readonly configs = new Map<string, ConfigChange>();
  private readonly brokers = new Map<number, BrokerChange>();
  private readonly features = new Map<string, FeatureChange>();

  topicCreated(topic: TopicRef): void {
    this.created.set(topic.topicId, topic);
  }

  topicDeleted(topic: DeletedTopic): void {
    const key = (p: string): boolean => p.startsWith(`${topic.topicId}:`);
    for (const k of [...this.added.keys()].filter(key)) this.added.delete(k);
    for (const k of [...this.changed.keys()].filter(key)) this.changed.delete(k);
    for (const [k, c] of this.configs) if (c.resourceType === 2 && c.resourceName === topic.name) this.configs.delete(k);
    // Created and deleted within the batch: the outside world never saw it.
    if (!this.created.delete(topic.topicId)) this.deleted.push(topic);
  }

  partitionAdded(entry: PartitionEntry): void {
    this.added.set(`${entry.topicId}:${entry.partition.partitionId}`, entry);
  }

  partitionChanged(entry: PartitionChangeEntry): void {
    const k = `${entry.topicId}:${entry.partition.partitionId}`;
    const added = this.added.get(k);
    if (added !== undefined) {
      this.added.set(k, { topicName: entry.topicName, topicId: entry.topicId, partition: entry.partition });
      return;
    }
    const earlier = this.changed.get(k);
    this.changed.set(k, earlier === undefined ? entry : { ...entry, previous: earlier.previous });
  }

  configChanged(change: ConfigChange): void {
    this.configs.set(`${change.resourceType}\u0000${change.resourceName}\u0000${change.name}`, change);
  }

  brokerChanged(change: BrokerChange): void {
    const earlier = this.brokers.get(change.brokerId);
    this.brokers.set(change.brokerId, earlier === undefined ? change : { ...change, previous: earlier.previous });
  }

  featureChanged(change: FeatureChange): void {
    this.features.set(change.name, change);
  }

  build(baseOffset: bigint, lastOffset: bigint, initial: boolean): MetadataDelta {
    return {
      baseOffset,
      lastOffset,
      initial,
      topicsCreated: [...this.created.values()],
      topicsDeleted: this.deleted,
      partitionsAdded: [...this.added.values()],
      partitionsChanged: [...this.changed.values()],
      configsChanged: [...this.configs.values()],
      brokersChanged: [...this.brokers.values()],
      featuresChanged: [...this.features.values()],
    };
  }
}

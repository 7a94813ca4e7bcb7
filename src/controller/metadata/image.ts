/**
 * The in-memory MetadataImage: the state of the cluster obtained by applying
 * every committed metadata record in log order. The controller validates
 * requests against it; the broker answers Metadata requests from it and
 * reacts to the MetadataDelta each applied batch produces.
 *
 * One batch is applied whole. Records that break an invariant (a partition of
 * an unknown topic, a leader outside the replicas, an epoch going back) mean a
 * bug in the controller or a log that was not written by it: they fail an
 * assertion, which stops the process (CONTRIBUTING.md: assert invariants, validate input). The controller
 * validates every request before it appends, so it never writes such records.
 *
 * Objects handed out (TopicState, PartitionState, BrokerRegistration) are
 * never mutated after they are handed out: a change replaces the object, so
 * a delta's `previous` and a caller's reference stay valid snapshots.
 */
import { invariant } from '../../util/assert.js';
import { ZERO_UUID } from '../../protocol/codec.js';
import type { MetadataBatch } from './batch.js';
import { DeltaBuilder, type MetadataDelta } from './delta.js';
import { ConfigResourceType, NO_LEADER, NO_LEADER_CHANGE, type MetadataRecord, type RecordOf } from './records.js';
import { ScramCredentials } from './scram-credentials.js';
import { AclStore } from './acls.js';
import { ClientQuotas } from './client-quotas.js';

export interface PartitionState {
  readonly partitionId: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly removingReplicas: readonly number[];
  readonly addingReplicas: readonly number[];
  /** A broker id from `replicas`, or -1 (no leader). */
  readonly leader: number;
  readonly leaderRecoveryState: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  /** Eligible Leader Replicas (KIP-966): out of the ISR, but hold every committed record. */
  readonly elr: readonly number[];
  /** The ELR members last known before ISR and ELR both emptied (KIP-966). */
  readonly lastKnownElr: readonly number[];
}

export interface TopicState {
  readonly name: string;
  readonly topicId: string;
  /** Partition id -> state; ids are 0..n-1. */
  readonly partitions: ReadonlyMap<number, PartitionState>;
}

export interface EndPoint {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly securityProtocol: number;
}

export interface BrokerRegistration {
  readonly brokerId: number;
  readonly incarnationId: string;
  readonly brokerEpoch: bigint;
  readonly endPoints: readonly EndPoint[];
  readonly rack: string | null;
  readonly fenced: boolean;
  readonly inControlledShutdown: boolean;
}

interface MutableTopic {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: Map<number, PartitionState>;
}

function configKey(resourceType: number, resourceName: string): string {
  return `${resourceType}\u0000${resourceName}`;
}

const EMPTY_CONFIG: ReadonlyMap<string, string> = new Map();

export class MetadataImage {
  private readonly byName = new Map<string, MutableTopic>();
  private readonly byId = new Map<string, MutableTopic>();
  private readonly configMaps = new Map<string, Map<string, string>>();
  private readonly brokerMap = new Map<number, BrokerRegistration>();
  private readonly featureMap = new Map<string, number>();
  private nextProducerIdValue = 0n;
  private lastOffset = -1n;
  /** SCRAM credentials (KIP-554); read by brokers at login, changed only by applied records. */
  readonly scramCredentials = new ScramCredentials();
  /** ACLs (AccessControlEntryRecord); read by the authorizer, changed only by applied records. */
  readonly acls = new AclStore();
  /** Client quotas (KIP-546); read by brokers per request (src/security/quota), changed only by applied records. */
  readonly clientQuotas = new ClientQuotas();

  constructor(readonly clusterId: string) {}

  /** Offset of the last record (or control batch) applied; -1 when empty. */
  get lastAppliedOffset(): bigint {
    return this.lastOffset;
  }

  get topicCount(): number {
    return this.byName.size;
  }

  topics(): IterableIterator<TopicState> {
    return this.byName.values();
  }

  topicByName(name: string): TopicState | undefined {
    return this.byName.get(name);
  }

  topicById(topicId: string): TopicState | undefined {
    return this.byId.get(topicId);
  }

  partition(topicName: string, partitionId: number): PartitionState | undefined {
    return this.byName.get(topicName)?.partitions.get(partitionId);
  }

  /** The explicitly set configs of a resource (defaults are not stored). */
  configs(resourceType: number, resourceName: string): ReadonlyMap<string, string> {
    return this.configMaps.get(configKey(resourceType, resourceName)) ?? EMPTY_CONFIG;
  }

  topicConfigs(topicName: string): ReadonlyMap<string, string> {
    return this.configs(ConfigResourceType.Topic, topicName);
  }

  broker(brokerId: number): BrokerRegistration | undefined {
    return this.brokerMap.get(brokerId);
  }

  brokers(): IterableIterator<BrokerRegistration> {
    return this.brokerMap.values();
  }

  /** Registered brokers that are not fenced, by id. */
  unfencedBrokers(): BrokerRegistration[] {
    return [...this.brokerMap.values()].filter((b) => !b.fenced).sort((a, b) => a.brokerId - b.brokerId);
  }

  /** Brokers that may get new replicas and leaderships: unfenced and not in controlled shutdown, by id. */
  usableBrokers(): BrokerRegistration[] {
    return this.unfencedBrokers().filter((b) => !b.inControlledShutdown);
  }

  featureLevel(name: string): number | undefined {
    return this.featureMap.get(name);
  }

  features(): ReadonlyMap<string, number> {
    return this.featureMap;
  }

  /** The first producer id not yet handed out in a block (ProducerIdsRecord). */
  get nextProducerId(): bigint {
    return this.nextProducerIdValue;
  }

  /** Applies one committed batch in order and returns what it changed. */
  apply(batch: MetadataBatch): MetadataDelta {
    invariant(batch.baseOffset > this.lastOffset, `batch at ${batch.baseOffset} does not follow offset ${this.lastOffset}`);
    invariant(batch.lastOffset >= batch.baseOffset, `batch ends at ${batch.lastOffset} before it starts at ${batch.baseOffset}`);
    const delta = new DeltaBuilder();
    for (const record of batch.records) this.applyRecord(record, delta);
    this.lastOffset = batch.lastOffset;
    return delta.build(batch.baseOffset, batch.lastOffset, false);
  }

  /**
   * The records that rebuild this image from empty (a snapshot's content,
   * and the initial delta of a new subscriber).
   */
  toRecords(): MetadataRecord[] {
    const out: MetadataRecord[] = [];
    for (const [name, level] of this.featureMap) out.push({ type: 'FeatureLevelRecord', data: { name, featureLevel: level } });
    for (const b of this.brokerMap.values()) out.push(registrationRecord(b));
    if (this.nextProducerIdValue > 0n) out.push({ type: 'ProducerIdsRecord', data: { brokerId: -1, brokerEpoch: -1n, nextProducerId: this.nextProducerIdValue } });
    for (const t of this.byName.values()) {
      out.push({ type: 'TopicRecord', data: { name: t.name, topicId: t.topicId } });
      for (const p of t.partitions.values()) out.push({ type: 'PartitionRecord', data: partitionRecordData(t.topicId, p) });
    }
    for (const [key, values] of this.configMaps) {
      const [type, resourceName] = key.split('\u0000') as [string, string];
      for (const [name, value] of values) {
        out.push({ type: 'ConfigRecord', data: { resourceType: Number(type), resourceName, name, value } });
      }
    }
    out.push(...this.scramCredentials.toRecords());
    out.push(...this.acls.toRecords());
    out.push(...this.clientQuotas.toRecords());
    return out;
  }

  /** A delta that describes this whole image (everything "created"). */
  toInitialDelta(): MetadataDelta {
    const fresh = new MetadataImage(this.clusterId);
    const records = this.toRecords();
    const delta = new DeltaBuilder();
    for (const r of records) fresh.applyRecord(r, delta);
    return delta.build(0n, this.lastOffset, true);
  }

  private applyRecord(record: MetadataRecord, delta: DeltaBuilder): void {
    switch (record.type) {
      case 'TopicRecord':
        return this.applyTopic(record, delta);
      case 'PartitionRecord':
        return this.applyPartition(record, delta);
      case 'PartitionChangeRecord':
        return this.applyPartitionChange(record, delta);
      case 'RemoveTopicRecord':
        return this.applyRemoveTopic(record, delta);
      case 'ConfigRecord':
        return this.applyConfig(record.data, delta);
      case 'RegisterBrokerRecord':
        return this.applyRegisterBroker(record, delta);
      case 'UnregisterBrokerRecord':
        return this.applyUnregisterBroker(record, delta);
      case 'FenceBrokerRecord':
        return this.setFenced(record.data.id, record.data.epoch, true, delta);
      case 'UnfenceBrokerRecord':
        return this.setFenced(record.data.id, record.data.epoch, false, delta);
      case 'BrokerRegistrationChangeRecord':
        return this.applyBrokerRegistrationChange(record, delta);
      case 'FeatureLevelRecord':
        return this.applyFeatureLevel(record, delta);
      case 'ProducerIdsRecord':
        // Not in the delta: brokers ask the controller for blocks, they do not watch them.
        invariant(record.data.nextProducerId > this.nextProducerIdValue, `ProducerIdsRecord moves the next producer id back from ${this.nextProducerIdValue} to ${record.data.nextProducerId}`);
        this.nextProducerIdValue = record.data.nextProducerId;
        return;
      case 'UserScramCredentialRecord':
      case 'RemoveUserScramCredentialRecord':
        // Not in the delta: logins read the image when they happen.
        return this.scramCredentials.apply(record);
      case 'AccessControlEntryRecord':
      case 'RemoveAccessControlEntryRecord':
        // Not in the delta: the authorizer watches the store's generation.
        return this.acls.apply(record);
      case 'ClientQuotaRecord':
        // Not in the delta: quota managers read the image when a request comes.
        return this.clientQuotas.apply(record);
      case 'NoOpRecord':
        return;
    }
  }

  private applyTopic({ data }: RecordOf<'TopicRecord'>, delta: DeltaBuilder): void {
    invariant(data.topicId !== ZERO_UUID, `topic ${data.name} has the zero topic id`);
    invariant(!this.byName.has(data.name), `topic ${data.name} already exists`);
    invariant(!this.byId.has(data.topicId), `topic id ${data.topicId} already exists`);
    const topic: MutableTopic = { name: data.name, topicId: data.topicId, partitions: new Map() };
    this.byName.set(topic.name, topic);
    this.byId.set(topic.topicId, topic);
    delta.topicCreated({ name: topic.name, topicId: topic.topicId });
  }

  private topicOf(topicId: string, what: string): MutableTopic {
    const topic = this.byId.get(topicId);
    invariant(topic !== undefined, `${what} refers to unknown topic id ${topicId}`);
    return topic;
  }

  private applyPartition({ data }: RecordOf<'PartitionRecord'>, delta: DeltaBuilder): void {
    const topic = this.topicOf(data.topicId, `PartitionRecord ${data.partitionId}`);
    const next: PartitionState = {
      partitionId: data.partitionId,
      replicas: sharedIds(data.replicas),
      isr: sharedIds(data.isr),
      removingReplicas: sharedIds(data.removingReplicas),
      addingReplicas: sharedIds(data.addingReplicas),
      leader: data.leader,
      leaderRecoveryState: data.leaderRecoveryState,
      leaderEpoch: data.leaderEpoch,
      partitionEpoch: data.partitionEpoch,
      elr: sharedIds(data.eligibleLeaderReplicas),
      lastKnownElr: sharedIds(data.lastKnownElr),
    };
    checkPartition(topic.name, next);
    const previous = topic.partitions.get(data.partitionId);
    if (previous !== undefined) checkEpochsForward(topic.name, previous, next);
    else invariant(data.partitionId === topic.partitions.size, `${topic.name}-${data.partitionId} leaves a gap after ${topic.partitions.size} partitions`);
    topic.partitions.set(next.partitionId, next);
    const entry = { topicName: topic.name, topicId: topic.topicId, partition: next };
    if (previous === undefined) delta.partitionAdded(entry);
    else delta.partitionChanged({ ...entry, previous });
  }

  private applyPartitionChange({ data }: RecordOf<'PartitionChangeRecord'>, delta: DeltaBuilder): void {
    const topic = this.topicOf(data.topicId, `PartitionChangeRecord ${data.partitionId}`);
    const previous = topic.partitions.get(data.partitionId);
    invariant(previous !== undefined, `PartitionChangeRecord for unknown partition ${topic.name}-${data.partitionId}`);
    const leaderChanged = data.leader !== NO_LEADER_CHANGE && data.leader !== previous.leader;
    const next: PartitionState = {
      partitionId: previous.partitionId,
      replicas: data.replicas === null ? previous.replicas : sharedIds(data.replicas),
      isr: data.isr === null ? previous.isr : sharedIds(data.isr),
      removingReplicas: data.removingReplicas === null ? previous.removingReplicas : sharedIds(data.removingReplicas),
      addingReplicas: data.addingReplicas === null ? previous.addingReplicas : sharedIds(data.addingReplicas),
      leader: data.leader === NO_LEADER_CHANGE ? previous.leader : data.leader,
      leaderRecoveryState: data.leaderRecoveryState === -1 ? previous.leaderRecoveryState : data.leaderRecoveryState,
      // KRaft: a new leader starts a new leader epoch; every change is a new partition epoch.
      leaderEpoch: leaderChanged ? previous.leaderEpoch + 1 : previous.leaderEpoch,
      partitionEpoch: previous.partitionEpoch + 1,
      elr: data.eligibleLeaderReplicas === null ? previous.elr : sharedIds(data.eligibleLeaderReplicas),
      lastKnownElr: data.lastKnownElr === null ? previous.lastKnownElr : sharedIds(data.lastKnownElr),
    };
    checkPartition(topic.name, next);
    topic.partitions.set(next.partitionId, next);
    delta.partitionChanged({ topicName: topic.name, topicId: topic.topicId, partition: next, previous });
  }

  private applyRemoveTopic({ data }: RecordOf<'RemoveTopicRecord'>, delta: DeltaBuilder): void {
    const topic = this.topicOf(data.topicId, 'RemoveTopicRecord');
    this.byName.delete(topic.name);
    this.byId.delete(topic.topicId);
    // A topic's configs go with it (so a re-created topic starts from defaults).
    this.configMaps.delete(configKey(ConfigResourceType.Topic, topic.name));
    delta.topicDeleted({ name: topic.name, topicId: topic.topicId, partitionIds: [...topic.partitions.keys()] });
  }

  private applyConfig(data: RecordOf<'ConfigRecord'>['data'], delta: DeltaBuilder): void {
    const key = configKey(data.resourceType, data.resourceName);
    let values = this.configMaps.get(key);
    if (data.value === null) {
      if (values === undefined || !values.delete(data.name)) return;
      if (values.size === 0) this.configMaps.delete(key);
    } else {
      if (values === undefined) {
        values = new Map();
        this.configMaps.set(key, values);
      }
      if (values.get(data.name) === data.value) return;
      values.set(data.name, data.value);
    }
    delta.configChanged({ resourceType: data.resourceType, resourceName: data.resourceName, name: data.name, value: data.value });
  }

  private applyRegisterBroker({ data }: RecordOf<'RegisterBrokerRecord'>, delta: DeltaBuilder): void {
    invariant(data.brokerId >= 0, `broker id ${data.brokerId} is negative`);
    const previous = this.brokerMap.get(data.brokerId) ?? null;
    if (previous !== null) {
      invariant(data.brokerEpoch > previous.brokerEpoch, `broker ${data.brokerId} epoch goes back from ${previous.brokerEpoch} to ${data.brokerEpoch}`);
    }
    const registration: BrokerRegistration = {
      brokerId: data.brokerId,
      incarnationId: data.incarnationId,
      brokerEpoch: data.brokerEpoch,
      endPoints: data.endPoints.map((e) => ({ ...e })),
      rack: data.rack,
      fenced: data.fenced,
      inControlledShutdown: data.inControlledShutdown,
    };
    this.brokerMap.set(data.brokerId, registration);
    delta.brokerChanged({ brokerId: data.brokerId, registration, previous });
  }

  private applyUnregisterBroker({ data }: RecordOf<'UnregisterBrokerRecord'>, delta: DeltaBuilder): void {
    const previous = this.brokerMap.get(data.brokerId);
    invariant(previous !== undefined, `UnregisterBrokerRecord for unknown broker ${data.brokerId}`);
    invariant(previous.brokerEpoch === data.brokerEpoch, `UnregisterBrokerRecord for broker ${data.brokerId} epoch ${data.brokerEpoch}, registered with ${previous.brokerEpoch}`);
    this.brokerMap.delete(data.brokerId);
    delta.brokerChanged({ brokerId: data.brokerId, registration: null, previous });
  }

  private setFenced(brokerId: number, epoch: bigint, fenced: boolean, delta: DeltaBuilder): void {
    const previous = this.brokerMap.get(brokerId);
    invariant(previous !== undefined, `${fenced ? 'Fence' : 'Unfence'}BrokerRecord for unknown broker ${brokerId}`);
    invariant(previous.brokerEpoch === epoch, `${fenced ? 'Fence' : 'Unfence'}BrokerRecord for broker ${brokerId} epoch ${epoch}, registered with ${previous.brokerEpoch}`);
    if (previous.fenced === fenced) return;
    const registration = { ...previous, fenced };
    this.brokerMap.set(brokerId, registration);
    delta.brokerChanged({ brokerId, registration, previous });
  }

  private applyBrokerRegistrationChange({ data }: RecordOf<'BrokerRegistrationChangeRecord'>, delta: DeltaBuilder): void {
    const previous = this.brokerMap.get(data.brokerId);
    invariant(previous !== undefined, `BrokerRegistrationChangeRecord for unknown broker ${data.brokerId}`);
    invariant(previous.brokerEpoch === data.brokerEpoch, `BrokerRegistrationChangeRecord for broker ${data.brokerId} epoch ${data.brokerEpoch}, registered with ${previous.brokerEpoch}`);
    invariant(data.fenced >= -1 && data.fenced <= 1 && (data.inControlledShutdown === 0 || data.inControlledShutdown === 1), `BrokerRegistrationChangeRecord for broker ${data.brokerId}: bad values`);
    const fenced = data.fenced === 0 ? previous.fenced : data.fenced === 1;
    const inControlledShutdown = previous.inControlledShutdown || data.inControlledShutdown === 1;
    if (fenced === previous.fenced && inControlledShutdown === previous.inControlledShutdown) return;
    const registration = { ...previous, fenced, inControlledShutdown };
    this.brokerMap.set(data.brokerId, registration);
    delta.brokerChanged({ brokerId: data.brokerId, registration, previous });
  }

  private applyFeatureLevel({ data }: RecordOf<'FeatureLevelRecord'>, delta: DeltaBuilder): void {
    invariant(data.featureLevel >= 0, `feature ${data.name} level ${data.featureLevel} is negative`);
    if (this.featureMap.get(data.name) === (data.featureLevel === 0 ? undefined : data.featureLevel)) return;
    if (data.featureLevel === 0) this.featureMap.delete(data.name);
    else this.featureMap.set(data.name, data.featureLevel);
    delta.featureChanged({ name: data.name, featureLevel: data.featureLevel });
  }
}

function distinct(ids: readonly number[]): boolean {
  return new Set(ids).size === ids.length;
}

/** The partition invariants every applied state satisfies. */
function checkPartition(topic: string, p: PartitionState): void {
  const where = `${topic}-${p.partitionId}`;
  invariant(p.partitionId >= 0, `${where}: negative partition id`);
  invariant(p.replicas.length > 0, `${where}: no replicas`);
  invariant(distinct(p.replicas) && p.replicas.every((r) => r >= 0), `${where}: replicas ${p.replicas.join(',')} are not distinct broker ids`);
  invariant(distinct(p.isr) && p.isr.every((r) => p.replicas.includes(r)), `${where}: isr ${p.isr.join(',')} is not a subset of replicas ${p.replicas.join(',')}`);
  invariant(p.leader === NO_LEADER || p.replicas.includes(p.leader), `${where}: leader ${p.leader} is not one of replicas ${p.replicas.join(',')}`);
  invariant(p.leaderEpoch >= 0 && p.partitionEpoch >= 0, `${where}: negative epoch`);
  // KIP-966: ELR members are replicas outside the ISR.
  invariant(distinct(p.elr) && p.elr.every((r) => p.replicas.includes(r) && !p.isr.includes(r)), `${where}: elr ${p.elr.join(',')} is not a set of replicas outside isr ${p.isr.join(',')}`);
}

/** Broker id lists shared between partitions: at most this many distinct ones, of at most SHARED_IDS_LENGTH_MAX ids. */
const SHARED_IDS_MAX = 10_000;
const SHARED_IDS_LENGTH_MAX = 5;
const sharedIdLists = new Map<string, readonly number[]>();

/**
 * One frozen array per distinct short broker id list (replicas, ISR, ELR...):
 * six arrays per partition, nearly all `[]` or the same few assignments, so
 * 100,000 partitions hold a handful of arrays instead of 600,000 (issue 17).
 * Frozen because they are shared: nothing may change one in place.
 */
function sharedIds(ids: readonly number[]): readonly number[] {
  if (ids.length > SHARED_IDS_LENGTH_MAX) return ids;
  const key = ids.join(',');
  const known = sharedIdLists.get(key);
  if (known !== undefined) return known;
  if (sharedIdLists.size >= SHARED_IDS_MAX) return ids;
  const shared = Object.freeze([...ids]);
  sharedIdLists.set(key, shared);
  return shared;
}

function checkEpochsForward(topic: string, previous: PartitionState, next: PartitionState): void {
  const where = `${topic}-${next.partitionId}`;
  invariant(next.leaderEpoch >= previous.leaderEpoch, `${where}: leader epoch goes back from ${previous.leaderEpoch} to ${next.leaderEpoch}`);
  invariant(next.partitionEpoch >= previous.partitionEpoch, `${where}: partition epoch goes back from ${previous.partitionEpoch} to ${next.partitionEpoch}`);
}

export function partitionRecordData(topicId: string, p: PartitionState): RecordOf<'PartitionRecord'>['data'] {
  return {
    partitionId: p.partitionId,
    topicId,
    replicas: [...p.replicas],
    isr: [...p.isr],
    removingReplicas: [...p.removingReplicas],
    addingReplicas: [...p.addingReplicas],
    leader: p.leader,
    leaderRecoveryState: p.leaderRecoveryState,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    eligibleLeaderReplicas: [...p.elr],
    lastKnownElr: [...p.lastKnownElr],
  };
}

function registrationRecord(b: BrokerRegistration): MetadataRecord {
  return {
    type: 'RegisterBrokerRecord',
    data: {
      brokerId: b.brokerId,
      incarnationId: b.incarnationId,
      brokerEpoch: b.brokerEpoch,
      endPoints: b.endPoints.map((e) => ({ ...e })),
      features: [],
      rack: b.rack,
      fenced: b.fenced,
      inControlledShutdown: b.inControlledShutdown,
    },
  };
}

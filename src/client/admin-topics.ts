/**
 * Admin's topic operations over `Cluster`: CreateTopics (with replica
 * assignments, validateOnly), DeleteTopics, listing and describing topics
 * (Metadata, configs through DescribeConfigs when the broker has it,
 * authorized operations with Metadata v8+, KIP-430), and CreatePartitions for
 * many topics. Batch calls answer per topic with `error`.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import { decodeAuthorizedOperations, type AclOperation } from './admin-apis.js';
import { Apis, request, supports } from './apis.js';
import type { Cluster, PartitionMetadata } from './cluster.js';
import { configSourceName, type ConfigEntry } from './config-admin.js';
import { describeEligibleLeaders, type EligibleLeaders } from './admin-elr.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';

/** Default time (ms) the controller may take for topic and partition changes. */
export const ADMIN_TIMEOUT_MS_DEFAULT = 30_000;

/** Broker ids of each partition's replicas, by partition number (0, 1, ...): the first replica is the preferred leader. */
export type ReplicaAssignment = readonly (readonly number[])[];

/** New partitions for one topic (`Admin.createPartitions`). */
export interface NewPartitions {
  topic: string;
  /** The topic's partition count afterwards (not the number added). */
  totalCount: number;
  /** Replicas of each new partition, in order (length totalCount - current count); omitted: the broker places them. */
  assignments?: ReplicaAssignment;
}

/** The answer for one topic of a batch topic call (deleteTopics, createPartitions). */
export interface TopicResult {
  name: string;
  error: KafkaProtocolError | null;
}

/** Options of `Admin.createPartitions`. */
export interface CreatePartitionsOptions {
  /** How long the controller may take (ms); the request itself may take this plus the request timeout. */
  timeoutMs?: number;
  /** Check the request (counts, assignments) without changing anything. */
  validateOnly?: boolean;
}

/** Checks a replica assignment: every partition has at least one replica, broker ids are >= 0 and not repeated. */
export function validateAssignment(what: string, assignment: ReplicaAssignment): void {
  if (assignment.length === 0) throw invalidArgument(`${what}: an assignment needs at least one partition`);
  assignment.forEach((replicas, partition) => {
    if (replicas.length === 0) throw invalidArgument(`${what}: partition ${partition} needs at least one replica`);
    if (new Set(replicas).size !== replicas.length) throw invalidArgument(`${what}: partition ${partition} names a broker twice (${replicas.join(', ')})`);
    for (const id of replicas) if (!Number.isInteger(id) || id < 0) throw invalidArgument(`${what}: partition ${partition} has a bad broker id ${id}`);
  });
}

/** CreatePartitions for several topics; one result per topic, in input order. */
export async function createPartitionsFor(cluster: Cluster, list: readonly NewPartitions[], timeoutMs: number, validateOnly: boolean): Promise<TopicResult[]> {
  for (const p of list) {
    if (!Number.isInteger(p.totalCount) || p.totalCount < 1) throw invalidArgument(`${p.topic}: partition count must be a positive integer, got ${p.totalCount}`);
    if (p.assignments !== undefined) validateAssignment(p.topic, p.assignments);
  }
  if (list.length === 0) return [];
  const { response } = await cluster.withRetry(async () => {
    const conn = await cluster.controllerConnection();
    return request(
      conn,
      Apis.CreatePartitions,
      () => ({
        topics: list.map((p) => ({
          name: p.topic,
          count: p.totalCount,
          assignments: p.assignments === undefined ? null : p.assignments.map((brokerIds) => ({ brokerIds: [...brokerIds] })),
        })),
        timeoutMs,
        validateOnly,
      }),
      timeoutMs + conn.requestTimeoutMs,
    );
  });
  const byName = new Map(response.results.map((r) => [r.name, r]));
  return list.map((p) => {
    const r = byName.get(p.topic);
    if (r === undefined) {
      return { name: p.topic, error: new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api: 'CreatePartitions', topic: p.topic, serverMessage: 'the broker did not answer for this topic' }) };
    }
    return { name: p.topic, error: r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'CreatePartitions', topic: p.topic, serverMessage: r.errorMessage }) };
  });
}

/** Metadata v8 added includeTopicAuthorizedOperations (KIP-430). */
const AUTHORIZED_OPERATIONS_MIN_VERSION = 8;

/**
 * The operations the caller may perform on each topic (Metadata v8+ with
 * includeTopicAuthorizedOperations); null for a topic when the broker does
 * not say (older brokers, or a broker without an authorizer answering "not
 * requested").
 */
export async function topicAuthorizedOperations(cluster: Cluster, topics: readonly string[]): Promise<Map<string, AclOperation[] | null>> {
  const out = new Map<string, AclOperation[] | null>();
  if (topics.length === 0) return out;
  const { version, response } = await cluster.withRetry(async () =>
    request(await cluster.anyConnection(), Apis.Metadata, () => ({
      topics: topics.map((name) => ({ name })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: true,
    })),
  );
  for (const t of response.topics) {
    if (t.name === null) continue; // v12+: only for topics asked for by id
    out.set(t.name, version >= AUTHORIZED_OPERATIONS_MIN_VERSION && t.errorCode === 0 ? decodeAuthorizedOperations(t.topicAuthorizedOperations) : null);
  }
  return out;
}

/** DescribeConfigs resource type of a topic. */
const RESOURCE_TYPE_TOPIC = 2;

/** A topic to create (`Admin.createTopics`). */
export interface NewTopic {
  name: string;
  /** Omitted: the broker's num.partitions (CreateTopics v4+), else 1. Not with `assignments`. */
  numPartitions?: number;
  /** Omitted: the broker's default.replication.factor (v4+), else 1. Not with `assignments`. */
  replicationFactor?: number;
  /** Explicit replicas of each partition (partition i gets `assignments[i]`); replaces numPartitions/replicationFactor. */
  assignments?: ReplicaAssignment;
  /** Topic configs, e.g. `{ 'cleanup.policy': 'compact' }`. */
  configs?: Readonly<Record<string, string>>;
}

/** Options of the topic-changing calls. */
export interface AdminOptions {
  /** How long the controller may take (ms; default 30 s); the request may take this plus the request timeout. */
  timeoutMs?: number;
  /** Check the request without changing anything (CreateTopics, CreatePartitions). */
  validateOnly?: boolean;
}

/** Options of `Admin.describeTopics`. */
export interface DescribeTopicsOptions {
  /** Also load each topic's configs with DescribeConfigs (default true). */
  includeConfigs?: boolean;
  /** Ask for the operations the caller may perform on each topic (Metadata v8+). */
  includeAuthorizedOperations?: boolean;
}

/** The answer for one topic of `Admin.createTopics`. */
export interface CreateTopicResult {
  name: string;
  /** The new topic's id (CreateTopics v7+); null otherwise. */
  topicId: string | null;
  /** -1 when the broker did not say (CreateTopics before v5). */
  numPartitions: number;
  replicationFactor: number;
  error: KafkaProtocolError | null;
}

/** The answer for one topic of `Admin.deleteTopics`. */
export interface DeleteTopicResult {
  name: string;
  error: KafkaProtocolError | null;
}

/** One topic of `Admin.listTopics`. */
export interface TopicListing {
  name: string;
  topicId: string | null;
  isInternal: boolean;
  partitionCount: number;
  replicationFactor: number;
}

/** One partition of a described topic. */
export interface PartitionDescription {
  partition: number;
  /** The leader's node id; -1 when the partition has no leader (offline). */
  leader: number;
  leaderEpoch: number;
  /** Node ids of the replicas; the first is the preferred leader. */
  replicas: readonly number[];
  /** The in-sync replicas. */
  isr: readonly number[];
  /** Replicas whose log directory is offline. */
  offlineReplicas: readonly number[];
  /** Eligible Leader Replicas (KIP-966): out of the ISR, still electable; null when the broker does not say (before Kafka 3.8). */
  elr: readonly number[] | null;
  /** The ELR when the partition last had none left to elect (KIP-966); null when the broker does not say. */
  lastKnownElr: readonly number[] | null;
  /** Kafka's name of the partition's error (e.g. 'LEADER_NOT_AVAILABLE'), null when none. */
  error: string | null;
}


/** The answer for one topic of `Admin.describeTopics`. */
export interface TopicDescription {
  name: string;
  topicId: string | null;
  isInternal: boolean;
  partitions: PartitionDescription[];
  /** null when configs were not asked for or the broker has no DescribeConfigs. */
  configs: ConfigEntry[] | null;
  /** With `includeAuthorizedOperations`: what the caller may do to the topic; null when not asked for or not provided. */
  authorizedOperations: AclOperation[] | null;
  error: KafkaProtocolError | null;
}

/** Creates topics (CreateTopics); one result per topic, in order, with `error` (e.g. TOPIC_ALREADY_EXISTS). */
export async function createTopics(cluster: Cluster, topics: readonly NewTopic[], options: AdminOptions = {}): Promise<CreateTopicResult[]> {
  for (const t of topics) validateNewTopic(t);
  const { version, response } = await cluster.withRetry(async () => {
    const conn = await cluster.controllerConnection();
    return request(
      conn,
      Apis.CreateTopics,
      (v) => ({
        topics: topics.map((t) => ({
          name: t.name,
          // v4+ (KIP-464): -1 means the broker default; with assignments both are -1.
          numPartitions: t.assignments !== undefined ? -1 : (t.numPartitions ?? (v >= 4 ? -1 : 1)),
          replicationFactor: t.assignments !== undefined ? -1 : (t.replicationFactor ?? (v >= 4 ? -1 : 1)),
          assignments: (t.assignments ?? []).map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds: [...brokerIds] })),
          configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
        })),
        timeoutMs: options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT,
        validateOnly: options.validateOnly ?? false,
      }),
      (options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT) + conn.requestTimeoutMs,
    );
  });
  const byName = new Map(response.topics.map((t) => [t.name, t]));
  return topics.map((t) => {
    const r = byName.get(t.name);
    if (r === undefined) return { name: t.name, topicId: null, numPartitions: -1, replicationFactor: -1, error: missing('CreateTopics', t.name) };
    const error =
      r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'CreateTopics', topic: t.name, serverMessage: r.errorMessage });
    return {
      name: t.name,
      topicId: version >= 7 && r.topicId !== ZERO_UUID ? r.topicId : null,
      numPartitions: r.numPartitions,
      replicationFactor: r.replicationFactor,
      error,
    };
  });
}

/** Creates one topic; throws KafkaProtocolError (e.g. TOPIC_ALREADY_EXISTS). */
export async function createTopic(cluster: Cluster, topic: NewTopic, options: AdminOptions = {}): Promise<CreateTopicResult> {
  const [result] = await createTopics(cluster, [topic], options);
  if (result === undefined) throw missing('CreateTopics', topic.name);
  if (result.error !== null) throw result.error;
  return result;
}

/** Deletes topics (DeleteTopics); one result per topic, in order, with `error` (e.g. UNKNOWN_TOPIC_OR_PARTITION). */
export async function deleteTopics(cluster: Cluster, names: readonly string[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<DeleteTopicResult[]> {
  const timeoutMs = options.timeoutMs ?? ADMIN_TIMEOUT_MS_DEFAULT;
  const { response } = await cluster.withRetry(async () => {
    const conn = await cluster.controllerConnection();
    return request(
      conn,
      Apis.DeleteTopics,
      () => ({
        // v6+ names topics in `topics`, earlier versions in `topicNames`; the codec writes the one the version has.
        topics: names.map((name) => ({ name, topicId: ZERO_UUID })),
        topicNames: [...names],
        timeoutMs,
      }),
      timeoutMs + conn.requestTimeoutMs,
    );
  });
  const byName = new Map(response.responses.map((r) => [r.name, r]));
  return names.map((name) => {
    const r = byName.get(name);
    if (r === undefined) return { name, error: missing('DeleteTopics', name) };
    return { name, error: r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'DeleteTopics', topic: name, serverMessage: r.errorMessage }) };
  });
}

/** Every topic, sorted by name; internal ones (`__consumer_offsets`) only with `includeInternal`. */
export async function listTopics(cluster: Cluster, options: { includeInternal?: boolean } = {}): Promise<TopicListing[]> {
  const metadata = await cluster.withRetry(() => cluster.refreshMetadata(null));
  return [...metadata.topics.values()]
    .filter((t) => t.errorCode === 0 && (options.includeInternal === true || !t.isInternal))
    .map((t) => ({
      name: t.name,
      topicId: t.topicId,
      isInternal: t.isInternal,
      partitionCount: t.partitions.length,
      replicationFactor: t.partitions[0]?.replicas.length ?? 0,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Describes the named topics, or every non-internal topic when `names` is
 * empty: partitions with leader, replicas, ISR and offline replicas, topic
 * id, configs, and (when asked) authorized operations. One result per
 * topic with `error` (UNKNOWN_TOPIC_OR_PARTITION for a missing one).
 */
export async function describeTopics(cluster: Cluster, names: readonly string[] = [], options: DescribeTopicsOptions = {}): Promise<TopicDescription[]> {
  const all = names.length === 0;
  const metadata = await cluster.withRetry(() => cluster.refreshMetadata(all ? null : names));
  const wanted = all ? [...metadata.topics.values()].filter((t) => !t.isInternal).map((t) => t.name).sort() : [...names];
  const existing = wanted.filter((n) => metadata.topics.get(n)?.errorCode === 0);
  const configs = options.includeConfigs === false ? null : await describeTopicConfigs(cluster, existing);
  const operations = options.includeAuthorizedOperations === true ? await topicAuthorizedOperations(cluster, existing) : null;
  const eligible = await describeEligibleLeaders(cluster, existing);
  return wanted.map((name) => {
    const t = metadata.topics.get(name);
    if (t === undefined || t.errorCode !== 0) {
      return {
        name,
        topicId: null,
        isInternal: false,
        partitions: [],
        configs: null,
        authorizedOperations: null,
        error: new KafkaProtocolError(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { topic: name }),
      };
    }
    return {
      name,
      topicId: t.topicId,
      isInternal: t.isInternal,
      partitions: t.partitions.map((p) => describePartition(p, eligible === null ? null : (eligible.get(name)?.get(p.partition) ?? { elr: [], lastKnownElr: [] }))),
      configs: configs?.get(name) ?? null,
      authorizedOperations: operations?.get(name) ?? null,
      error: null,
    };
  });
}

/**
 * Topic configs through DescribeConfigs; null when the broker does not
 * support it. Topics whose configs failed are missing from the map.
 */
export async function describeTopicConfigs(cluster: Cluster, topics: readonly string[]): Promise<Map<string, ConfigEntry[]> | null> {
  if (topics.length === 0) return new Map();
  const conn = await cluster.anyConnection();
  if (!supports(conn, Apis.DescribeConfigs)) return null;
  const { response } = await cluster.withRetry(async () =>
    request(await cluster.anyConnection(), Apis.DescribeConfigs, () => ({
      resources: topics.map((name) => ({ resourceType: RESOURCE_TYPE_TOPIC, resourceName: name, configurationKeys: null })),
      includeSynonyms: false,
      includeDocumentation: false,
    })),
  );
  const out = new Map<string, ConfigEntry[]>();
  for (const r of response.results) {
    if (r.errorCode !== 0) continue;
    out.set(
      r.resourceName,
      r.configs
        .map((c) => ({
          name: c.name,
          value: c.isSensitive ? null : c.value,
          source: configSourceName(c.configSource),
          readOnly: c.readOnly,
          isSensitive: c.isSensitive,
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
  }
  return out;
}

function describePartition(p: PartitionMetadata, eligible: EligibleLeaders | null): PartitionDescription {
  return {
    elr: eligible?.elr ?? null,
    lastKnownElr: eligible?.lastKnownElr ?? null,
    partition: p.partition,
    leader: p.leaderId,
    leaderEpoch: p.leaderEpoch,
    replicas: p.replicas,
    isr: p.isr,
    offlineReplicas: p.offlineReplicas,
    error: p.errorCode === 0 ? null : new KafkaProtocolError(p.errorCode).errorName,
  };
}

function validateNewTopic(t: NewTopic): void {
  if (t.assignments !== undefined) {
    if (t.numPartitions !== undefined || t.replicationFactor !== undefined) throw invalidArgument(`${t.name}: give assignments or numPartitions/replicationFactor, not both`);
    validateAssignment(t.name, t.assignments);
  }
  if (t.name.length === 0 || t.name.length > 249 || !/^[a-zA-Z0-9._-]+$/.test(t.name) || t.name === '.' || t.name === '..') {
    throw invalidArgument(`invalid topic name '${t.name}': use 1-249 characters from [a-zA-Z0-9._-], not '.' or '..'`);
  }
  if (t.numPartitions !== undefined && (!Number.isInteger(t.numPartitions) || t.numPartitions < 1)) {
    throw invalidArgument(`partitions must be a positive integer, got ${t.numPartitions}`);
  }
  if (t.replicationFactor !== undefined && (!Number.isInteger(t.replicationFactor) || t.replicationFactor < 1 || t.replicationFactor > 0x7fff)) {
    throw invalidArgument(`replication factor must be a positive integer, got ${t.replicationFactor}`);
  }
}

/** The error for a topic the broker's answer left out. */
export function missing(api: string, topic: string): KafkaProtocolError {
  return new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api, topic, serverMessage: 'the broker did not answer for this topic' });
}

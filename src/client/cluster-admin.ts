/**
 * Cluster and partition administration over `Cluster`, behind Admin's
 * methods: DescribeCluster (Metadata when the broker lacks it),
 * DeleteRecords (to each partition's leader, retried after leadership
 * moves), DescribeLogDirs (every broker), ElectLeaders and the partition
 * reassignment APIs (the controller, or any broker, which forwards).
 *
 * Per-partition answers carry `error` (a KafkaProtocolError) as Kafka
 * answers per partition; top-level errors throw.
 */
import { ErrorCode } from '../protocol/errors.js';
import { apiKeyName } from '../protocol/api-keys.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../protocol/messages/18-api-versions.js';
import { AdminApis, decodeAuthorizedOperations, type AclOperation } from './admin-apis.js';
import { request, supports } from './apis.js';
import { REFRESH_METADATA_ERRORS, type BrokerNode, type Cluster } from './cluster.js';
import { compareStrings, groupByTopic, type TopicPartitions } from './consumer-protocol.js';
import { CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION } from '../net/connection.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';

/** DeleteRecords offset meaning "up to the high watermark" (delete every record). */
export const HIGH_WATERMARK = -1n;
/** ElectLeaders electionType codes (KIP-460). */
const ELECTION_TYPES = { preferred: 0, unclean: 1 } as const;
/** DescribeCluster v1 endpointType: brokers (KIP-919). */
const ENDPOINT_TYPE_BROKERS = 1;

/** The answer of `Admin.describeCluster`. */
export interface ClusterDescription {
  clusterId: string | null;
  /** -1 when the cluster has no (known) controller. */
  controllerId: number;
  /** Sorted by node id. */
  brokers: BrokerNode[];
  /** With `includeAuthorizedOperations` (DescribeCluster): what the caller may do to the cluster; null when not provided. */
  authorizedOperations: AclOperation[] | null;
}

/** Options of `Admin.describeCluster`. */
export interface DescribeClusterOptions {
  /** Ask for the cluster operations the caller is allowed (needs DescribeCluster; null with the Metadata fallback). */
  includeAuthorizedOperations?: boolean;
}

/** One API of a broker's ApiVersions answer. */
export interface ApiVersionRange {
  apiKey: number;
  /** Kafka's name of the API, e.g. 'Produce'. */
  name: string;
  minVersion: number;
  maxVersion: number;
}

/** A feature flag of ApiVersions v3+ (KIP-584): supported range, or finalized level. */
export interface FeatureRange {
  name: string;
  minVersion: number;
  maxVersion: number;
}

/** The answer of `Admin.apiVersions`: what one broker advertises. */
export interface BrokerApiVersions {
  nodeId: number;
  /** Sorted by API key. */
  apis: ApiVersionRange[];
  /** Features the broker supports (ApiVersions v3+; empty before). */
  supportedFeatures: FeatureRange[];
  /** Features finalized cluster-wide (min/max version level; ApiVersions v3+). */
  finalizedFeatures: FeatureRange[];
  /** Epoch of the finalized features; -1n when unknown. */
  finalizedFeaturesEpoch: bigint;
}

/** The answer for one partition of `Admin.deleteRecords`. */
export interface DeleteRecordsResult {
  topic: string;
  partition: number;
  /** The partition's new log start offset; -1n when `error` is set. */
  lowWatermark: bigint;
  error: KafkaProtocolError | null;
}

/** A partition's replica in a log directory. */
export interface LogDirPartition {
  topic: string;
  partition: number;
  sizeBytes: bigint;
  /** How far a future replica lags the current one (0 otherwise). */
  offsetLag: bigint;
  /** A future replica (moving between directories; AlterReplicaLogDirs). */
  isFuture: boolean;
}

/** One log directory of a broker. */
export interface LogDirDescription {
  path: string;
  error: KafkaProtocolError | null;
  /** DescribeLogDirs v4+ (KIP-827); null when the broker does not say. */
  totalBytes: bigint | null;
  usableBytes: bigint | null;
  /** Sorted by topic and partition. */
  partitions: LogDirPartition[];
}

/** The answer for one broker of `Admin.describeLogDirs`. */
export interface BrokerLogDirs {
  nodeId: number;
  /** Sorted by path; empty when `error` is set. */
  logDirs: LogDirDescription[];
  error: KafkaProtocolError | null;
}

/** 'preferred' (the first replica, if in sync) or 'unclean' (any live replica, possibly losing data; ElectLeaders v1+). */
export type ElectionType = keyof typeof ELECTION_TYPES;

/** The answer for one partition of `Admin.electLeaders` and `Admin.alterPartitionReassignments`. */
export interface ElectionResult {
  topic: string;
  partition: number;
  /** ELECTION_NOT_NEEDED when the wanted leader already leads. */
  error: KafkaProtocolError | null;
}

/** A reassignment in progress (`Admin.listPartitionReassignments`). */
export interface PartitionReassignment {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/** A partition to reassign (`Admin.alterPartitionReassignments`). */
export interface ReassignmentTarget {
  topic: string;
  partition: number;
  /** The new replica list; null cancels a reassignment in progress. */
  replicas: readonly number[] | null;
}

/** Cluster id, controller and brokers: DescribeCluster when the broker has it, else Metadata. */
export async function describeCluster(cluster: Cluster, options: DescribeClusterOptions = {}): Promise<ClusterDescription> {
  const conn = await cluster.withRetry(() => cluster.anyConnection());
  if (!supports(conn, AdminApis.DescribeCluster)) {
    const md = await cluster.withRetry(() => cluster.refreshMetadata([]));
    return { clusterId: md.clusterId, controllerId: md.controllerId, brokers: [...md.brokers.values()].sort((a, b) => a.nodeId - b.nodeId), authorizedOperations: null };
  }
  const includeClusterAuthorizedOperations = options.includeAuthorizedOperations ?? false;
  const { response } = await cluster.withRetry(async () =>
    request(await cluster.anyConnection(), AdminApis.DescribeCluster, () => ({ includeClusterAuthorizedOperations, endpointType: ENDPOINT_TYPE_BROKERS })),
  );
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'DescribeCluster', serverMessage: response.errorMessage });
  return {
    clusterId: response.clusterId,
    controllerId: response.controllerId,
    brokers: response.brokers.map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack })).sort((a, b) => a.nodeId - b.nodeId),
    authorizedOperations: includeClusterAuthorizedOperations ? decodeAuthorizedOperations(response.clusterAuthorizedOperations) : null,
  };
}

/** The newest ApiVersions version the client reads (v3: features, KIP-584). */
const API_VERSIONS_VERSION_MAX = 3;

/**
 * What one broker advertises (ApiVersions): every API with its version
 * range, and the feature flags (v3+). `nodeId` omitted: any broker.
 */
export async function apiVersions(cluster: Cluster, nodeId?: number): Promise<BrokerApiVersions> {
  let node = nodeId;
  if (node === undefined) {
    const brokers = cluster.metadata.brokers.size > 0 ? cluster.metadata.brokers : (await cluster.withRetry(() => cluster.refreshMetadata([]))).brokers;
    node = Math.min(...brokers.keys());
  }
  const target = node;
  const response = await cluster.withRetry(async () => {
    const conn = await cluster.connectionTo(target);
    const range = conn.apiVersions.get(ApiVersionsRequest.apiKey);
    const version = Math.min(API_VERSIONS_VERSION_MAX, range?.maxVersion ?? 0);
    const r = await conn.send({ request: ApiVersionsRequest, response: ApiVersionsResponse }, version, {
      clientSoftwareName: CLIENT_SOFTWARE_NAME,
      clientSoftwareVersion: CLIENT_SOFTWARE_VERSION,
    });
    return r;
  });
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'ApiVersions', serverMessage: `broker ${target}` });
  return {
    nodeId: target,
    apis: response.apiKeys
      .map((a) => ({ apiKey: a.apiKey, name: apiKeyName(a.apiKey), minVersion: a.minVersion, maxVersion: a.maxVersion }))
      .sort((a, b) => a.apiKey - b.apiKey),
    supportedFeatures: response.supportedFeatures.map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
    finalizedFeatures: response.finalizedFeatures.map((f) => ({ name: f.name, minVersion: f.minVersionLevel, maxVersion: f.maxVersionLevel })),
    finalizedFeaturesEpoch: response.finalizedFeaturesEpoch,
  };
}

/** Parses `{ partition: offset }` (offset -1 = the high watermark) into a checked map. */
function parseOffsets(offsets: Readonly<Record<number, bigint | number>> | ReadonlyMap<number, bigint | number>): Map<number, bigint> {
  const entries: [unknown, bigint | number][] = offsets instanceof Map ? [...offsets] : Object.entries(offsets);
  const out = new Map<number, bigint>();
  for (const [p, o] of entries) {
    const partition = Number(p);
    if (!Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff) throw invalidArgument(`partition must be an integer >= 0, got ${String(p)}`);
    if (typeof o === 'number' && !Number.isSafeInteger(o)) throw invalidArgument(`offset for partition ${partition} must be an integer, got ${o}`);
    const offset = BigInt(o);
    if (offset < HIGH_WATERMARK) throw invalidArgument(`offset for partition ${partition} must be >= 0, or -1 for the high watermark; got ${offset}`);
    out.set(partition, offset);
  }
  return out;
}

/**
 * Deletes the records of `topic` below the given offset of each partition
 * (moves the log start offset; -1 = the high watermark). Sent to each
 * partition's leader; partitions whose leader moved are retried after a
 * metadata refresh. An unknown topic throws UNKNOWN_TOPIC_OR_PARTITION.
 */
export async function deleteRecords(
  cluster: Cluster,
  topic: string,
  offsets: Readonly<Record<number, bigint | number>> | ReadonlyMap<number, bigint | number>,
  timeoutMs: number,
): Promise<DeleteRecordsResult[]> {
  const wanted = parseOffsets(offsets);
  const results = new Map<number, DeleteRecordsResult>();
  const fail = (partition: number, code: number, message?: string): void => {
    results.set(partition, { topic, partition, lowWatermark: -1n, error: new KafkaProtocolError(code, { api: 'DeleteRecords', topic, partition, serverMessage: message ?? null }) });
  };
  let pending = [...wanted.keys()].sort((a, b) => a - b);
  for (let attempt = 0; pending.length > 0; attempt++) {
    const last = attempt >= cluster.retries;
    const meta = await cluster.topic(topic, attempt > 0);
    const byLeader = new Map<number, number[]>();
    const retry: number[] = [];
    for (const partition of pending) {
      const p = meta.partitions.find((x) => x.partition === partition);
      if (p === undefined) fail(partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic} has partitions 0-${meta.partitions.length - 1}`);
      else if (p.leaderId < 0) (last ? fail(partition, ErrorCode.LEADER_NOT_AVAILABLE) : retry.push(partition));
      else byLeader.set(p.leaderId, [...(byLeader.get(p.leaderId) ?? []), partition]);
    }
    await Promise.all(
      [...byLeader].map(async ([leaderId, partitions]) => {
        let response;
        try {
          const conn = await cluster.connectionTo(leaderId);
          ({ response } = await request(
            conn,
            AdminApis.DeleteRecords,
            () => ({ topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, offset: wanted.get(partitionIndex) ?? HIGH_WATERMARK })) }], timeoutMs }),
            timeoutMs + conn.requestTimeoutMs,
          ));
        } catch (err) {
          if (last || !cluster.isRetriable(err, true)) throw err;
          retry.push(...partitions);
          return;
        }
        const answers = new Map((response.topics.find((t) => t.name === topic)?.partitions ?? []).map((p) => [p.partitionIndex, p]));
        for (const partition of partitions) {
          const a = answers.get(partition);
          if (a === undefined) fail(partition, ErrorCode.UNKNOWN_SERVER_ERROR, 'the broker did not answer for this partition');
          else if (a.errorCode === 0) results.set(partition, { topic, partition, lowWatermark: a.lowWatermark, error: null });
          else if (REFRESH_METADATA_ERRORS.has(a.errorCode) && a.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && !last) retry.push(partition);
          else fail(partition, a.errorCode);
        }
      }),
    );
    if (retry.length > 0) await cluster.backoff(attempt);
    pending = retry.sort((a, b) => a - b);
  }
  return [...results.values()].sort((a, b) => a.partition - b.partition);
}

/**
 * The log directories of every broker (or the given ones), with the size of
 * each partition; `topics` limits the partitions to those topics (an unknown
 * topic throws UNKNOWN_TOPIC_OR_PARTITION).
 */
export async function describeLogDirs(cluster: Cluster, topics: readonly string[] | null = null, nodeIds: readonly number[] | null = null): Promise<BrokerLogDirs[]> {
  const metadata = await cluster.withRetry(() => cluster.refreshMetadata(topics === null ? [] : topics));
  let filter: { topic: string; partitions: number[] }[] | null = null;
  if (topics !== null) {
    filter = topics.map((name) => {
      const t = metadata.topics.get(name);
      if (t === undefined || t.errorCode !== 0) throw new KafkaProtocolError(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, { api: 'DescribeLogDirs', topic: name });
      return { topic: name, partitions: t.partitions.map((p) => p.partition) };
    });
  }
  const nodes = nodeIds ?? [...metadata.brokers.keys()].sort((a, b) => a - b);
  return Promise.all(
    nodes.map(async (nodeId): Promise<BrokerLogDirs> => {
      const { response } = await cluster.withRetry(async () =>
        request(await cluster.connectionTo(nodeId), AdminApis.DescribeLogDirs, () => ({ topics: filter })),
      );
      // errorCode is v3+; the schema default (0) stands in before.
      if (response.errorCode !== 0) {
        return { nodeId, logDirs: [], error: new KafkaProtocolError(response.errorCode, { api: `DescribeLogDirs broker ${nodeId}` }) };
      }
      const logDirs = response.results
        .map((d) => ({
          path: d.logDir,
          error: d.errorCode === 0 ? null : new KafkaProtocolError(d.errorCode, { api: `DescribeLogDirs broker ${nodeId}`, serverMessage: d.logDir }),
          totalBytes: d.totalBytes >= 0n ? d.totalBytes : null,
          usableBytes: d.usableBytes >= 0n ? d.usableBytes : null,
          partitions: d.topics
            .flatMap((t) =>
              t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, sizeBytes: p.partitionSize, offsetLag: p.offsetLag, isFuture: p.isFutureKey })),
            )
            .sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition || Number(a.isFuture) - Number(b.isFuture)),
        }))
        .sort((a, b) => compareStrings(a.path, b.path));
      return { nodeId, logDirs, error: null };
    }),
  );
}

/**
 * ElectLeaders for the given partitions (null: every partition; the broker
 * then lists only those that needed an election). Unclean elections need
 * ElectLeaders v1+. A top-level error throws.
 */
export async function electLeaders(
  cluster: Cluster,
  type: ElectionType,
  partitions: readonly TopicPartitions[] | null,
  timeoutMs: number,
): Promise<ElectionResult[]> {
  if (!(type in ELECTION_TYPES)) throw invalidArgument(`election type must be preferred or unclean, got '${String(type)}'`);
  const api = type === 'unclean' ? { ...AdminApis.ElectLeaders, minVersion: 1 } : AdminApis.ElectLeaders;
  const list = partitions === null ? null : groupByTopic(partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))));
  const { response } = await cluster.withRetry(async () => {
    const conn = await cluster.controllerConnection();
    return request(
      conn,
      api,
      () => ({ electionType: ELECTION_TYPES[type], topicPartitions: list === null ? null : list.map((t) => ({ topic: t.topic, partitions: t.partitions })), timeoutMs }),
      timeoutMs + conn.requestTimeoutMs,
    );
  });
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'ElectLeaders' });
  return response.replicaElectionResults
    .flatMap((t) =>
      t.partitionResult.map((p) => ({
        topic: t.topic,
        partition: p.partitionId,
        error: p.errorCode === 0 ? null : new KafkaProtocolError(p.errorCode, { api: 'ElectLeaders', topic: t.topic, partition: p.partitionId, serverMessage: p.errorMessage }),
      })),
    )
    .sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
}

/** Reassignments in progress (null: every partition). A top-level error throws. */
export async function listPartitionReassignments(
  cluster: Cluster,
  partitions: readonly TopicPartitions[] | null,
  timeoutMs: number,
): Promise<PartitionReassignment[]> {
  const list = partitions === null ? null : groupByTopic(partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))));
  const { response } = await cluster.withRetry(async () => {
    const conn = await cluster.controllerConnection();
    return request(
      conn,
      AdminApis.ListPartitionReassignments,
      () => ({ timeoutMs, topics: list === null ? null : list.map((t) => ({ name: t.topic, partitionIndexes: t.partitions })) }),
      timeoutMs + conn.requestTimeoutMs,
    );
  });
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'ListPartitionReassignments', serverMessage: response.errorMessage });
  return response.topics
    .flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: p.replicas,
        addingReplicas: p.addingReplicas,
        removingReplicas: p.removingReplicas,
      })),
    )
    .sort((a, b) => compareStrings(a.topic, b.topic) || a.partition - b.partition);
}

/** Starts (or, with replicas null, cancels) reassignments; one result per partition. A top-level error throws. */
export async function alterPartitionReassignments(
  cluster: Cluster,
  targets: readonly ReassignmentTarget[],
  timeoutMs: number,
): Promise<ElectionResult[]> {
  const byTopic = new Map<string, ReassignmentTarget[]>();
  for (const t of targets) byTopic.set(t.topic, [...(byTopic.get(t.topic) ?? []), t]);
  const { response } = await cluster.withRetry(async () => {
    const conn = await cluster.controllerConnection();
    return request(
      conn,
      AdminApis.AlterPartitionReassignments,
      () => ({
        timeoutMs,
        topics: [...byTopic].map(([name, list]) => ({
          name,
          partitions: list.map((t) => ({ partitionIndex: t.partition, replicas: t.replicas === null ? null : [...t.replicas] })),
        })),
      }),
      timeoutMs + conn.requestTimeoutMs,
    );
  });
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'AlterPartitionReassignments', serverMessage: response.errorMessage });
  const codes = new Map<string, { errorCode: number; errorMessage: string | null }>();
  for (const t of response.responses) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partitionIndex}`, p);
  return targets.map((t) => {
    const r = codes.get(`${t.topic}\u0000${t.partition}`);
    const code = r?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    return {
      topic: t.topic,
      partition: t.partition,
      error:
        code === 0
          ? null
          : new KafkaProtocolError(code, { api: 'AlterPartitionReassignments', topic: t.topic, partition: t.partition, serverMessage: r?.errorMessage ?? 'the broker did not answer for this partition' }),
    };
  });
}

/**
 * Topic helpers behind Admin's topic methods: replica assignments for
 * CreateTopics, CreatePartitions for many topics with one result per topic,
 * and the topics' authorized operations (Metadata v8+, KIP-430).
 */
import { ErrorCode } from '../protocol/errors.js';
import { decodeAuthorizedOperations, type AclOperation } from './admin-apis.js';
import { Apis, request } from './apis.js';
import type { Cluster } from './cluster.js';
import { KafkaProtocolError, invalidArgument } from './errors.js';

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
    out.set(t.name, version >= AUTHORIZED_OPERATIONS_MIN_VERSION && t.errorCode === 0 ? decodeAuthorizedOperations(t.topicAuthorizedOperations) : null);
  }
  return out;
}

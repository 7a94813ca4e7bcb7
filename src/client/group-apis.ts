/**
 * The consumer-group APIs the client speaks (the classic protocol), with the
 * version range its request builders and response readers handle, and
 * coordinator lookup: FindCoordinator with retries, and `withCoordinator`,
 * which runs an operation against a group's coordinator and finds it again
 * when it moved.
 *
 * Versions: FindCoordinator 0-4 (v4: batched coordinatorKeys), JoinGroup 0-6
 * (v4+: MEMBER_ID_REQUIRED), SyncGroup/Heartbeat 0-4, LeaveGroup 0-4 (v3+:
 * members[]), OffsetCommit 2-8 (v0/v1 are ZooKeeper-era semantics),
 * OffsetFetch 1-8 (v8: groups[]), DescribeGroups 0-5, ListGroups 0-4 (v4:
 * states filter), DeleteGroups 0-2, OffsetDelete 0.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  DeleteGroupsRequest,
  DeleteGroupsResponse,
  DescribeGroupsRequest,
  DescribeGroupsResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  ListGroupsRequest,
  ListGroupsResponse,
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetDeleteRequest,
  OffsetDeleteResponse,
  OffsetFetchRequest,
  OffsetFetchResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from '../protocol/messages/index.js';
import type { MessageSchema } from '../protocol/schema.js';
import { request, type ClientApi } from './apis.js';
import type { Cluster } from './cluster.js';
import type { Connection } from '../net/connection.js';
import { ConnectionClosedError, ConnectionError, KafkaProtocolError } from '../net/errors.js';

function api<Req extends MessageSchema, Res extends MessageSchema>(req: Req, res: Res, minVersion: number, maxVersion: number): ClientApi<Req, Res> {
  return { request: req, response: res, minVersion, maxVersion: Math.min(maxVersion, req.maxVersion, res.maxVersion) };
}

export const GroupApis = {
  FindCoordinator: api(FindCoordinatorRequest, FindCoordinatorResponse, 0, 4),
  JoinGroup: api(JoinGroupRequest, JoinGroupResponse, 0, 6),
  SyncGroup: api(SyncGroupRequest, SyncGroupResponse, 0, 4),
  Heartbeat: api(HeartbeatRequest, HeartbeatResponse, 0, 4),
  LeaveGroup: api(LeaveGroupRequest, LeaveGroupResponse, 0, 4),
  OffsetCommit: api(OffsetCommitRequest, OffsetCommitResponse, 2, 8),
  OffsetFetch: api(OffsetFetchRequest, OffsetFetchResponse, 1, 8),
  DescribeGroups: api(DescribeGroupsRequest, DescribeGroupsResponse, 0, 5),
  ListGroups: api(ListGroupsRequest, ListGroupsResponse, 0, 4),
  DeleteGroups: api(DeleteGroupsRequest, DeleteGroupsResponse, 0, 2),
  OffsetDelete: api(OffsetDeleteRequest, OffsetDeleteResponse, 0, 0),
} as const;

/** FindCoordinator key types. */
export const COORDINATOR_KEY_TYPE_GROUP = 0;

/** Errors meaning "find the coordinator again" (it moved, or is not up yet). */
export const COORDINATOR_ERRORS: ReadonlySet<number> = new Set([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR]);
/** Errors meaning "same coordinator, try again later". */
export const COORDINATOR_RETRY_ERRORS: ReadonlySet<number> = new Set([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);

/** Attempts of one coordinator lookup or coordinator operation (with backoff, ~30 s in all with the defaults). */
export const COORDINATOR_ATTEMPTS_MAX = 20;

/** A group coordinator, as FindCoordinator answers. */
export interface CoordinatorNode {
  nodeId: number;
  host: string;
  port: number;
}

/** True for errors after which a coordinator operation should be retried (with a fresh lookup for some). */
export function isCoordinatorRetriable(err: unknown): boolean {
  if (err instanceof KafkaProtocolError) return COORDINATOR_ERRORS.has(err.errorCode) || COORDINATOR_RETRY_ERRORS.has(err.errorCode);
  return err instanceof ConnectionError || err instanceof ConnectionClosedError;
}

/** One FindCoordinator request (no retries); throws the coordinator error as a KafkaProtocolError. */
export async function findCoordinatorOnce(connection: Connection, key: string, keyType = COORDINATOR_KEY_TYPE_GROUP): Promise<CoordinatorNode> {
  const { version, response } = await request(connection, GroupApis.FindCoordinator, () => ({ key, keyType, coordinatorKeys: [key] }));
  if (version >= 4) {
    const c = response.coordinators.find((x) => x.key === key) ?? response.coordinators[0];
    if (c === undefined) throw new KafkaProtocolError(ErrorCode.COORDINATOR_NOT_AVAILABLE, { api: 'FindCoordinator', serverMessage: `no answer for ${key}` });
    if (c.errorCode !== 0) throw new KafkaProtocolError(c.errorCode, { api: 'FindCoordinator', serverMessage: c.errorMessage });
    return { nodeId: c.nodeId, host: c.host, port: c.port };
  }
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'FindCoordinator', serverMessage: response.errorMessage });
  return { nodeId: response.nodeId, host: response.host, port: response.port };
}

/**
 * Finds the coordinator of `key`, retrying COORDINATOR_NOT_AVAILABLE,
 * NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS and connection failures with
 * the cluster's backoff, at most `attempts` times.
 */
export async function findCoordinator(cluster: Cluster, key: string, attempts = COORDINATOR_ATTEMPTS_MAX): Promise<CoordinatorNode> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await findCoordinatorOnce(await cluster.anyConnection(), key);
    } catch (err) {
      if (attempt + 1 >= attempts || !isCoordinatorRetriable(err)) throw err;
      await cluster.backoff(attempt);
    }
  }
}

/**
 * A connection to the group's coordinator through the cluster's per-node
 * connections (refreshing metadata once when the node is not known yet).
 */
export async function coordinatorConnection(cluster: Cluster, groupId: string): Promise<Connection> {
  const node = await findCoordinator(cluster, groupId);
  if (!cluster.metadata.brokers.has(node.nodeId)) await cluster.refreshMetadata([]);
  return cluster.connectionTo(node.nodeId);
}

/**
 * Runs `operation` against the coordinator of `groupId`. The operation throws
 * a KafkaProtocolError for its coordinator-level error codes; on
 * NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE / a lost connection the
 * coordinator is looked up again, on COORDINATOR_LOAD_IN_PROGRESS the same one
 * is retried, with backoff, `COORDINATOR_ATTEMPTS_MAX` attempts at most.
 */
export async function withCoordinator<T>(cluster: Cluster, groupId: string, operation: (connection: Connection) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(await coordinatorConnection(cluster, groupId));
    } catch (err) {
      if (attempt + 1 >= COORDINATOR_ATTEMPTS_MAX || !isCoordinatorRetriable(err)) throw err;
      await cluster.backoff(attempt);
    }
  }
}

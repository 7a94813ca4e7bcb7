/**
 * The cluster-administration APIs behind Admin's config, records, log-dir,
 * cluster and partition calls, with the version range the request builders
 * and response readers in config-admin.ts and cluster-admin.ts handle. The
 * version used is the highest both sides support (`request` in apis.ts).
 *
 * Versions: DescribeConfigs 1-4 (v1: configSource and synonyms; v3:
 * configType and documentation), AlterConfigs 0-2, IncrementalAlterConfigs
 * 0-1, DeleteRecords 0-2, DescribeLogDirs 0-4 (v3: top-level errorCode; v4:
 * totalBytes/usableBytes), DescribeCluster 0-1, ElectLeaders 0-2 (v1:
 * electionType; unclean elections need it), ListPartitionReassignments 0,
 * AlterPartitionReassignments 0, OffsetForLeaderEpoch 0-4 (v1: response
 * leaderEpoch; v2: currentLeaderEpoch; v3: replicaId), DescribeTopicPartitions 0
 * (KIP-966's ELR).
 */
import {
  AlterConfigsRequest,
  AlterConfigsResponse,
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  DeleteRecordsRequest,
  DeleteRecordsResponse,
  DescribeClusterRequest,
  DescribeClusterResponse,
  DescribeLogDirsRequest,
  DescribeLogDirsResponse,
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
  ElectLeadersRequest,
  ElectLeadersResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
  OffsetForLeaderEpochRequest,
  OffsetForLeaderEpochResponse,
} from '../protocol/messages/index.js';
import type { MessageSchema } from '../protocol/schema.js';
import { Apis, type ClientApi } from './apis.js';

/** An API entry whose maximum is clamped to what the schemas define. */
function api<Req extends MessageSchema, Res extends MessageSchema>(request: Req, response: Res, minVersion: number, maxVersion: number): ClientApi<Req, Res> {
  return { request, response, minVersion, maxVersion: Math.min(maxVersion, request.maxVersion, response.maxVersion) };
}

/** The admin APIs beyond `Apis`, each with the version range the client handles. */
export const AdminApis = {
  DescribeConfigs: Apis.DescribeConfigs,
  AlterConfigs: api(AlterConfigsRequest, AlterConfigsResponse, 0, 2),
  IncrementalAlterConfigs: api(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 0, 1),
  /** Offset -1 means the high watermark. */
  DeleteRecords: api(DeleteRecordsRequest, DeleteRecordsResponse, 0, 2),
  DescribeLogDirs: api(DescribeLogDirsRequest, DescribeLogDirsResponse, 0, 4),
  DescribeCluster: api(DescribeClusterRequest, DescribeClusterResponse, 0, 1),
  ElectLeaders: api(ElectLeadersRequest, ElectLeadersResponse, 0, 2),
  ListPartitionReassignments: api(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, 0),
  AlterPartitionReassignments: api(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, 0),
  /** v1: response leaderEpoch; v2: currentLeaderEpoch (KIP-320); v3: replicaId. */
  OffsetForLeaderEpoch: api(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 0, 4),
  /** KIP-966: partitions with their Eligible Leader Replicas, paged by a cursor. */
  DescribeTopicPartitions: api(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, 0),
} as const;

/** Kafka's ACL operations (AclOperation), as named in authorized-operations answers (KIP-430). */
export type AclOperation =
  | 'UNKNOWN'
  | 'ANY'
  | 'ALL'
  | 'READ'
  | 'WRITE'
  | 'CREATE'
  | 'DELETE'
  | 'ALTER'
  | 'DESCRIBE'
  | 'CLUSTER_ACTION'
  | 'DESCRIBE_CONFIGS'
  | 'ALTER_CONFIGS'
  | 'IDEMPOTENT_WRITE'
  | 'CREATE_TOKENS'
  | 'DESCRIBE_TOKENS';

/** AclOperation by wire code: bit `code` of an authorized-operations int32 means the operation is allowed. */
const ACL_OPERATIONS: readonly AclOperation[] = [
  'UNKNOWN',
  'ANY',
  'ALL',
  'READ',
  'WRITE',
  'CREATE',
  'DELETE',
  'ALTER',
  'DESCRIBE',
  'CLUSTER_ACTION',
  'DESCRIBE_CONFIGS',
  'ALTER_CONFIGS',
  'IDEMPOTENT_WRITE',
  'CREATE_TOKENS',
  'DESCRIBE_TOKENS',
];

/** The "not requested / not provided" value of an authorized-operations field (INT32_MIN). */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/**
 * Decodes an authorized-operations bit set into operation names, sorted by
 * code; null when the broker did not provide it (INT32_MIN, or a version
 * without the field).
 */
export function decodeAuthorizedOperations(bits: number): AclOperation[] | null {
  if (bits === AUTHORIZED_OPERATIONS_OMITTED) return null;
  return ACL_OPERATIONS.filter((_, code) => (bits & (1 << code)) !== 0);
}

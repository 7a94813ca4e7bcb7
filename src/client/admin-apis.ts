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
 * AlterPartitionReassignments 0.
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
  ElectLeadersRequest,
  ElectLeadersResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../protocol/messages/index.js';
import type { MessageSchema } from '../protocol/schema.js';
import { Apis, type ClientApi } from './apis.js';

function api<Req extends MessageSchema, Res extends MessageSchema>(request: Req, response: Res, minVersion: number, maxVersion: number): ClientApi<Req, Res> {
  return { request, response, minVersion, maxVersion: Math.min(maxVersion, request.maxVersion, response.maxVersion) };
}

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
} as const;

// 60 DescribeCluster, v0-1 (KIP-700; flexible from v0). v1: endpointType in
// request and response (KIP-919: 1 brokers, 2 controllers). platformatic's
// admin uses it; librdkafka from 2.3 and the Java admin's describeCluster.
//
// Answers the cluster id, the controller id and the live brokers with their
// host and port on the listener the request came in on, and their rack.
// As Kafka's brokers do: a controllerId that is not among the listed brokers
// is answered as -1; endpointType must be 1 (this is a broker endpoint, also
// in combined mode): 2 answers MISMATCHED_ENDPOINT_TYPE, anything else
// UNSUPPORTED_ENDPOINT_TYPE (both INVALID_REQUEST at v0, where the field is
// always 1).
//
// clusterAuthorizedOperations: INT32_MIN ("not requested", the schema default)
// unless includeClusterAuthorizedOperations. When asked: without an
// authorizer, the bit set of every operation Kafka defines for the CLUSTER
// resource (CREATE(5), ALTER(7), DESCRIBE(8), CLUSTER_ACTION(9),
// DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11), IDEMPOTENT_WRITE(12)); with one,
// as Kafka: 0 unless the principal may DESCRIBE the cluster, else the bits of
// the operations it is allowed. Describing the cluster itself needs no ACL.
import { AclOperation } from '../../protocol/acl-types.js';
import type { RequestAuthorizer } from '../../security/authorizer/request-authorizer.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../../protocol/messages/60-describe-cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const ENDPOINT_TYPE_BROKER = 1;
export const ENDPOINT_TYPE_CONTROLLER = 2;
export const AUTHORIZED_OPERATIONS_NOT_REQUESTED = -2147483648;
/** AclOperation ids Kafka supports on the CLUSTER resource. */
const CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12];
export const ALL_CLUSTER_OPERATIONS = CLUSTER_OPERATIONS.reduce((bits, op) => bits | (1 << op), 0);

export const describeClusterHandler = defineHandler({
  apiKey: 60,
  name: 'DescribeCluster',
  minVersion: 0,
  maxVersion: 1,
  request: DescribeClusterRequest,
  response: DescribeClusterResponse,
  handle(ctx, req) {
    const md = ctx.services.metadata;
    const v0 = ctx.apiVersion === 0;
    if (req.endpointType !== ENDPOINT_TYPE_BROKER) {
      const known = req.endpointType === ENDPOINT_TYPE_CONTROLLER;
      return {
        throttleTimeMs: 0,
        errorCode: v0 ? ErrorCode.INVALID_REQUEST : known ? ErrorCode.MISMATCHED_ENDPOINT_TYPE : ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
        errorMessage: known
          ? 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER'
          : `Unsupported endpoint type ${req.endpointType}`,
        endpointType: ENDPOINT_TYPE_BROKER,
        clusterId: '',
        brokers: [],
      };
    }
    const brokers = md.brokers(ctx.listenerName);
    const controllerId = md.controllerId();
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: ENDPOINT_TYPE_BROKER,
      clusterId: md.clusterId,
      controllerId: brokers.some((b) => b.nodeId === controllerId) ? controllerId : -1,
      brokers: brokers.map((b) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? clusterOperations(ctx.authz) : AUTHORIZED_OPERATIONS_NOT_REQUESTED,
    };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, clusterId: '', brokers: [] }),
});

function clusterOperations(authz: RequestAuthorizer): number {
  if (!authz.enabled) return ALL_CLUSTER_OPERATIONS;
  if (!authz.cluster(AclOperation.DESCRIBE, false)) return 0;
  return CLUSTER_OPERATIONS.reduce((bits, op) => (authz.cluster(op, false) ? bits | (1 << op) : bits), 0);
}

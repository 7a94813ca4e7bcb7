// 60 DescribeCluster (KIP-700). Flexible from v0. v1: endpointType in request
// and response (KIP-919: 1 brokers, 2 controllers), and MISMATCHED_ENDPOINT_TYPE
// / UNSUPPORTED_ENDPOINT_TYPE may be returned. clusterAuthorizedOperations is
// INT32_MIN when not requested.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeClusterRequest = request(60, { versions: '0-1', flexible: '0+', name: 'DescribeClusterRequest' }, [
  field('includeClusterAuthorizedOperations', 'bool'),
  field('endpointType', 'int8', { versions: '1+', default: 1 }),
]);
export type DescribeClusterRequest = Infer<typeof DescribeClusterRequest>;

export const DescribeClusterResponse = response(60, { versions: '0-1', flexible: '0+', name: 'DescribeClusterResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('errorMessage', 'nullableString', { default: null }),
  field('endpointType', 'int8', { versions: '1+', default: 1 }),
  field('clusterId', 'string'),
  field('controllerId', 'int32', { default: -1 }),
  field(
    'brokers',
    array(
      struct([
        field('brokerId', 'int32'),
        field('host', 'string'),
        field('port', 'int32'),
        field('rack', 'nullableString', { default: null }),
      ]),
    ),
  ),
  field('clusterAuthorizedOperations', 'int32', { default: -2147483648 }),
]);
export type DescribeClusterResponse = Infer<typeof DescribeClusterResponse>;

/**
 * The one table of what each API asks of the authorizer: Kafka's
 * "Operations and Resources on Protocols" (docs/security.md shows it), as
 * KafkaApis and ControllerApis check it.
 *
 * Each row lists its requirements (for the docs and the authorization
 * matrix test, test/integration/security/authorization-matrix.test.ts) and,
 * where the check covers the whole request (one group, one transactional
 * id, the cluster), a `gate`: the broker runs it before the handler and, if
 * a check is denied, answers with the handler's errorResponse and that
 * check's error code (src/broker/request-authorization.ts). Checks per
 * resource (each topic of a Produce, each group of a DescribeGroups) are made
 * by the handler, one `ctx.authz` call per resource, with the operation
 * written here.
 *
 * A test checks that every API key the broker serves has a row.
 */
import { AclOperation, ResourceType, CLUSTER_NAME, type AclOperationName, type ResourceTypeName } from '../../protocol/acl-types.js';
import { ErrorCode, type ErrorName } from '../../protocol/errors.js';

export interface Requirement {
  readonly operation: AclOperationName;
  readonly resource: ResourceTypeName;
  /** The error a principal without it gets (on the resource or the request). */
  readonly error: ErrorName;
  /** When the requirement applies; absent = always. */
  readonly when?: string;
  /** Another grant that satisfies the requirement instead. */
  readonly or?: { readonly operation: AclOperationName; readonly resource: ResourceTypeName; readonly anyName?: boolean };
  /** 'request': checked once, before the handler (a gate); 'resource': per resource by the handler; 'filter': unauthorized resources are left out silently. */
  readonly scope: 'request' | 'resource' | 'filter';
}

export interface GateCheck {
  readonly operation: number;
  readonly resourceType: number;
  readonly name: string;
  readonly error: ErrorCode;
  /** Kafka's authorizeByResourceType alternative: allowed too when `operation` is allowed on some resource of this type. */
  readonly orAnyOf?: { readonly operation: number; readonly resourceType: number };
}

export interface ApiAcl {
  readonly name: string;
  readonly requires: readonly Requirement[];
  /** Whole-request checks, in order; the first denied one decides the answer. */
  readonly gate?: (request: unknown, apiVersion: number) => readonly GateCheck[];
}

function gate<R>(fn: (request: R, apiVersion: number) => readonly GateCheck[]): (request: unknown, apiVersion: number) => readonly GateCheck[] {
  return (request, apiVersion) => fn(request as R, apiVersion);
}

const req = (operation: AclOperationName, resource: ResourceTypeName, error: ErrorName, scope: Requirement['scope'], extra: Partial<Pick<Requirement, 'when' | 'or'>> = {}): Requirement => ({ operation, resource, error, scope, ...extra });

const cluster = (operation: AclOperationName): GateCheck => ({ operation: AclOperation[operation], resourceType: ResourceType.CLUSTER, name: CLUSTER_NAME, error: ErrorCode.CLUSTER_AUTHORIZATION_FAILED });
const group = (operation: AclOperationName, name: string): GateCheck => ({ operation: AclOperation[operation], resourceType: ResourceType.GROUP, name, error: ErrorCode.GROUP_AUTHORIZATION_FAILED });
const txnId = (operation: AclOperationName, name: string): GateCheck => ({ operation: AclOperation[operation], resourceType: ResourceType.TRANSACTIONAL_ID, name, error: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED });

/** A row whose only check is one cluster operation for the whole request. */
const clusterRow = (name: string, operation: AclOperationName): ApiAcl => ({
  name,
  requires: [req(operation, 'CLUSTER', 'CLUSTER_AUTHORIZATION_FAILED', 'request')],
  gate: () => [cluster(operation)],
});

/** A row whose only check is READ on the request's group (the group membership APIs). */
const groupReadRow = (name: string): ApiAcl => ({
  name,
  requires: [req('READ', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'request')],
  gate: gate<{ groupId: string }>((r) => [group('READ', r.groupId)]),
});

const NONE: readonly Requirement[] = [];

export const API_ACLS: Readonly<Record<number, ApiAcl>> = {
  0: {
    name: 'Produce',
    requires: [
      req('WRITE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'request', { when: 'transactional records' }),
      req('WRITE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource'),
    ],
    gate: gate<{ transactionalId: string | null }>((r) => (r.transactionalId === null ? [] : [txnId('WRITE', r.transactionalId)])),
  },
  1: {
    name: 'Fetch',
    requires: [
      req('READ', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'consumers' }),
      req('CLUSTER_ACTION', 'CLUSTER', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'followers (replica id >= 0); the metadata log answers CLUSTER_AUTHORIZATION_FAILED' }),
    ],
  },
  2: { name: 'ListOffsets', requires: [req('DESCRIBE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
  3: {
    name: 'Metadata',
    requires: [
      req('DESCRIBE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'named topics (all topics: only the described ones are listed)' }),
      req('CREATE', 'CLUSTER', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'auto-creating a topic', or: { operation: 'CREATE', resource: 'TOPIC' } }),
    ],
  },
  8: {
    name: 'OffsetCommit',
    requires: [req('READ', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'request'), req('READ', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')],
    gate: gate<{ groupId: string }>((r) => [group('READ', r.groupId)]),
  },
  9: {
    name: 'OffsetFetch',
    requires: [req('DESCRIBE', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'resource'), req('DESCRIBE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'named topics (all topics: only the described ones)' })],
  },
  10: {
    name: 'FindCoordinator',
    requires: [
      req('DESCRIBE', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'resource', { when: 'group coordinator' }),
      req('DESCRIBE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'resource', { when: 'transaction coordinator' }),
    ],
  },
  11: groupReadRow('JoinGroup'),
  12: groupReadRow('Heartbeat'),
  13: groupReadRow('LeaveGroup'),
  14: groupReadRow('SyncGroup'),
  15: { name: 'DescribeGroups', requires: [req('DESCRIBE', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'resource')] },
  16: { name: 'ListGroups', requires: [req('DESCRIBE', 'GROUP', 'NONE', 'filter', { or: { operation: 'DESCRIBE', resource: 'CLUSTER' } })] },
  17: { name: 'SaslHandshake', requires: NONE },
  18: { name: 'ApiVersions', requires: NONE },
  19: { name: 'CreateTopics', requires: [req('CREATE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { or: { operation: 'CREATE', resource: 'CLUSTER' } })] },
  20: { name: 'DeleteTopics', requires: [req('DELETE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
  21: { name: 'DeleteRecords', requires: [req('DELETE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
  22: {
    name: 'InitProducerId',
    requires: [
      req('WRITE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'request', { when: 'transactional producers' }),
      req('IDEMPOTENT_WRITE', 'CLUSTER', 'CLUSTER_AUTHORIZATION_FAILED', 'request', { when: 'idempotent producers', or: { operation: 'WRITE', resource: 'TOPIC', anyName: true } }),
    ],
    gate: gate<{ transactionalId: string | null }>((r) =>
      r.transactionalId === null ? [{ ...cluster('IDEMPOTENT_WRITE'), orAnyOf: { operation: AclOperation.WRITE, resourceType: ResourceType.TOPIC } }] : [txnId('WRITE', r.transactionalId)],
    ),
  },
  23: {
    name: 'OffsetForLeaderEpoch',
    requires: [req('DESCRIBE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { or: { operation: 'CLUSTER_ACTION', resource: 'CLUSTER' } })],
  },
  24: {
    name: 'AddPartitionsToTxn',
    requires: [
      req('WRITE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'request', { when: 'v0-3 (producers)' }),
      req('WRITE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'v0-3 (producers)' }),
      req('CLUSTER_ACTION', 'CLUSTER', 'CLUSTER_AUTHORIZATION_FAILED', 'request', { when: 'v4+ (brokers)' }),
    ],
    gate: gate<{ transactionalId: string }>((r, v) => (v >= 4 ? [cluster('CLUSTER_ACTION')] : [txnId('WRITE', r.transactionalId)])),
  },
  25: {
    name: 'AddOffsetsToTxn',
    requires: [req('WRITE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'request'), req('READ', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'request')],
    gate: gate<{ transactionalId: string; groupId: string }>((r) => [txnId('WRITE', r.transactionalId), group('READ', r.groupId)]),
  },
  26: {
    name: 'EndTxn',
    requires: [req('WRITE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'request')],
    gate: gate<{ transactionalId: string }>((r) => [txnId('WRITE', r.transactionalId)]),
  },
  27: clusterRow('WriteTxnMarkers', 'CLUSTER_ACTION'),
  28: {
    name: 'TxnOffsetCommit',
    requires: [
      req('WRITE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'request'),
      req('READ', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'request'),
      req('READ', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource'),
    ],
    gate: gate<{ transactionalId: string; groupId: string }>((r) => [txnId('WRITE', r.transactionalId), group('READ', r.groupId)]),
  },
  29: clusterRow('DescribeAcls', 'DESCRIBE'),
  30: clusterRow('CreateAcls', 'ALTER'),
  31: clusterRow('DeleteAcls', 'ALTER'),
  32: {
    name: 'DescribeConfigs',
    requires: [req('DESCRIBE_CONFIGS', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'topics' }), req('DESCRIBE_CONFIGS', 'CLUSTER', 'CLUSTER_AUTHORIZATION_FAILED', 'resource', { when: 'brokers' })],
  },
  33: {
    name: 'AlterConfigs',
    requires: [req('ALTER_CONFIGS', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'topics' }), req('ALTER_CONFIGS', 'CLUSTER', 'CLUSTER_AUTHORIZATION_FAILED', 'resource', { when: 'brokers' })],
  },
  35: clusterRow('DescribeLogDirs', 'DESCRIBE'),
  36: { name: 'SaslAuthenticate', requires: NONE },
  37: { name: 'CreatePartitions', requires: [req('ALTER', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
  42: { name: 'DeleteGroups', requires: [req('DELETE', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'resource')] },
  43: clusterRow('ElectLeaders', 'ALTER'),
  44: {
    name: 'IncrementalAlterConfigs',
    requires: [req('ALTER_CONFIGS', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource', { when: 'topics' }), req('ALTER_CONFIGS', 'CLUSTER', 'CLUSTER_AUTHORIZATION_FAILED', 'resource', { when: 'brokers' })],
  },
  45: clusterRow('AlterPartitionReassignments', 'ALTER'),
  46: clusterRow('ListPartitionReassignments', 'DESCRIBE'),
  47: {
    name: 'OffsetDelete',
    requires: [req('DELETE', 'GROUP', 'GROUP_AUTHORIZATION_FAILED', 'request'), req('READ', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')],
    gate: gate<{ groupId: string }>((r) => [group('DELETE', r.groupId)]),
  },
  48: clusterRow('DescribeClientQuotas', 'DESCRIBE_CONFIGS'),
  49: clusterRow('AlterClientQuotas', 'ALTER_CONFIGS'),
  50: clusterRow('DescribeUserScramCredentials', 'DESCRIBE'),
  51: clusterRow('AlterUserScramCredentials', 'ALTER'),
  52: clusterRow('Vote', 'CLUSTER_ACTION'),
  53: clusterRow('BeginQuorumEpoch', 'CLUSTER_ACTION'),
  54: clusterRow('EndQuorumEpoch', 'CLUSTER_ACTION'),
  55: clusterRow('DescribeQuorum', 'DESCRIBE'),
  56: clusterRow('AlterPartition', 'CLUSTER_ACTION'),
  59: clusterRow('FetchSnapshot', 'CLUSTER_ACTION'),
  // Kafka asks nothing to describe the cluster (as Metadata's broker list); DESCRIBE only decides the authorized operations it reports.
  60: { name: 'DescribeCluster', requires: NONE },
  61: { name: 'DescribeProducers', requires: [req('READ', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
  62: clusterRow('BrokerRegistration', 'CLUSTER_ACTION'),
  63: clusterRow('BrokerHeartbeat', 'CLUSTER_ACTION'),
  65: {
    name: 'DescribeTransactions',
    requires: [req('DESCRIBE', 'TRANSACTIONAL_ID', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'resource'), req('DESCRIBE', 'TOPIC', 'NONE', 'filter', { when: 'the partitions of each transaction' })],
  },
  66: { name: 'ListTransactions', requires: [req('DESCRIBE', 'TRANSACTIONAL_ID', 'NONE', 'filter')] },
  67: clusterRow('AllocateProducerIds', 'CLUSTER_ACTION'),
  75: { name: 'DescribeTopicPartitions', requires: [req('DESCRIBE', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
  // Tributary's own API (docs/compatibility.md): copying another cluster's history into a mirror topic is managing the topic.
  10000: { name: 'MirrorAppend', requires: [req('ALTER', 'TOPIC', 'TOPIC_AUTHORIZATION_FAILED', 'resource')] },
};

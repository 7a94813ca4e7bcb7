/**
 * The single table of Kafka error codes: number, name, whether clients retry
 * it, and what it means. Handlers answer with `ErrorCode.X`; library errors
 * carry the name. Codes and names are Kafka's (the wire contract); the
 * descriptions are ours, written to say what happened.
 */

export interface KafkaErrorInfo {
  readonly code: number;
  readonly name: string;
  readonly retriable: boolean;
  readonly description: string;
}

const table = [
  { code: -1, name: 'UNKNOWN_SERVER_ERROR', retriable: false, description: 'The server experienced an unexpected error when processing the request.' },
  { code: 0, name: 'NONE', retriable: false, description: 'No error.' },
  { code: 1, name: 'OFFSET_OUT_OF_RANGE', retriable: false, description: 'The requested offset is not within the range of offsets maintained by the server.' },
  { code: 2, name: 'CORRUPT_MESSAGE', retriable: true, description: 'The record batch failed its CRC check, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.' },
  { code: 3, name: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: true, description: 'This server does not host this topic-partition.' },
  { code: 4, name: 'INVALID_FETCH_SIZE', retriable: false, description: 'The requested fetch size is invalid.' },
  { code: 5, name: 'LEADER_NOT_AVAILABLE', retriable: true, description: 'There is no leader for this topic-partition as we are in the middle of a leadership election.' },
  { code: 6, name: 'NOT_LEADER_OR_FOLLOWER', retriable: true, description: 'This server is not the leader or follower for this partition.' },
  { code: 7, name: 'REQUEST_TIMED_OUT', retriable: true, description: 'The request timed out.' },
  { code: 8, name: 'BROKER_NOT_AVAILABLE', retriable: false, description: 'The broker is not available.' },
  { code: 9, name: 'REPLICA_NOT_AVAILABLE', retriable: true, description: 'The replica is not available for the requested topic-partition.' },
  { code: 10, name: 'MESSAGE_TOO_LARGE', retriable: false, description: 'The request included a message larger than the max message size the server will accept.' },
  { code: 11, name: 'STALE_CONTROLLER_EPOCH', retriable: false, description: 'The controller moved to another broker.' },
  { code: 12, name: 'OFFSET_METADATA_TOO_LARGE', retriable: false, description: 'The metadata field of the offset request was too large.' },
  { code: 13, name: 'NETWORK_EXCEPTION', retriable: true, description: 'The server disconnected before a response was received.' },
  { code: 14, name: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true, description: 'The coordinator is loading and hence can\'t process requests.' },
  { code: 15, name: 'COORDINATOR_NOT_AVAILABLE', retriable: true, description: 'The coordinator is not available.' },
  { code: 16, name: 'NOT_COORDINATOR', retriable: true, description: 'This is not the correct coordinator.' },
  { code: 17, name: 'INVALID_TOPIC_EXCEPTION', retriable: false, description: 'The request attempted to perform an operation on an invalid topic.' },
  { code: 18, name: 'RECORD_LIST_TOO_LARGE', retriable: false, description: 'The request included a message batch larger than the configured segment size on the server.' },
  { code: 19, name: 'NOT_ENOUGH_REPLICAS', retriable: true, description: 'Messages are rejected since there are fewer in-sync replicas than required.' },
  { code: 20, name: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', retriable: true, description: 'Messages are written to the log, but to fewer in-sync replicas than required.' },
  { code: 21, name: 'INVALID_REQUIRED_ACKS', retriable: false, description: 'Produce request specified an invalid value for required acks.' },
  { code: 22, name: 'ILLEGAL_GENERATION', retriable: false, description: 'Specified group generation id is not valid.' },
  { code: 23, name: 'INCONSISTENT_GROUP_PROTOCOL', retriable: false, description: 'The group member\'s supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.' },
  { code: 24, name: 'INVALID_GROUP_ID', retriable: false, description: 'The configured groupId is invalid.' },
  { code: 25, name: 'UNKNOWN_MEMBER_ID', retriable: false, description: 'The coordinator is not aware of this member.' },
  { code: 26, name: 'INVALID_SESSION_TIMEOUT', retriable: false, description: 'The session timeout is not within the range allowed by the broker.' },
  { code: 27, name: 'REBALANCE_IN_PROGRESS', retriable: false, description: 'The group is rebalancing, so a rejoin is needed.' },
  { code: 28, name: 'INVALID_COMMIT_OFFSET_SIZE', retriable: false, description: 'The committing offset data size is not valid.' },
  { code: 29, name: 'TOPIC_AUTHORIZATION_FAILED', retriable: false, description: 'Topic authorization failed.' },
  { code: 30, name: 'GROUP_AUTHORIZATION_FAILED', retriable: false, description: 'Group authorization failed.' },
  { code: 31, name: 'CLUSTER_AUTHORIZATION_FAILED', retriable: false, description: 'Cluster authorization failed.' },
  { code: 32, name: 'INVALID_TIMESTAMP', retriable: false, description: 'The timestamp of the message is out of acceptable range.' },
  { code: 33, name: 'UNSUPPORTED_SASL_MECHANISM', retriable: false, description: 'The broker does not support the requested SASL mechanism.' },
  { code: 34, name: 'ILLEGAL_SASL_STATE', retriable: false, description: 'Request is not valid given the current SASL state.' },
  { code: 35, name: 'UNSUPPORTED_VERSION', retriable: false, description: 'The version of API is not supported.' },
  { code: 36, name: 'TOPIC_ALREADY_EXISTS', retriable: false, description: 'Topic with this name already exists.' },
  { code: 37, name: 'INVALID_PARTITIONS', retriable: false, description: 'Number of partitions is below 1.' },
  { code: 38, name: 'INVALID_REPLICATION_FACTOR', retriable: false, description: 'Replication factor is below 1 or larger than the number of available brokers.' },
  { code: 39, name: 'INVALID_REPLICA_ASSIGNMENT', retriable: false, description: 'Replica assignment is invalid.' },
  { code: 40, name: 'INVALID_CONFIG', retriable: false, description: 'Configuration is invalid.' },
  { code: 41, name: 'NOT_CONTROLLER', retriable: true, description: 'This is not the correct controller for this cluster.' },
  { code: 42, name: 'INVALID_REQUEST', retriable: false, description: 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker.' },
  { code: 43, name: 'UNSUPPORTED_FOR_MESSAGE_FORMAT', retriable: false, description: 'The message format version on the broker does not support the request.' },
  { code: 44, name: 'POLICY_VIOLATION', retriable: false, description: 'Request parameters do not satisfy the configured policy.' },
  { code: 45, name: 'OUT_OF_ORDER_SEQUENCE_NUMBER', retriable: false, description: 'The broker received an out of order sequence number.' },
  { code: 46, name: 'DUPLICATE_SEQUENCE_NUMBER', retriable: false, description: 'The broker received a duplicate sequence number.' },
  { code: 47, name: 'INVALID_PRODUCER_EPOCH', retriable: false, description: 'Producer attempted to produce with an old epoch.' },
  { code: 48, name: 'INVALID_TXN_STATE', retriable: false, description: 'The producer attempted a transactional operation in an invalid state.' },
  { code: 49, name: 'INVALID_PRODUCER_ID_MAPPING', retriable: false, description: 'The producer attempted to use a producer id which is not currently assigned to its transactional id.' },
  { code: 50, name: 'INVALID_TRANSACTION_TIMEOUT', retriable: false, description: 'The transaction timeout is larger than the maximum value allowed by the broker.' },
  { code: 51, name: 'CONCURRENT_TRANSACTIONS', retriable: true, description: 'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.' },
  { code: 52, name: 'TRANSACTION_COORDINATOR_FENCED', retriable: false, description: 'Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.' },
  { code: 53, name: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', retriable: false, description: 'Transactional Id authorization failed.' },
  { code: 54, name: 'SECURITY_DISABLED', retriable: false, description: 'Security features are disabled.' },
  { code: 55, name: 'OPERATION_NOT_ATTEMPTED', retriable: false, description: 'The broker did not attempt to execute this operation.' },
  { code: 56, name: 'KAFKA_STORAGE_ERROR', retriable: true, description: 'Disk error when trying to access log file on the disk.' },
  { code: 57, name: 'LOG_DIR_NOT_FOUND', retriable: false, description: 'The user-specified log directory is not found in the broker config.' },
  { code: 58, name: 'SASL_AUTHENTICATION_FAILED', retriable: false, description: 'SASL Authentication failed.' },
  { code: 59, name: 'UNKNOWN_PRODUCER_ID', retriable: false, description: 'The broker could not locate the producer metadata associated with the producer id.' },
  { code: 60, name: 'REASSIGNMENT_IN_PROGRESS', retriable: false, description: 'A partition reassignment is in progress.' },
  { code: 61, name: 'DELEGATION_TOKEN_AUTH_DISABLED', retriable: false, description: 'Delegation Token feature is not enabled.' },
  { code: 62, name: 'DELEGATION_TOKEN_NOT_FOUND', retriable: false, description: 'Delegation Token is not found on server.' },
  { code: 63, name: 'DELEGATION_TOKEN_OWNER_MISMATCH', retriable: false, description: 'Specified Principal is not valid Owner/Renewer.' },
  { code: 64, name: 'DELEGATION_TOKEN_REQUEST_NOT_ALLOWED', retriable: false, description: 'Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.' },
  { code: 65, name: 'DELEGATION_TOKEN_AUTHORIZATION_FAILED', retriable: false, description: 'Delegation Token authorization failed.' },
  { code: 66, name: 'DELEGATION_TOKEN_EXPIRED', retriable: false, description: 'Delegation Token is expired.' },
  { code: 67, name: 'INVALID_PRINCIPAL_TYPE', retriable: false, description: 'Supplied principalType is not supported.' },
  { code: 68, name: 'NON_EMPTY_GROUP', retriable: false, description: 'The group is not empty.' },
  { code: 69, name: 'GROUP_ID_NOT_FOUND', retriable: false, description: 'The group id does not exist.' },
  { code: 70, name: 'FETCH_SESSION_ID_NOT_FOUND', retriable: true, description: 'The fetch session ID was not found.' },
  { code: 71, name: 'INVALID_FETCH_SESSION_EPOCH', retriable: true, description: 'The fetch session epoch is invalid.' },
  { code: 72, name: 'LISTENER_NOT_FOUND', retriable: true, description: 'There is no listener on the leader broker that matches the listener on which metadata request was processed.' },
  { code: 73, name: 'TOPIC_DELETION_DISABLED', retriable: false, description: 'Topic deletion is disabled.' },
  { code: 74, name: 'FENCED_LEADER_EPOCH', retriable: true, description: 'The leader epoch in the request is older than the epoch on the broker.' },
  { code: 75, name: 'UNKNOWN_LEADER_EPOCH', retriable: true, description: 'The leader epoch in the request is newer than the epoch on the broker.' },
  { code: 76, name: 'UNSUPPORTED_COMPRESSION_TYPE', retriable: false, description: 'The requesting client does not support the compression type of given partition.' },
  { code: 77, name: 'STALE_BROKER_EPOCH', retriable: false, description: 'Broker epoch has changed.' },
  { code: 78, name: 'OFFSET_NOT_AVAILABLE', retriable: true, description: 'The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.' },
  { code: 79, name: 'MEMBER_ID_REQUIRED', retriable: false, description: 'The group member needs to have a valid member id before actually entering a consumer group.' },
  { code: 80, name: 'PREFERRED_LEADER_NOT_AVAILABLE', retriable: true, description: 'The preferred leader was not available.' },
  { code: 81, name: 'GROUP_MAX_SIZE_REACHED', retriable: false, description: 'The consumer group has reached its max size.' },
  { code: 82, name: 'FENCED_INSTANCE_ID', retriable: false, description: 'The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.' },
  { code: 83, name: 'ELIGIBLE_LEADERS_NOT_AVAILABLE', retriable: true, description: 'Eligible topic partition leaders are not available.' },
  { code: 84, name: 'ELECTION_NOT_NEEDED', retriable: true, description: 'Leader election not needed for topic partition.' },
  { code: 85, name: 'NO_REASSIGNMENT_IN_PROGRESS', retriable: false, description: 'No partition reassignment is in progress.' },
  { code: 86, name: 'GROUP_SUBSCRIBED_TO_TOPIC', retriable: false, description: 'Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.' },
  { code: 87, name: 'INVALID_RECORD', retriable: false, description: 'This record has failed the validation on broker and hence will be rejected.' },
  { code: 88, name: 'UNSTABLE_OFFSET_COMMIT', retriable: true, description: 'There are unstable offsets that need to be cleared.' },
  { code: 89, name: 'THROTTLING_QUOTA_EXCEEDED', retriable: true, description: 'The throttling quota has been exceeded.' },
  { code: 90, name: 'PRODUCER_FENCED', retriable: false, description: 'There is a newer producer with the same transactionalId which fences the current one.' },
  { code: 91, name: 'RESOURCE_NOT_FOUND', retriable: false, description: 'A request illegally referred to a resource that does not exist.' },
  { code: 92, name: 'DUPLICATE_RESOURCE', retriable: false, description: 'A request illegally referred to the same resource twice.' },
  { code: 93, name: 'UNACCEPTABLE_CREDENTIAL', retriable: false, description: 'Requested credential would not meet criteria for acceptability.' },
  { code: 94, name: 'INCONSISTENT_VOTER_SET', retriable: false, description: 'Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters.' },
  { code: 95, name: 'INVALID_UPDATE_VERSION', retriable: false, description: 'The given update version was invalid.' },
  { code: 96, name: 'FEATURE_UPDATE_FAILED', retriable: false, description: 'Unable to update finalized features due to an unexpected server error.' },
  { code: 97, name: 'PRINCIPAL_DESERIALIZATION_FAILURE', retriable: false, description: 'Request principal deserialization failed during forwarding.' },
  { code: 98, name: 'SNAPSHOT_NOT_FOUND', retriable: false, description: 'Requested snapshot was not found.' },
  { code: 99, name: 'POSITION_OUT_OF_RANGE', retriable: false, description: 'Requested position is not greater than or equal to zero, and less than the size of the snapshot.' },
  { code: 100, name: 'UNKNOWN_TOPIC_ID', retriable: true, description: 'This server does not host this topic ID.' },
  { code: 101, name: 'DUPLICATE_BROKER_REGISTRATION', retriable: false, description: 'This broker ID is already in use.' },
  { code: 102, name: 'BROKER_ID_NOT_REGISTERED', retriable: false, description: 'The given broker ID was not registered.' },
  { code: 103, name: 'INCONSISTENT_TOPIC_ID', retriable: true, description: 'The log\'s topic ID did not match the topic ID in the request.' },
  { code: 104, name: 'INCONSISTENT_CLUSTER_ID', retriable: false, description: 'The clusterId in the request does not match that found on the server.' },
  { code: 105, name: 'TRANSACTIONAL_ID_NOT_FOUND', retriable: false, description: 'The transactionalId could not be found.' },
  { code: 106, name: 'FETCH_SESSION_TOPIC_ID_ERROR', retriable: true, description: 'The fetch session encountered inconsistent topic ID usage.' },
  { code: 107, name: 'INELIGIBLE_REPLICA', retriable: false, description: 'The new ISR contains at least one ineligible replica.' },
  { code: 108, name: 'NEW_LEADER_ELECTED', retriable: false, description: 'The AlterPartition request successfully updated the partition state but the leader has changed.' },
  { code: 109, name: 'OFFSET_MOVED_TO_TIERED_STORAGE', retriable: false, description: 'The requested offset is moved to tiered storage.' },
  { code: 110, name: 'FENCED_MEMBER_EPOCH', retriable: false, description: 'The member epoch is fenced by the group coordinator.' },
  { code: 111, name: 'UNRELEASED_INSTANCE_ID', retriable: false, description: 'The instance ID is still used by another member in the consumer group.' },
  { code: 112, name: 'UNSUPPORTED_ASSIGNOR', retriable: false, description: 'The assignor or its version range is not supported by the consumer group.' },
  { code: 113, name: 'STALE_MEMBER_EPOCH', retriable: false, description: 'The member epoch is stale.' },
  { code: 114, name: 'MISMATCHED_ENDPOINT_TYPE', retriable: false, description: 'The request was sent to an endpoint of the wrong type.' },
  { code: 115, name: 'UNSUPPORTED_ENDPOINT_TYPE', retriable: false, description: 'This endpoint type is not supported yet.' },
  { code: 116, name: 'UNKNOWN_CONTROLLER_ID', retriable: false, description: 'This controller ID is not known.' },
  { code: 117, name: 'UNKNOWN_SUBSCRIPTION_ID', retriable: false, description: 'Client sent a push telemetry request with an invalid or outdated subscription ID.' },
  { code: 118, name: 'TELEMETRY_TOO_LARGE', retriable: false, description: 'Client sent a push telemetry request larger than the maximum size the broker will accept.' },
  { code: 119, name: 'INVALID_REGISTRATION', retriable: false, description: 'The controller has considered the broker registration to be invalid.' },
  { code: 120, name: 'TRANSACTION_ABORTABLE', retriable: false, description: 'The server encountered an error with the transaction.' },
] as const satisfies readonly KafkaErrorInfo[];

export type ErrorName = (typeof table)[number]['name'];

/** `ErrorCode.NOT_LEADER_OR_FOLLOWER === 6`, and so on for every code. */
export const ErrorCode = Object.fromEntries(table.map((e) => [e.name, e.code])) as { readonly [N in ErrorName]: Extract<(typeof table)[number], { name: N }>['code'] };
export type ErrorCode = (typeof table)[number]['code'];

const byCode = new Map<number, KafkaErrorInfo>(table.map((e) => [e.code, e]));

export function errorInfo(code: number): KafkaErrorInfo {
  return byCode.get(code) ?? { code, name: `UNKNOWN_ERROR_${code}`, retriable: false, description: `Unknown error code ${code}.` };
}

export function errorName(code: number): string {
  return errorInfo(code).name;
}

export const allErrors: readonly KafkaErrorInfo[] = table;


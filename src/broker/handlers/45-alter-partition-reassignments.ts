// 45 AlterPartitionReassignments, v0 (KIP-455; flexible from v0). Not here:
// v1 (allowReplicationFactorChange, KIP-860). kafkajs and platformatic admin
// send v0; the admin tools' reassign-partitions command uses it.
//
// Decided by the controller's rules against the metadata image (the
// MetadataService; src/replication/partition-plans.ts), per partition:
// unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION; replicas null
// cancels, NO_REASSIGNMENT_IN_PROGRESS when none is; a target that is empty,
// names a broker twice or names a broker that is not registered
// INVALID_REPLICA_ASSIGNMENT; a target equal to the current replica list
// (with nothing in progress) is a successful no-op. Top-level errorCode is
// NONE (it carries authorization failures in Kafka).
//
// One node: the only valid target is [this node], the current replica set,
// so every valid request is that no-op. Moving replicas needs
// PartitionChangeRecords and follower fetching (the replication issue);
// until then a target that would move data answers INVALID_REPLICA_ASSIGNMENT
// with a message saying so, and a target of more than one replica (after
// Kafka's checks) INVALID_REPLICATION_FACTOR: partitions keep one replica. timeoutMs is unused (answers are immediate).
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from '../../protocol/messages/45-alter-partition-reassignments.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const alterPartitionReassignmentsHandler = defineHandler({
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  request: AlterPartitionReassignmentsRequest,
  response: AlterPartitionReassignmentsResponse,
  async handle(ctx, req) {
    const results = await ctx.services.metadata.alterPartitionReassignments(
      req.topics.map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, replicas: p.replicas })) })),
    );
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      responses: results.map((t) => ({
        name: t.topic,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      })),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    errorCode,
    errorMessage: null,
    responses: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, errorMessage: null })),
    })),
  }),
});

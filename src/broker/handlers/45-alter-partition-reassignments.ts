// 45 AlterPartitionReassignments, v0 (KIP-455; flexible from v0). Not here:
// v1 (allowReplicationFactorChange, KIP-860). kafkajs and platformatic admin
// send v0; the admin tools' reassign-partitions command uses it.
//
// Runs on the active controller (forwarded there from other nodes) with
// KRaft's rules (src/controller/partition-admin.ts), per partition: unknown
// topic or partition UNKNOWN_TOPIC_OR_PARTITION; replicas null cancels,
// NO_REASSIGNMENT_IN_PROGRESS when none is; a target that is empty, names a
// broker twice or names a broker that is not registered
// INVALID_REPLICA_ASSIGNMENT; a target equal to the current replica list
// (with nothing in progress) is a successful no-op; otherwise the
// reassignment is committed (adding/removing replicas) and completes once
// the ISR holds the whole target. Top-level errorCode is NONE (it carries
// authorization failures in Kafka). New replicas copy the data as followers
// of the leader. timeoutMs is unused.
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from '../../protocol/messages/45-alter-partition-reassignments.js';
import { ErrorCode } from '../../protocol/errors.js';
import { forwardToController } from '../controller-channel.js';
import { defineHandler } from '../handler.js';

type Req = AlterPartitionReassignmentsRequest;

function errorBody(req: Req, errorCode: number) {
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage: null,
    responses: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, errorMessage: null })),
    })),
  };
}

export const alterPartitionReassignmentsHandler = defineHandler({
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  request: AlterPartitionReassignmentsRequest,
  response: AlterPartitionReassignmentsResponse,
  async handle(ctx, req) {
    const forwarded = await forwardToController(ctx, { request: AlterPartitionReassignmentsRequest, response: AlterPartitionReassignmentsResponse }, req, (code) => errorBody(req, code));
    if (forwarded !== null) return forwarded;
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
  errorResponse: (req, errorCode) => errorBody(req, errorCode),
});

// 46 ListPartitionReassignments, v0 (KIP-455; flexible from v0). kafkajs and
// platformatic admin send v0.
//
// The reassignments in progress, read from the metadata image (partitions
// whose addingReplicas or removingReplicas are not empty): topics null = all
// of them; otherwise only the requested partitions that are reassigning.
// Unknown topics and partitions are left out without an error, as Kafka's
// controller does. One node never reassigns, so the answer is an empty list.
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from '../../protocol/messages/46-list-partition-reassignments.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const listPartitionReassignmentsHandler = defineHandler({
  apiKey: 46,
  name: 'ListPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  request: ListPartitionReassignmentsRequest,
  response: ListPartitionReassignmentsResponse,
  handle(ctx, req) {
    const refs = req.topics === null ? null : req.topics.map((t) => ({ topic: t.name, partitions: t.partitionIndexes }));
    const ongoing = ctx.services.metadata.listPartitionReassignments(refs);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topics: ongoing.map((t) => ({
        name: t.topic,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partition,
          replicas: p.replicas,
          addingReplicas: p.addingReplicas,
          removingReplicas: p.removingReplicas,
        })),
      })),
    };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, topics: [] }),
});

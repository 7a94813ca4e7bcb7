// 27 WriteTxnMarkers, v0-1 (v1 flexible): the transaction coordinator (on
// any broker, this one included) asks this broker, as partition leader, to
// end a producer's transaction on some partitions with a COMMIT or ABORT
// marker (KIP-98). Kafka's brokers send v1 when both sides have it; v2
// (transactionVersion, KIP-890 part 2) is not advertised until markers with
// the bumped epoch are written.
//
// Per partition, ReplicaManager.txnMarkers (src/replication/txn-markers.ts)
// checks and appends the control batch in one synchronous step and waits for
// the in-sync replicas (acks=all). Errors per partition:
// UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (the coordinator
// retries on the new leader), INVALID_PRODUCER_EPOCH (the marker's epoch is
// older than the producer's on this partition), TRANSACTION_COORDINATOR_FENCED
// (the coordinator epoch is older than the last marker's: a deposed
// coordinator), NOT_ENOUGH_REPLICAS(_AFTER_APPEND), REQUEST_TIMED_OUT
// (the in-sync replicas did not confirm in time), KAFKA_STORAGE_ERROR.
// The markers of one request are written concurrently; each answer lists the
// partitions in request order.
//
// Simplification: no CLUSTER_ACTION authorization yet (the authorizer is
// allow-all); Kafka requires it since only brokers may send this.
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../protocol/messages/27-write-txn-markers.js';
import { defineHandler } from '../handler.js';

export const writeTxnMarkersHandler = defineHandler({
  apiKey: 27,
  name: 'WriteTxnMarkers',
  minVersion: 0,
  maxVersion: 1,
  request: WriteTxnMarkersRequest,
  response: WriteTxnMarkersResponse,
  async handle(ctx, req) {
    const writer = ctx.services.replicaManager.txnMarkers;
    const markers = await Promise.all(req.markers.map(async (m) => {
      const partitions = m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
      const results = await writer.write({
        producerId: m.producerId,
        producerEpoch: m.producerEpoch,
        coordinatorEpoch: m.coordinatorEpoch,
        commit: m.transactionResult,
        partitions,
      });
      let at = 0;
      return {
        producerId: m.producerId,
        topics: m.topics.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: (results[at++] as (typeof results)[number]).errorCode })),
        })),
      };
    }));
    return { markers };
  },
  errorResponse: (req, errorCode) => ({
    markers: req.markers.map((m) => ({
      producerId: m.producerId,
      topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode })) })),
    })),
  }),
});

// 24 AddPartitionsToTxn, v0-5 (v3 flexible). v0-3, from producers: add the
// partitions to the id's transaction (one write to __transaction_state);
// every partition gets the same code, except that partitions of unknown
// topics get UNKNOWN_TOPIC_OR_PARTITION and the others
// OPERATION_NOT_ATTEMPTED (nothing is added), as Kafka. v2+ may answer
// PRODUCER_FENCED (older: INVALID_PRODUCER_EPOCH). v4+, from partition
// leaders (KIP-890 part 1): many transactions per request; verifyOnly asks
// whether each partition is already in the producer's ongoing transaction
// (NONE, else INVALID_TXN_STATE) and writes nothing; without verifyOnly the
// partitions are added (transaction version 2's implicit add). v0-3: an add
// that arrives while the previous transaction's markers are being written
// waits for them (at most 100 ms) instead of answering
// CONCURRENT_TRANSACTIONS at once (src/broker/txn-concurrent-wait.ts).
import { AclOperation } from '../../protocol/acl-types.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/messages/24-add-partitions-to-txn.js';
import { ErrorCode } from '../../protocol/errors.js';
import { codeForVersion } from '../../coordinator/transaction/request-rules.js';
import { tpKey, type TopicPartition } from '../../coordinator/transaction/state.js';
import { defineHandler } from '../handler.js';
import { afterMarkerPhase } from '../txn-concurrent-wait.js';
import type { RequestContext } from '../request-context.js';

type Topics = readonly { name: string; partitions: readonly number[] }[];

function flatten(topics: Topics): TopicPartition[] {
  return topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
}

function results(topics: Topics, codeOf: (tp: TopicPartition) => number) {
  return topics.map((t) => ({ name: t.name, results: t.partitions.map((partitionIndex) => ({ partitionIndex, errorCode: codeOf({ topic: t.name, partition: partitionIndex }) })) }));
}

function partitionExists(ctx: RequestContext, tp: TopicPartition): boolean {
  const topic = ctx.services.metadata.topic(tp.topic);
  return topic !== undefined && topic.partitions.some((p) => p.partition === tp.partition);
}

async function addOne(ctx: RequestContext, ref: { transactionalId: string; producerId: bigint; producerEpoch: number }, topics: Topics, verifyOnly: boolean) {
  const partitions = flatten(topics);
  const coordinator = ctx.services.transactions.coordinator;
  if (verifyOnly) {
    const v = coordinator.verifyPartitions(ref, partitions);
    return results(topics, (tp) => codeForVersion('addPartitionsToTxn', ctx.apiVersion, v.partitions.get(tpKey(tp)) ?? ErrorCode.UNKNOWN_SERVER_ERROR));
  }
  // WRITE on each topic (v0-3; brokers sending v4+ have CLUSTER_ACTION): as Kafka, a denied topic is TOPIC_AUTHORIZATION_FAILED and nothing is added.
  const unwritable = new Set(ctx.apiVersion >= 4 ? [] : topics.filter((t) => !ctx.authz.topic(AclOperation.WRITE, t.name)).map((t) => t.name));
  const unknown = new Set(partitions.filter((tp) => !unwritable.has(tp.topic) && !partitionExists(ctx, tp)).map(tpKey));
  if (unknown.size > 0 || unwritable.size > 0) {
    return results(topics, (tp) => (unwritable.has(tp.topic) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : unknown.has(tpKey(tp)) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.OPERATION_NOT_ATTEMPTED));
  }
  // A producer's add that overtook its previous transaction's markers waits for them (txn-concurrent-wait.ts).
  const added = ctx.apiVersion >= 4 ? await coordinator.addPartitions(ref, partitions)
    : await afterMarkerPhase(coordinator, ref.transactionalId, () => coordinator.addPartitions(ref, partitions));
  const code = codeForVersion('addPartitionsToTxn', ctx.apiVersion, added);
  return results(topics, () => code);
}

export const addPartitionsToTxnHandler = defineHandler({
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 5,
  request: AddPartitionsToTxnRequest,
  response: AddPartitionsToTxnResponse,
  async handle(ctx, req) {
    if (ctx.apiVersion >= 4) {
      const resultsByTransaction = await Promise.all(
        req.transactions.map(async (t) => {
          const topicResults = await addOne(ctx, t, t.topics, t.verifyOnly);
          return { transactionalId: t.transactionalId, topicResults: topicResults.map((r) => ({ name: r.name, results: r.results })) };
        }),
      );
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction };
    }
    return { throttleTimeMs: 0, results: await addOne(ctx, req, req.topics, false) };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    errorCode,
    results: results(req.topics, () => errorCode),
    resultsByTransaction: req.transactions.map((t) => ({ transactionalId: t.transactionalId, topicResults: results(t.topics, () => errorCode) })),
  }),
});

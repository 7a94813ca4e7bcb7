/**
 * A fetch session (KIP-227) that names a topic id this broker does not know
 * yet (Fetch v13, KIP-516). In a cluster a follower or consumer can learn of
 * a new topic before the leader applies it: its first Fetch with the
 * partition is answered UNKNOWN_TOPIC_ID, and its fetcher does not send the
 * partition again while its fetch position is unchanged. The broker keeps
 * such a partition in the session, answers UNKNOWN_TOPIC_ID while the id is
 * unknown, and reads it as soon as the id resolves, without the fetcher
 * naming it again. (Before: the broker left it out of the session, and the
 * partition was never fetched until the session ended; a replica of a new
 * __consumer_offsets partition stayed out of sync for 30 s.)
 *
 * The fetcher here is the brokers' own replica-fetch transport (Fetch v13
 * with a session); "not known yet" is the metadata's id lookup answering
 * nothing for that id until the test lets it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { BrokerFetchTransport } from '../../../src/broker/replica-fetch-transport.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ReplicaFetchRequest } from '../../../src/replication/replica-fetcher.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';

test('a session keeps a partition of a not yet known topic id and reads it once the id resolves', { timeout: 30_000 }, async (t) => {
  const broker = await startInProcessBroker();
  t.after(() => broker.stop());
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: `127.0.0.1:${broker.port}` }, valueSerializer: Serializers.string });
  await producer.sendBatch(['a', 'b', 'c'].map((value) => ({ topic: 'late', partition: 0, value })));
  await producer.sendBatch([{ topic: 'early', partition: 0, value: 'x' }]);
  await producer.close();

  const metadata = broker.broker.services.metadata;
  const lateId = metadata.topic('late')?.topicId;
  const earlyId = metadata.topic('early')?.topicId;
  assert.ok(lateId !== undefined && earlyId !== undefined);
  let hidden = true;
  const lookup = metadata.topicNameById.bind(metadata);
  metadata.topicNameById = (id: string) => (hidden && id === lateId ? undefined : lookup(id));
  t.after(() => {
    metadata.topicNameById = lookup;
  });

  const transport = new BrokerFetchTransport(() => ({ host: '127.0.0.1', port: broker.port }), 'unknown-id-test');
  t.after(() => transport.close());
  const at = (topic: string, topicId: string, fetchOffset: bigint) => ({ topic, topicId, partition: 0, fetchOffset, currentLeaderEpoch: -1, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 });
  const request = (partitions: ReplicaFetchRequest['partitions']): ReplicaFetchRequest => ({ replicaId: -1, maxWaitMs: 10, minBytes: 0, maxBytes: 1 << 20, partitions });
  const answerFor = async (partitions: ReplicaFetchRequest['partitions'], topic: string) => (await transport.fetch(1, request(partitions))).partitions.find((p) => p.topic === topic);

  // The session opens with `early` only; then `late` is added while its id is unknown here.
  assert.equal((await answerFor([at('early', earlyId, 1n)], 'early'))?.errorCode, ErrorCode.NONE);
  const wanted = [at('early', earlyId, 1n), at('late', lateId, 0n)];
  assert.equal((await answerFor(wanted, 'late'))?.errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
  // Unchanged, `late` is not sent again, and the session still answers it while unknown.
  assert.equal((await answerFor(wanted, 'late'))?.errorCode, ErrorCode.UNKNOWN_TOPIC_ID);

  hidden = false;
  const read = await answerFor(wanted, 'late');
  assert.equal(read?.errorCode, ErrorCode.NONE, 'the partition is read once its id resolves');
  assert.equal(read?.highWatermark, 3n);
  assert.ok(read?.records !== null && read !== undefined && read.records.length > 0, 'with its records');
});

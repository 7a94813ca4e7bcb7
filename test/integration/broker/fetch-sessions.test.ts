/**
 * Incremental fetch sessions (KIP-227) against an in-process broker, through
 * our codec (Fetch v12): a full fetch with epoch 0 opens a session; an
 * incremental fetch with no partitions reads every session partition and
 * answers only those with news (records, a new high watermark); a wrong epoch
 * or an unknown session is refused with Kafka's errors; forgotten partitions
 * leave the session; epoch -1 closes it. Epoch -1 without a session (what
 * kafkajs and librdkafka send) stays a plain full fetch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { Connection } from '../../../src/net/connection.js';
import { Apis, request } from '../../../src/client/apis.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { FetchResponse } from '../../../src/protocol/messages/index.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';

const TOPIC = 'sessions';

test('fetch sessions: open, incremental answers only what changed, epochs checked, forget, close', { timeout: 60_000 }, async (t) => {
  const broker = await startInProcessBroker({ 'num.partitions': '3' });
  t.after(() => broker.stop());
  const bootstrap = `127.0.0.1:${broker.port}`;
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, valueSerializer: Serializers.string });
  t.after(() => producer.close());
  await producer.sendBatch([0, 1, 2].map((partition) => ({ topic: TOPIC, partition, value: `first-${partition}` })));
  const conn = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'session-test' });
  t.after(() => conn.close());

  const fetch = async (sessionId: number, sessionEpoch: number, partitions: { partition: number; fetchOffset: bigint }[], forgotten: number[] = []): Promise<FetchResponse> =>
    (await request(conn, Apis.Fetch, () => ({
      replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId, sessionEpoch,
      topics: partitions.length === 0 ? [] : [{ topic: TOPIC, partitions: partitions.map((p) => ({ ...p, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 })) }],
      forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: TOPIC, partitions: forgotten }],
      rackId: '',
    }))).response;
  const answered = (r: FetchResponse) => r.responses.flatMap((x) => x.partitions.map((p) => p.partitionIndex)).sort();

  // Without a session (epoch -1): a full answer, session id 0.
  const plain = await fetch(0, -1, [0, 1, 2].map((partition) => ({ partition, fetchOffset: 0n })));
  assert.equal(plain.sessionId, 0);
  assert.deepEqual(answered(plain), [0, 1, 2]);

  // Open: every partition answered, a session id back.
  const full = await fetch(0, 0, [0, 1, 2].map((partition) => ({ partition, fetchOffset: 1n })));
  assert.equal(full.errorCode, ErrorCode.NONE);
  assert.ok(full.sessionId > 0, 'a session was opened');
  assert.deepEqual(answered(full), [0, 1, 2]);
  const id = full.sessionId;

  // Nothing new: an incremental fetch (no partitions named) answers none of them.
  const quiet = await fetch(id, 1, []);
  assert.equal(quiet.errorCode, ErrorCode.NONE);
  assert.equal(quiet.sessionId, id);
  assert.deepEqual(answered(quiet), []);

  // A record on partition 1: only partition 1 is answered, with it.
  await producer.send({ topic: TOPIC, partition: 1, value: 'second-1' });
  const news = await fetch(id, 2, []);
  assert.deepEqual(answered(news), [1]);
  const p1 = news.responses[0]?.partitions[0];
  assert.equal(p1?.highWatermark, 2n);
  assert.ok(p1 !== undefined && p1.records !== null && (p1.records as Buffer).length > 0, 'the new record is in the answer');

  // The fetcher moved partition 1 on; its next incremental fetch names only it.
  const moved = await fetch(id, 3, [{ partition: 1, fetchOffset: 2n }]);
  assert.deepEqual(answered(moved), [], 'partition 1 at its end, nothing new elsewhere');

  // Wrong epoch and unknown session: Kafka's errors, no partitions.
  const stale = await fetch(id, 3, []);
  assert.equal(stale.errorCode, ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  assert.deepEqual(stale.responses, []);
  assert.equal((await fetch(id + 1 === 0 ? 2 : id + 1, 1, [])).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);

  // Forget partition 0: a new record there is not answered any more.
  assert.deepEqual(answered(await fetch(id, 4, [], [0])), []);
  await producer.sendBatch([{ topic: TOPIC, partition: 0, value: 'second-0' }, { topic: TOPIC, partition: 2, value: 'second-2' }]);
  assert.deepEqual(answered(await fetch(id, 5, [])), [2], 'partition 0 left the session');

  // Close (epoch -1): a full answer without a session, and the id is gone.
  const closed = await fetch(id, -1, [{ partition: 0, fetchOffset: 0n }]);
  assert.equal(closed.sessionId, 0);
  assert.deepEqual(answered(closed), [0]);
  assert.equal((await fetch(id, 6, [])).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
});

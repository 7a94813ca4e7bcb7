/**
 * Our Consumer fetches through an incremental fetch session (KIP-227) with a
 * real broker: after the first Fetch the broker holds one session with every
 * assigned partition and the session's epoch moves with each Fetch; when the
 * broker loses the session (evicted, or restarted) the Consumer starts a
 * new one by itself and reads every record exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer } from '../../../src/client/consumer.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import type { FetchSessionCache } from '../../../src/broker/fetch-sessions.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';
import { until } from '../../helpers/until.js';

const PARTITIONS = 4;
const WAVE = 200;

/** The cache's sessions (the test reads and empties them; the broker offers no API to drop one). */
const sessionsOf = (cache: FetchSessionCache): Map<number, { nextEpoch: number; partitions: Map<string, unknown> }> =>
  (cache as unknown as { sessions: Map<number, { nextEpoch: number; partitions: Map<string, unknown> }> }).sessions;

test('the Consumer reads through one fetch session per broker and starts a new one when the broker loses it', { timeout: 60_000 }, async (t) => {
  const b = await startInProcessBroker({ 'group.initial.rebalance.delay.ms': '0' });
  t.after(() => b.stop());
  const bootstrap = `127.0.0.1:${b.port}`;
  const [created] = await b.broker.services.metadata.createTopics([{ name: 'sessions', numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }], false);
  assert.equal(created?.errorCode, 0);
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, keySerializer: Serializers.string, valueSerializer: Serializers.string });
  t.after(() => producer.close());
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap, groupId: 'sessions', autoOffsetReset: 'earliest', fetchMaxWaitMs: 100 });
  t.after(() => consumer.close());
  await consumer.subscribe(['sessions']);

  const seen: string[] = [];
  const reading = (async () => {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) seen.push(r.value?.toString('utf8') ?? '');
      if (seen.length >= 2 * WAVE) break;
    }
  })();
  const wave = async (name: string): Promise<void> => {
    await Promise.all(Array.from({ length: WAVE }, (_, i) => producer.send({ topic: 'sessions', key: `${name}-${i}`, value: `${name}-${i}` })));
  };

  await wave('a');
  await until('the first wave is read', async () => (seen.length >= WAVE ? true : null), 20_000);
  const cache = b.broker.services.fetchSessions;
  const sessions = sessionsOf(cache);
  assert.equal(sessions.size, 1, 'one session: one consumer, one broker');
  const [first] = [...sessions.values()];
  assert.equal(first?.partitions.size, PARTITIONS, 'the session holds every assigned partition');
  await until('incremental Fetches move the session epoch', async () => ((first?.nextEpoch ?? 0) > 3 ? true : null), 10_000);

  const [firstId] = [...sessions.keys()];
  sessions.clear(); // the broker forgets the session: the next incremental Fetch gets FETCH_SESSION_ID_NOT_FOUND
  // A Fetch already waiting in the broker when the session went still answers from it, so the
  // second wave is produced once the Consumer has opened its new session (it fetches every 100 ms).
  await until('a new session replaced the lost one', async () => (sessions.size === 1 && !sessions.has(firstId as number) ? true : null), 10_000);
  await wave('b');
  await Promise.race([reading, new Promise((_, reject) => setTimeout(() => reject(new Error(`read ${seen.length} of ${2 * WAVE}`)), 20_000))]);
  assert.equal(sessions.size, 1, 'the new session is the one in use');
  assert.equal(cache.partitionsCached, PARTITIONS);
  assert.equal(seen.length, 2 * WAVE, 'nothing read twice');
  assert.equal(new Set(seen).size, 2 * WAVE, 'every record read once');
});

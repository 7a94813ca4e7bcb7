/**
 * A consumer that subscribes to a topic before it exists (a Connect sink
 * started before its source, a service deployed before the producer) gets
 * the topic's partitions once it is created: the subscription's partition
 * counts are re-read every metadataMaxAgeMs and a change makes the member
 * rejoin (Java's behaviour). Before this, such a consumer waited for ever.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer } from '../../../src/client/consumer.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';

test('a topic created after subscribe() is assigned and read after the next metadata refresh', { timeout: 60_000 }, async (t) => {
  const broker = await startInProcessBroker({ 'group.initial.rebalance.delay.ms': '0' });
  t.after(() => broker.stop());
  const bootstrap = `127.0.0.1:${broker.port}`;
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap, groupId: 'late', autoOffsetReset: 'earliest', metadataMaxAgeMs: 500 });
  t.after(() => consumer.close());
  await consumer.subscribe(['created-later']);
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, valueSerializer: Serializers.string });
  t.after(() => producer.close());
  await producer.send({ topic: 'created-later', value: 'first' });
  let received = 0;
  const timer = setTimeout(() => void consumer.close(), 30_000);
  for await (const batch of consumer.batches()) {
    received += batch.records.length;
    if (received > 0) break;
  }
  clearTimeout(timer);
  assert.equal(received, 1, 'the record of the topic created after subscribe() arrived');
});

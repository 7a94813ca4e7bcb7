// The Consumer lets the event loop turn while it hands out batches it has
// buffered (consumer-turns.ts): an application looping over batches() with
// no await of its own must not starve the rest of the process (timers,
// other sockets) for as long as data is buffered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer } from '../../../src/client/consumer.js';
import { HANDOUT_SLICE_MS_MAX } from '../../../src/client/consumer-turns.js';
import { deserializers } from '../../../src/client/serde.js';
import { FakeCluster } from './fake-cluster.js';

const RECORDS = 400;
const PER_BATCH = 10;

test('a timer fires while batches() hands out one buffered fetch, batch after batch, to a loop that never awaits', async (t) => {
  const fake = await FakeCluster.start({ brokers: 1 });
  const consumer = new Consumer<Buffer | null, string | null>({ bootstrap: fake.bootstrap, valueDeserializer: deserializers.string, autoOffsetReset: 'earliest', maxPollRecords: PER_BATCH });
  t.after(async () => {
    await consumer.close();
    await fake.stop();
  });
  fake.append(0, Array.from({ length: RECORDS }, (_, i) => `v${i}`)); // one batch: one fetch holds every record
  consumer.assign([{ topic: 't', partition: 0 }]);
  let seen = 0;
  let seenWhenTimerFired = -1;
  for await (const batch of consumer.batches()) {
    if (seen === 0) setTimeout(() => (seenWhenTimerFired = seen), 0);
    seen += batch.records.length;
    // Work without awaiting: the 40 batches together take several slices.
    const until = performance.now() + HANDOUT_SLICE_MS_MAX / 4;
    while (performance.now() < until);
    if (seen >= RECORDS) break;
  }
  assert.equal(seen, RECORDS);
  assert.ok(seenWhenTimerFired > 0 && seenWhenTimerFired < RECORDS, `the timer fired after ${seenWhenTimerFired} of ${RECORDS} records (-1: not before the loop ended)`);
});

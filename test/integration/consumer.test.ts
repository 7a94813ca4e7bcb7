/**
 * The Consumer against a real broker process: `for await` and run(),
 * close() ending iteration, manual and auto commit (a restart resumes at the
 * commit; leaving a loop early commits only what was received), seek /
 * pause / resume with assign(), OFFSET_OUT_OF_RANGE reset, and a pattern
 * subscription picking up a topic created later.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Consumer, deserializers } from '../../src/client/index.js';
import { clientFixture } from '../helpers/client-fixture.js';
import { HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS, waitUntil } from '../helpers/groups.js';

const TIMEOUT_MS = 30_000;
type S = string | null;

describe('Consumer', { timeout: 120_000 }, () => {
  const env = clientFixture('consumer');
  let topicSeq = 0;

  /** A fresh topic with `count` values v-0.. spread round-robin over `partitions` (value i on partition i % partitions). */
  async function topicWith(partitions: number, count: number): Promise<string> {
    const topic = `consumer-${++topicSeq}`;
    await env.admin.createTopic({ name: topic, numPartitions: partitions, replicationFactor: 1 });
    if (count > 0) await env.producer.sendBatch(Array.from({ length: count }, (_, i) => ({ topic, partition: i % partitions, key: `k-${i}`, value: `v-${i}` })));
    return topic;
  }

  function consumer(extra: Partial<ConstructorParameters<typeof Consumer<S, S>>[0]> = {}): Consumer<S, S> {
    return new Consumer<S, S>({
      bootstrap: env.broker.bootstrap,
      keyDeserializer: deserializers.string,
      valueDeserializer: deserializers.string,
      autoOffsetReset: 'earliest',
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
      fetchMaxWaitMs: 100,
      ...extra,
    });
  }

  test('for await over a subscription gets every record once, in order per partition; close() ends the loop', async () => {
    const topic = await topicWith(3, 300);
    const c = consumer({ groupId: 'g-for-await' });
    await c.subscribe([topic]);
    assert.equal(c.assignment().length, 3);
    const seen: string[] = [];
    const lastOffset = new Map<number, bigint>();
    const loop = (async () => {
      for await (const r of c) {
        assert.equal(r.topic, topic);
        assert.equal(r.value, `v-${r.key?.slice(2)}`);
        const prev = lastOffset.get(r.partition);
        assert.ok(prev === undefined || r.offset === prev + 1n, `offsets of partition ${r.partition} in order`);
        lastOffset.set(r.partition, r.offset);
        seen.push(r.value ?? '');
      }
    })();
    await waitUntil('300 records', () => seen.length >= 300, TIMEOUT_MS);
    await c.close();
    await loop; // ended by close()
    assert.equal(new Set(seen).size, 300);
    assert.equal(seen.length, 300);
    const committed = await env.admin.fetchGroupOffsets('g-for-await');
    assert.deepEqual(committed.map((o) => [o.partition, o.offset]), [[0, 100n], [1, 100n], [2, 100n]]);
  });

  test('run({ eachBatch }) and run({ eachRecord }) resolve on close()', async () => {
    const topic = await topicWith(2, 200);
    const c = consumer({ groupId: 'g-run-batch', maxPollRecords: 30 });
    await c.subscribe([topic]);
    let count = 0;
    let biggest = 0;
    const running = c.run({
      eachBatch: async (batch) => {
        biggest = Math.max(biggest, batch.records.length);
        count += batch.records.length;
        await Promise.resolve();
      },
    });
    await waitUntil('200 records by batch', () => count >= 200, TIMEOUT_MS);
    await c.close();
    await running;
    assert.equal(count, 200);
    assert.ok(biggest <= 30, `maxPollRecords bounds a batch (largest ${biggest})`);

    const d = consumer();
    d.assign([{ topic, partition: 0 }, { topic, partition: 1 }]);
    const values = new Set<string>();
    const running2 = d.run({ eachRecord: (r) => void values.add(r.value ?? '') });
    await waitUntil('200 records by record', () => values.size >= 200, TIMEOUT_MS);
    await d.close();
    await running2;
  });

  test('manual commit, then a restart resumes at the commit; leaving the loop early rewinds to the record after the last received', async () => {
    const topic = await topicWith(1, 100);
    const c = consumer({ groupId: 'g-manual', autoCommit: false });
    await c.subscribe([topic]);
    let n = 0;
    for await (const r of c) {
      if (++n === 40) {
        assert.equal(r.offset, 39n);
        break;
      }
    }
    assert.equal(c.position({ topic, partition: 0 }), 40n, 'position = after the last record received');
    await c.commit();
    assert.deepEqual((await c.committed()).map((o) => o.offset), [40n]);
    await c.close();

    const again = consumer({ groupId: 'g-manual', autoCommit: false });
    await again.subscribe([topic]);
    const first = await firstRecord(again);
    assert.equal(first.offset, 40n);
    await again.commit([{ topic, partition: 0, offset: 90n }]);
    await again.close();

    const third = consumer({ groupId: 'g-manual' });
    await third.subscribe([topic]);
    assert.equal((await firstRecord(third)).offset, 90n);
    await third.close();
  });

  test('auto-commit commits what was received: a loop left after 25 records commits 25', async () => {
    const topic = await topicWith(1, 100);
    const c = consumer({ groupId: 'g-auto', autoCommitIntervalMs: 60_000 });
    await c.subscribe([topic]);
    let n = 0;
    for await (const _ of c) if (++n === 25) break;
    await c.close();
    const committed = await env.admin.fetchGroupOffsets('g-auto');
    assert.deepEqual(committed.map((o) => o.offset), [25n]);

    // close() inside the loop, in the middle of a batch: the loop ends there and only what was received is committed.
    const e = consumer({ groupId: 'g-auto-close', autoCommitIntervalMs: 60_000 });
    await e.subscribe([topic]);
    let k = 0;
    for await (const _ of e) if (++k === 30) await e.close();
    assert.equal(k, 30, 'close() stops the loop within the batch');
    assert.deepEqual((await env.admin.fetchGroupOffsets('g-auto-close')).map((o) => o.offset), [30n]);

    // With a short interval the commit happens while the consumer keeps running.
    const d = consumer({ groupId: 'g-auto-interval', autoCommitIntervalMs: 100 });
    await d.subscribe([topic]);
    let m = 0;
    const loop = (async () => {
      for await (const _ of d) m++;
    })();
    await waitUntil('auto-commit of all 100', async () => (await env.admin.fetchGroupOffsets('g-auto-interval'))[0]?.offset === 100n, TIMEOUT_MS);
    assert.equal(m, 100);
    await d.close();
    await loop;
  });

  test('assign: seek to an offset, to earliest and latest; pause keeps a partition quiet, resume brings it back', async () => {
    const topic = await topicWith(2, 200);
    const c = consumer();
    const p0 = { topic, partition: 0 };
    const p1 = { topic, partition: 1 };
    c.assign([p0]);
    c.seek(p0, 0); // position known at once
    c.seek(p0, 60);
    assert.equal(c.position(p0), 60n);
    assert.equal((await firstRecord(c)).offset, 60n);
    c.seek(p0, 'earliest');
    assert.equal((await firstRecord(c)).offset, 0n);

    c.assign([p0, p1]);
    c.seek(p0, 0);
    c.seek(p1, 0);
    c.pause([p1]);
    assert.deepEqual(c.paused(), [p1]);
    const byPartition = [0, 0];
    const it = c.batches()[Symbol.asyncIterator]();
    while (byPartition[0] as number < 100) {
      const { value } = await it.next();
      assert.ok(value !== undefined);
      byPartition[value.partition] = (byPartition[value.partition] as number) + value.records.length;
    }
    assert.equal(byPartition[1], 0, 'nothing from the paused partition');
    c.resume([p1]);
    assert.deepEqual(c.paused(), []);
    while ((byPartition[1] as number) < 100) {
      const { value } = await it.next();
      assert.ok(value !== undefined);
      byPartition[value.partition] = (byPartition[value.partition] as number) + value.records.length;
    }
    assert.deepEqual(byPartition, [100, 100]);
    await it.return?.();
    c.seek(p0, 'latest');
    await waitUntil('latest position', () => c.position(p0) === 100n, TIMEOUT_MS);
    await c.close();
  });

  test('an out-of-range position resets with autoOffsetReset', async () => {
    const topic = await topicWith(1, 50);
    const c = consumer();
    c.assign([{ topic, partition: 0 }]);
    c.seek({ topic, partition: 0 }, 10_000);
    assert.equal((await firstRecord(c)).offset, 0n, 'reset to earliest');
    await c.close();

    const strict = consumer({ autoOffsetReset: 'none' });
    strict.assign([{ topic, partition: 0 }]);
    strict.seek({ topic, partition: 0 }, 10_000);
    await assert.rejects(firstRecord(strict), (err: Error & { code?: string }) => err.code === 'ERR_TRIB_OFFSET_OUT_OF_RANGE');
    await strict.close();
  });

  test('read_committed reads plain records; a deserializer that throws fails the pull, and seek() skips the record', async () => {
    const topic = await topicWith(1, 10);
    const committed = consumer({ isolationLevel: 'read_committed' });
    committed.assign([{ topic, partition: 0 }]);
    let n = 0;
    for await (const _ of committed) if (++n === 10) break;
    await committed.close();

    const picky = new Consumer<null, number>({
      bootstrap: env.broker.bootstrap,
      autoOffsetReset: 'earliest',
      fetchMaxWaitMs: 100,
      valueDeserializer: (data) => {
        const text = data?.toString() ?? '';
        if (text === 'v-3') throw new Error('no threes');
        return Number(text.slice(2));
      },
    });
    picky.assign([{ topic, partition: 0 }]);
    await assert.rejects(firstRecord(picky), (err: Error & { code?: string; cause?: unknown }) => err.code === 'ERR_TRIB_DESERIALIZATION' && (err.cause as Error).message === 'no threes');
    assert.equal(picky.position({ topic, partition: 0 }), 0n, 'the position stays before the batch');
    picky.seek({ topic, partition: 0 }, 4);
    assert.equal((await firstRecord(picky)).value, 4);
    await picky.close();
  });

  test('a pattern subscription picks up a matching topic created later', async () => {
    const first = `rx-${++topicSeq}-a`;
    await env.admin.createTopic({ name: first, numPartitions: 1, replicationFactor: 1 });
    await env.producer.sendBatch([{ topic: first, value: 'from-a' }]);
    const c = new Consumer<S, S>({
      bootstrap: env.broker.bootstrap,
      groupId: 'g-pattern',
      valueDeserializer: deserializers.string,
      autoOffsetReset: 'earliest',
      metadataMaxAgeMs: 300,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
      fetchMaxWaitMs: 100,
    });
    await c.subscribe(new RegExp(`^rx-${topicSeq}-`));
    const values: string[] = [];
    const loop = (async () => {
      for await (const r of c) values.push(r.value ?? '');
    })();
    await waitUntil('record of the first topic', () => values.includes('from-a'), TIMEOUT_MS);
    const second = `rx-${topicSeq}-b`;
    await env.admin.createTopic({ name: second, numPartitions: 1, replicationFactor: 1 });
    await env.producer.sendBatch([{ topic: second, value: 'from-b' }]);
    await waitUntil('record of the topic created later', () => values.includes('from-b'), TIMEOUT_MS, () => JSON.stringify(c.assignment()));
    await c.close();
    await loop;
  });
});

/** The first record the consumer hands out (the loop is left at once: the position rewinds to after it). */
async function firstRecord<K, V>(c: Consumer<K, V>): Promise<{ offset: bigint; value: V }> {
  for await (const r of c) return r;
  throw new Error('the consumer ended without a record');
}

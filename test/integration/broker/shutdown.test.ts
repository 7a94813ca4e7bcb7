/**
 * Graceful shutdown in-process: a fetch that is waiting for data is answered
 * (empty) when the broker stops, rather than left hanging or cut off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawClient, startInProcessBroker } from '../../helpers/in-process-broker.js';

test('stop() answers a long-poll fetch that is still waiting', async () => {
  const node = await startInProcessBroker();
  const c = await RawClient.connect(node.port);
  try {
    const created = await node.broker.services.metadata.createTopics(
      [{ name: 'quiet', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      false,
    );
    assert.equal(created[0]?.errorCode, 0);
    c.send(1, 11, 42, {
      replicaId: -1,
      maxWaitMs: 30_000,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      topics: [{ topic: 'quiet', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    });
    await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    await node.stop();
    assert.ok(performance.now() - started < 5000, 'shutdown did not wait out the 30 s fetch');
    await c.waitFor(1, 2000);
    assert.equal(c.arrivals[0]?.correlationId, 42);
    const r = c.decode(1, 11, c.arrivals[0]!.body) as { responses: { partitions: { errorCode: number }[] }[] };
    assert.equal(r.responses[0]!.partitions[0]!.errorCode, 0);
  } finally {
    c.close();
  }
});

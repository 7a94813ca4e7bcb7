/**
 * Metadata changes a broker makes itself reach the active controller on a
 * 3-node cluster (real processes on loopback), whichever node the client
 * talks to (src/broker/controller-channel.ts routeMetadataChanges):
 *  - a topic auto-created by Metadata at a node that is not the active
 *    controller exists on every node;
 *  - InitProducerId at every node gets an id: the non-controller nodes get
 *    their producer id blocks with AllocateProducerIds (67), and no two
 *    nodes' blocks overlap; AllocateProducerIds at a controller listener
 *    that is not the active one answers NOT_CONTROLLER;
 *  - an idempotent kafkajs producer bootstrapped at a non-controller node
 *    produces, and a kafkajs consumer group bootstrapped there joins and
 *    consumes it back, with __consumer_offsets NOT created beforehand (the
 *    first FindCoordinator creates it through the active controller).
 * Every wait is bounded in count and time; no timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster } from '../helpers/cluster-process.js';
import { Connection } from '../../src/net/connection.js';
import { MetadataRequest, MetadataResponse } from '../../src/protocol/messages/03-metadata.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../src/protocol/messages/22-init-producer-id.js';
import { AllocateProducerIdsRequest, AllocateProducerIdsResponse } from '../../src/protocol/messages/67-allocate-producer-ids.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const WAIT_MS_MAX = 20_000;
const MESSAGES = 20;
/** Every node agrees on the offsets topic's size (groups hash onto it); the one consumer joins at once. */
const GROUP_CONFIG: Readonly<Record<string, string>> = { 'offsets.topic.num.partitions': '3', 'group.initial.rebalance.delay.ms': '0' };
const BLOCK = 1000n;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` (bounded by WAIT_MS_MAX) until it returns null (= satisfied); fails with its last complaint. */
async function until(what: string, probe: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + WAIT_MS_MAX;
  let last = 'never asked';
  while (Date.now() < deadline) {
    try {
      const complaint = await probe();
      if (complaint === null) return;
      last = complaint;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  assert.fail(`${what} within ${WAIT_MS_MAX} ms; last: ${last}`);
}

async function withConnection<T>(port: number, use: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await Connection.connect({ host: '127.0.0.1', port, connectTimeoutMs: 1_000, requestTimeoutMs: 12_000 });
  try {
    return await use(conn);
  } finally {
    conn.destroy();
  }
}

test('metadata changes made by a non-controller broker reach the active controller', { timeout: 85_000 }, async (t) => {
  const t0 = Date.now();
  const phase = (name: string): void => t.diagnostic(`${name} at ${Date.now() - t0} ms`);
  const cluster = await startCluster({ name: 'forwarding', overrides: { ...GROUP_CONFIG } });
  t.after(() => cluster.cleanup());
  try {
    await cluster.waitForBrokers([1, 2, 3], [1, 2, 3]);
    const leader = await cluster.waitForActiveController([1, 2, 3]);
    const others = [1, 2, 3].filter((id) => id !== leader);
    const [follower, otherFollower] = others as [number, number];
    phase(`cluster up, node ${leader} leads`);

    // Metadata auto-creation at a follower: the topic exists on every node.
    const auto = await withConnection(cluster.node(follower).port, (c) =>
      c.send({ request: MetadataRequest, response: MetadataResponse }, 4, { topics: [{ name: 'auto-made' }], allowAutoTopicCreation: true }),
    );
    const autoAnswer = auto.topics.find((x) => x.name === 'auto-made');
    assert.ok(
      autoAnswer !== undefined && (autoAnswer.errorCode === ErrorCode.NONE || autoAnswer.errorCode === ErrorCode.LEADER_NOT_AVAILABLE),
      `Metadata at node ${follower} auto-creates the topic (answer ${JSON.stringify(autoAnswer?.errorCode)})`,
    );
    await until('the auto-created topic on every node', async () => {
      for (const id of [1, 2, 3]) {
        const md = await cluster.metadata(id, 2_000);
        if (!md.topics.some((x) => x.name === 'auto-made' && x.errorCode === 0)) return `node ${id} does not list it`;
      }
      return null;
    });
    phase('auto-created topic everywhere');

    // InitProducerId at each node: every node gets ids, from blocks that do not overlap.
    const ids = new Map<number, bigint>();
    for (const id of [leader, follower, otherFollower]) {
      const r = await withConnection(cluster.node(id).port, (c) =>
        c.send({ request: InitProducerIdRequest, response: InitProducerIdResponse }, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }),
      );
      assert.equal(r.errorCode, ErrorCode.NONE, `InitProducerId at node ${id}`);
      assert.equal(r.producerEpoch, 0);
      ids.set(id, r.producerId);
    }
    const blocks = [...ids.values()].map((pid) => pid / BLOCK);
    assert.equal(new Set(blocks).size, 3, `each node hands out ids from its own block: ${JSON.stringify([...ids].map(([n, p]) => `${n}:${p}`))}`);

    // AllocateProducerIds itself: the active controller hands out disjoint blocks; a follower's controller listener refuses.
    const allocate = (port: number, brokerId: number) =>
      withConnection(port, (c) => c.send({ request: AllocateProducerIdsRequest, response: AllocateProducerIdsResponse }, 0, { brokerId, brokerEpoch: -1n }));
    const a = await allocate(cluster.controllerPort(leader), follower);
    const b = await allocate(cluster.controllerPort(leader), otherFollower);
    for (const r of [a, b]) {
      assert.equal(r.errorCode, ErrorCode.NONE);
      assert.ok(r.producerIdLen > 0);
    }
    const disjoint = a.producerIdStart + BigInt(a.producerIdLen) <= b.producerIdStart || b.producerIdStart + BigInt(b.producerIdLen) <= a.producerIdStart;
    assert.ok(disjoint, `blocks [${a.producerIdStart}, +${a.producerIdLen}) and [${b.producerIdStart}, +${b.producerIdLen}) do not overlap`);
    for (const pid of ids.values()) {
      for (const r of [a, b]) assert.ok(pid < r.producerIdStart || pid >= r.producerIdStart + BigInt(r.producerIdLen), `id ${pid} is not in a later block`);
    }
    const refused = await allocate(cluster.controllerPort(follower), follower);
    assert.equal(refused.errorCode, ErrorCode.NOT_CONTROLLER, 'a controller that is not active refuses');
    phase('producer ids');

    // kafkajs at a follower: an idempotent producer, then a consumer group (no __consumer_offsets yet).
    const kafka = new Kafka({ clientId: 'forwarding-test', brokers: [cluster.node(follower).bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1_000 } });
    const admin = kafka.admin();
    await admin.connect();
    t.after(() => admin.disconnect());
    assert.equal((await admin.listTopics()).includes('__consumer_offsets'), false, '__consumer_offsets is not there before the group');
    assert.equal(await admin.createTopics({ topics: [{ topic: 'idem', numPartitions: 3 }], waitForLeaders: true }), true);
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    t.after(() => producer.disconnect());
    const values = Array.from({ length: MESSAGES }, (_, i) => `v-${i}`);
    await producer.send({ topic: 'idem', acks: -1, messages: values.map((value, i) => ({ key: `k${i}`, value })) });
    phase('idempotent produce');

    const consumer = kafka.consumer({ groupId: 'forwarding-group', retry: { retries: 10 } });
    await consumer.connect();
    t.after(() => consumer.disconnect());
    await consumer.subscribe({ topic: 'idem', fromBeginning: true });
    const seen: string[] = [];
    let allSeen: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allSeen = resolve));
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '');
        if (seen.length >= MESSAGES) allSeen();
      },
    });
    const timer = setTimeout(() => allSeen(), 40_000);
    await done;
    clearTimeout(timer);
    assert.deepEqual([...seen].sort(), [...values].sort(), 'the group joined and consumed every message');
    await consumer.stop();
    phase('group consumed');
    await until('__consumer_offsets on every node', async () => {
      for (const id of [1, 2, 3]) {
        const md = await cluster.metadata(id, 2_000);
        if (!md.topics.some((x) => x.name === '__consumer_offsets' && x.errorCode === 0)) return `node ${id} does not list it`;
      }
      return null;
    });
  } catch (err) {
    if (err instanceof Error) err.message += `\n${cluster.tails(20)}`;
    throw err;
  }
});

/**
 * A broker-only node (process.roles=broker, a Raft observer) next to three
 * combined voters, all real processes on loopback:
 *  - it registers with the active controller and is unfenced (every node's
 *    Metadata lists it as a live broker);
 *  - its Metadata shows topics created through any node (it replicates the
 *    metadata log without voting); admin requests sent to it are forwarded;
 *  - it hosts the partitions of a topic assigned to it: kafkajs produces to
 *    and consumes from it;
 *  - the leader lists it among DescribeQuorum's observers, not its voters;
 *  - after kill -9 of the active controller it follows the new leader: it
 *    stays unfenced (heartbeats reach the new controller), sees topics
 *    created afterwards, and the new leader lists it as an observer.
 * Short quorum timeouts (test/helpers/cluster-process.ts); every wait is
 * bounded in count and time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { ClusterProcess } from '../helpers/cluster-process.js';
import { metadataV1Request, parseMetadataV1Response, rawRequest, type MetadataV1 } from '../helpers/raw-kafka.js';
import { Connection } from '../../src/net/connection.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../src/protocol/messages/55-describe-quorum.js';

const OBSERVER_ID = 4;
const WAIT_MS_MAX = 20_000;
const MESSAGES = 30;
const OFFSETS_PARTITIONS = 3;
/** Every node agrees on the offsets topic's size (groups hash onto it); no initial rebalance delay: the one consumer joins at once. */
const GROUP_CONFIG: Readonly<Record<string, string>> = { 'offsets.topic.num.partitions': String(OFFSETS_PARTITIONS), 'group.initial.rebalance.delay.ms': '0' };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function metadataOf(port: number): Promise<MetadataV1> {
  return parseMetadataV1Response(await rawRequest(port, metadataV1Request(1, null), 2_000));
}

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

function brokersLine(md: MetadataV1): string {
  return md.brokers.map((b) => b.nodeId).sort((a, b) => a - b).join(',');
}

function hasTopics(md: MetadataV1, names: readonly string[]): string | null {
  const have = new Set(md.topics.filter((t) => t.errorCode === 0).map((t) => t.name));
  const missing = names.filter((n) => !have.has(n));
  return missing.length === 0 ? null : `missing ${missing.join(', ')}`;
}

/** DescribeQuorum v1 at a controller listener: voter ids and observer ids as the leader reports them. */
async function describeQuorum(port: number): Promise<{ leaderId: number; voters: number[]; observers: { id: number; logEndOffset: bigint }[] }> {
  const conn = await Connection.connect({ host: '127.0.0.1', port, connectTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
  try {
    const res = await conn.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, 1, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] });
    const p = res.topics[0]?.partitions[0];
    if (p === undefined || p.errorCode !== 0) throw new Error(`DescribeQuorum error ${p?.errorCode ?? 'no partition'}`);
    return { leaderId: p.leaderId, voters: p.currentVoters.map((v) => v.replicaId), observers: p.observers.map((o) => ({ id: o.replicaId, logEndOffset: o.logEndOffset })) };
  } finally {
    conn.destroy();
  }
}

test('a broker-only node observes the metadata quorum, serves clients, and follows a new leader', { timeout: 120_000 }, async (t) => {
  const t0 = Date.now();
  const phase = (name: string): void => t.diagnostic(`${name} at ${Date.now() - t0} ms`);
  // Nodes 1-3 vote; node 4 is broker-only and joins once the voters are up.
  const cluster = await ClusterProcess.create({ name: 'observer', nodes: 3, brokers: 1, overrides: { ...GROUP_CONFIG } });
  t.after(() => cluster.cleanup());
  await cluster.start([1, 2, 3]);
  phase('voters up');
  const observer = cluster.node(OBSERVER_ID);
  const port = observer.port;
  await observer.start();
  const tails = (): string => cluster.tails(15);

  try {
    // Registered and unfenced: every node (itself included) lists broker 4 as live.
    const all = [1, 2, 3, OBSERVER_ID].join(',');
    await until('broker 4 live on every node', async () => {
      for (const id of [1, 2, 3]) {
        const line = brokersLine(await cluster.metadata(id, 2_000));
        if (line !== all) return `node ${id} lists ${line}`;
      }
      const own = brokersLine(await metadataOf(port));
      return own === all ? null : `node 4 lists ${own}`;
    });

    phase('broker 4 unfenced');
    const leader = await cluster.waitForActiveController([1, 2, 3]);
    const others = [1, 2, 3].filter((id) => id !== leader);
    const q = await describeQuorum(cluster.controllerPort(leader));
    assert.deepEqual(q.voters.sort(), [1, 2, 3], 'the broker-only node is not a voter');
    assert.deepEqual(q.observers.map((o) => o.id), [OBSERVER_ID], 'the leader lists it as an observer');

    // A topic created through a voter shows up on the observer; one created through the
    // observer (forwarded to the active controller) is assigned to it.
    const viaVoter = new Kafka({ clientId: 'observer-test-admin', brokers: [cluster.node(others[0] as number).bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1_000 } });
    const adminVoter = viaVoter.admin();
    await adminVoter.connect();
    t.after(() => adminVoter.disconnect());
    assert.equal(await adminVoter.createTopics({ topics: [{ topic: 'made-on-voter', replicaAssignment: [{ partition: 0, replicas: [others[0] as number] }] }], waitForLeaders: false }), true);

    const viaObserver = new Kafka({ clientId: 'observer-test', brokers: [observer.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1_000 } });
    const admin = viaObserver.admin();
    await admin.connect();
    t.after(() => admin.disconnect());
    assert.equal(
      await admin.createTopics({ topics: [{ topic: 'on-observer', replicaAssignment: [{ partition: 0, replicas: [OBSERVER_ID] }, { partition: 1, replicas: [OBSERVER_ID] }] }], waitForLeaders: false }),
      true,
      'CreateTopics sent to the broker-only node is forwarded to the active controller',
    );
    await until('both topics in the observer\'s Metadata', async () => hasTopics(await metadataOf(port), ['made-on-voter', 'on-observer']));
    const md = await metadataOf(port);
    const onObserver = md.topics.find((x) => x.name === 'on-observer');
    assert.deepEqual(onObserver?.partitions.map((p) => p.leader), [OBSERVER_ID, OBSERVER_ID], 'the broker-only node leads the partitions assigned to it');

    phase('topics seen');
    // No __consumer_offsets yet: the group's first FindCoordinator at the broker-only node creates it
    // through the active controller (src/broker/controller-channel.ts routeMetadataChanges).
    // kafkajs produces to and consumes from the partitions it hosts.
    const producer = viaObserver.producer();
    await producer.connect();
    t.after(() => producer.disconnect());
    const values = Array.from({ length: MESSAGES }, (_, i) => `m-${i}`);
    await producer.send({ topic: 'on-observer', acks: -1, messages: values.map((value, i) => ({ key: `k${i}`, value, partition: i % 2 })) });
    phase('produced');
    const consumer = viaObserver.consumer({ groupId: 'observer-group', retry: { retries: 10 } });
    await consumer.connect();
    t.after(() => consumer.disconnect());
    await consumer.subscribe({ topic: 'on-observer', fromBeginning: true });
    consumer.on(consumer.events.GROUP_JOIN, () => phase('group joined'));
    const seen: string[] = [];
    let allSeen: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allSeen = resolve));
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '');
        if (seen.length >= MESSAGES) allSeen();
      },
    });
    const timer = setTimeout(() => allSeen(), WAIT_MS_MAX);
    await done;
    clearTimeout(timer);
    assert.deepEqual([...seen].sort(), [...values].sort(), 'every produced message consumed back');
    await consumer.stop();
    phase('consumed');

    // kill -9 the active controller: the observer finds the new leader.
    await cluster.node(leader).kill9();
    const newLeader = await cluster.waitForActiveController(others, leader);
    assert.ok(others.includes(newLeader));
    phase('new leader');
    assert.equal(await admin.createTopics({ topics: [{ topic: 'after-failover', replicaAssignment: [{ partition: 0, replicas: [OBSERVER_ID] }] }], waitForLeaders: false }), true);
    await until('the topic created after the failover on the observer', async () => hasTopics(await metadataOf(port), ['after-failover']));
    const live = [...others, OBSERVER_ID].sort((a, b) => a - b).join(',');
    await until('broker 4 still live under the new controller', async () => {
      for (const id of others) {
        const line = brokersLine(await cluster.metadata(id, 2_000));
        if (line !== live) return `node ${id} lists ${line}`;
      }
      return null;
    });
    await until('the new leader lists the observer', async () => {
      const d = await describeQuorum(cluster.controllerPort(newLeader));
      return d.observers.some((o) => o.id === OBSERVER_ID) ? null : `observers ${JSON.stringify(d.observers.map((o) => o.id))}`;
    });
    phase('observer follows the new leader');
    // Still serving: a produce to its partition after the failover.
    await producer.send({ topic: 'after-failover', acks: -1, messages: [{ value: 'after' }] });
  } catch (err) {
    if (err instanceof Error) err.message += `\n${tails()}`;
    throw err;
  }
});

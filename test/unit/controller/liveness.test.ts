/**
 * Broker liveness in the QuorumController: registration (fenced until caught
 * up), heartbeats, fencing on session timeout (fake clock), leadership moves,
 * controlled shutdown, rack-aware placement over usable brokers, and the
 * BrokerRegistrationChangeRecord in records and images.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { BROKER_SESSION_TIMEOUT_MS_DEFAULT, QuorumController } from '../../../src/controller/controller.js';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { MetadataPublisher } from '../../../src/controller/metadata/publisher.js';
import { MetadataLogError } from '../../../src/controller/metadata-log.js';
import { decodeMetadataRecord, encodeMetadataRecord, NO_LEADER, type MetadataRecord } from '../../../src/controller/metadata/records.js';
import type { BrokerHeartbeatRequest, BrokerRegistrationRequest } from '../../../src/controller/types.js';
import { MemoryMetadataLog, newTopic } from './fixtures.js';

async function controllerWith(opts: { sessionTimeoutMs?: number } = {}) {
  const log = new MemoryMetadataLog();
  const image = new MetadataImage('c');
  const publisher = new MetadataPublisher(image, (e) => {
    throw e;
  });
  await log.start(publisher.handleCommit);
  publisher.finishLoad();
  const clock = new ManualClock();
  const controller = new QuorumController({
    nodeId: 100,
    log,
    image,
    random: new SeededRandom(3),
    numPartitionsDefault: 1,
    replicationFactorDefault: 1,
    validateTopicConfigs: () => [],
    clock,
    ...(opts.sessionTimeoutMs === undefined ? {} : { brokerSessionTimeoutMs: opts.sessionTimeoutMs }),
  });
  return { log, image, clock, controller };
}

type Harness = Awaited<ReturnType<typeof controllerWith>>;

const incarnation = (id: number, n = 0): string => Buffer.alloc(16, id * 16 + n + 1).toString('base64url');

function registration(id: number, rack: string | null = null, n = 0): BrokerRegistrationRequest {
  return { brokerId: id, incarnationId: incarnation(id, n), endpoints: [{ name: 'PLAINTEXT', host: `h${id}`, port: 9000 + id }], rack };
}

function beat(h: Harness, id: number, extra: Partial<BrokerHeartbeatRequest> = {}) {
  const b = h.image.broker(id);
  assert.ok(b !== undefined, `broker ${id} registered`);
  return h.controller.brokerHeartbeat({ brokerId: id, brokerEpoch: b.brokerEpoch, currentMetadataOffset: h.image.lastAppliedOffset, wantFence: false, wantShutDown: false, ...extra });
}

/** Registers and unfences brokers (each heartbeats once, caught up). */
async function liveBrokers(h: Harness, ids: readonly number[], racks: readonly (string | null)[] = []): Promise<void> {
  for (const [i, id] of ids.entries()) {
    const r = await h.controller.registerBroker(registration(id, racks[i] ?? null));
    assert.equal(r.errorCode, ErrorCode.NONE);
  }
  for (const id of ids) {
    const hb = await beat(h, id);
    assert.deepEqual([hb.errorCode, hb.isFenced], [ErrorCode.NONE, false]);
  }
}

async function createTopic(h: Harness, name: string, partitions: number, rf: number): Promise<void> {
  const [r] = await h.controller.createTopics([newTopic(name, { numPartitions: partitions, replicationFactor: rf })], { validateOnly: false });
  assert.equal(r?.errorCode, ErrorCode.NONE, r?.errorMessage ?? '');
}

function partitionsOf(h: Harness, topic: string) {
  const t = h.image.topicByName(topic);
  assert.ok(t !== undefined);
  return [...t.partitions.values()];
}

describe('controller: broker registration', () => {
  it('a broker starts fenced with epoch = its record offset; a retry of the same incarnation gets the same epoch', async () => {
    const h = await controllerWith();
    await h.log.append([{ type: 'NoOpRecord', data: {} }]);
    const r = await h.controller.registerBroker(registration(7));
    assert.deepEqual([r.errorCode, r.brokerEpoch], [ErrorCode.NONE, 1n]);
    assert.equal(h.image.broker(7)?.fenced, true);
    const appends = h.log.appends.length;
    const again = await h.controller.registerBroker(registration(7));
    assert.deepEqual([again.errorCode, again.brokerEpoch], [ErrorCode.NONE, 1n]);
    assert.equal(h.log.appends.length, appends, 'a retry writes nothing');
    const bad = await h.controller.registerBroker({ ...registration(7), brokerId: -3 });
    assert.equal(bad.errorCode, ErrorCode.INVALID_REQUEST);
  });

  it('heartbeats: unknown broker, stale epoch, not caught up (stays fenced), caught up (unfenced)', async () => {
    const h = await controllerWith();
    const unknown = await h.controller.brokerHeartbeat({ brokerId: 9, brokerEpoch: 0n, currentMetadataOffset: 0n, wantFence: false, wantShutDown: false });
    assert.equal(unknown.errorCode, ErrorCode.BROKER_ID_NOT_REGISTERED);
    await h.log.append([{ type: 'NoOpRecord', data: {} }, { type: 'NoOpRecord', data: {} }]);
    const { brokerEpoch } = await h.controller.registerBroker(registration(1));
    assert.equal(brokerEpoch, 2n);
    const stale = await h.controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: 1n, currentMetadataOffset: 5n, wantFence: false, wantShutDown: false });
    assert.equal(stale.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    const behind = await beat(h, 1, { currentMetadataOffset: 1n });
    assert.deepEqual([behind.errorCode, behind.isCaughtUp, behind.isFenced, behind.shouldShutDown], [ErrorCode.NONE, false, true, false]);
    const wantsFence = await beat(h, 1, { wantFence: true });
    assert.deepEqual([wantsFence.isCaughtUp, wantsFence.isFenced], [true, true], 'wantFence keeps it fenced');
    const caughtUp = await beat(h, 1, { currentMetadataOffset: 2n });
    assert.deepEqual([caughtUp.errorCode, caughtUp.isCaughtUp, caughtUp.isFenced], [ErrorCode.NONE, true, false]);
    assert.equal(h.image.broker(1)?.fenced, false);
    assert.equal(h.log.appends.at(-1)?.[0]?.type, 'UnfenceBrokerRecord');
  });

  it('new topics go only to unfenced brokers; a fenced-only cluster cannot place a topic', async () => {
    const h = await controllerWith();
    await h.controller.registerBroker(registration(1));
    const [r] = await h.controller.createTopics([newTopic('t')], { validateOnly: false });
    assert.equal(r?.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
    await h.controller.registerBroker(registration(2));
    await beat(h, 2);
    await createTopic(h, 'u', 6, 1);
    assert.ok(partitionsOf(h, 'u').every((p) => p.replicas[0] === 2 && p.leader === 2));
  });
});

describe('controller: session timeout and fencing', () => {
  it('fences a broker silent for broker.session.timeout.ms; its single-replica partitions lose their leader (epoch + 1)', async () => {
    const h = await controllerWith();
    await liveBrokers(h, [1, 2]);
    await createTopic(h, 'solo', 4, 1);
    const before = new Map(partitionsOf(h, 'solo').map((p) => [p.partitionId, p]));
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT - 1000);
    await beat(h, 2);
    assert.equal(await h.controller.tick(), 0, 'nobody is late yet');
    h.clock.advance(1000);
    assert.equal(await h.controller.tick(), 1, 'broker 1 is fenced, broker 2 heartbeat 1 s ago');
    assert.equal(h.image.broker(1)?.fenced, true);
    assert.equal(h.image.broker(2)?.fenced, false);
    const batch = h.log.appends.at(-1) ?? [];
    assert.equal(batch.at(-1)?.type, 'FenceBrokerRecord', 'partition changes first, then the fence');
    for (const p of partitionsOf(h, 'solo')) {
      const old = before.get(p.partitionId);
      assert.ok(old !== undefined);
      if (old.leader === 1) {
        assert.equal(p.leader, NO_LEADER);
        assert.equal(p.leaderEpoch, old.leaderEpoch + 1);
        assert.deepEqual(p.isr, [1], 'the last ISR member stays in the ISR');
      } else {
        assert.deepEqual(p, old, 'partitions of other brokers are untouched');
      }
    }
    assert.ok(partitionsOf(h, 'solo').some((p) => p.leader === NO_LEADER), 'the seed placed something on broker 1');
    assert.equal(await h.controller.tick(), 0, 'a fenced broker is not fenced again');
  });

  it('a fenced broker that heartbeats again is unfenced and gets its partitions back (leader epoch + 1 again)', async () => {
    const h = await controllerWith();
    await liveBrokers(h, [1]);
    await createTopic(h, 'solo', 2, 1);
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT);
    assert.equal(await h.controller.tick(), 1);
    assert.ok(partitionsOf(h, 'solo').every((p) => p.leader === NO_LEADER && p.leaderEpoch === 1));
    const hb = await beat(h, 1);
    assert.equal(hb.isFenced, false);
    assert.ok(partitionsOf(h, 'solo').every((p) => p.leader === 1 && p.leaderEpoch === 2 && p.isr.length === 1));
  });

  it('fencing moves leadership to the next in-sync replica and shrinks the ISR', async () => {
    const h = await controllerWith();
    await liveBrokers(h, [1, 2, 3]);
    await createTopic(h, 'r3', 6, 3);
    const ledBy1 = partitionsOf(h, 'r3').filter((p) => p.leader === 1);
    assert.ok(ledBy1.length > 0);
    h.clock.advance(5000);
    await beat(h, 2);
    await beat(h, 3);
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT - 5000);
    assert.equal(await h.controller.tick(), 1);
    for (const p of partitionsOf(h, 'r3')) {
      assert.ok(!p.isr.includes(1), 'broker 1 left every ISR');
      assert.notEqual(p.leader, 1);
      assert.ok(p.leader !== NO_LEADER && p.isr.includes(p.leader));
      const old = ledBy1.find((o) => o.partitionId === p.partitionId);
      if (old !== undefined) {
        assert.equal(p.leader, old.replicas.find((r) => r !== 1), 'the first other replica leads');
        assert.equal(p.leaderEpoch, old.leaderEpoch + 1);
      }
    }
    // Two brokers expire in one tick: the records compose (the second move does not pick the first).
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT);
    assert.equal(await h.controller.tick(), 2);
    for (const p of partitionsOf(h, 'r3')) {
      assert.equal(p.leader, NO_LEADER);
      assert.equal(p.isr.length, 1, 'the last member stays');
    }
  });

  it('a new incarnation replaces the registration: fenced, leaderships moved at once, back when caught up', async () => {
    const h = await controllerWith();
    await liveBrokers(h, [1]);
    await createTopic(h, 'solo', 1, 1);
    const epoch1 = h.image.broker(1)?.brokerEpoch;
    const r = await h.controller.registerBroker(registration(1, null, 1));
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.ok(epoch1 !== undefined && r.brokerEpoch > epoch1);
    assert.equal(h.image.broker(1)?.fenced, true);
    assert.equal(partitionsOf(h, 'solo')[0]?.leader, NO_LEADER);
    const old = await h.controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: epoch1, currentMetadataOffset: 100n, wantFence: false, wantShutDown: false });
    assert.equal(old.errorCode, ErrorCode.STALE_BROKER_EPOCH, 'the old incarnation is refused');
    assert.equal((await beat(h, 1)).isFenced, false);
    assert.equal(partitionsOf(h, 'solo')[0]?.leader, 1);
  });

  it('a new active controller gives every broker a fresh session', async () => {
    const h = await controllerWith({ sessionTimeoutMs: 3000 });
    await liveBrokers(h, [1]);
    h.clock.advance(2500);
    h.controller.becomeActive();
    h.clock.advance(2500);
    assert.equal(await h.controller.tick(), 0, '5 s since the last heartbeat, but 2.5 s since this controller became active');
    h.clock.advance(500);
    assert.equal(await h.controller.tick(), 1);
  });

  it('a deposed controller answers NOT_CONTROLLER and fences nothing', async () => {
    const h = await controllerWith();
    await h.controller.registerBroker(registration(1));
    h.log.failWith = new MetadataLogError('ERR_TRIB_METADATA_NOT_LEADER', 'not leader');
    assert.equal((await beat(h, 1)).errorCode, ErrorCode.NOT_CONTROLLER);
    assert.equal((await h.controller.registerBroker(registration(2))).errorCode, ErrorCode.NOT_CONTROLLER);
    h.log.failWith = null;
    await beat(h, 1);
    h.log.failWith = new MetadataLogError('ERR_TRIB_METADATA_NOT_LEADER', 'not leader');
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT);
    assert.equal(await h.controller.tick(), 0);
    assert.equal(h.image.broker(1)?.fenced, false);
  });

  it('the combined node registering itself (no broker id) is unfenced and its session never expires', async () => {
    const h = await controllerWith();
    await h.controller.registerBroker({ endpoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 }], rack: null });
    assert.equal(h.image.broker(100)?.fenced, false);
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT * 3);
    assert.equal(await h.controller.tick(), 0);
  });
});

describe('controller: controlled shutdown', () => {
  it('moves leadership away, answers shouldShutDown once the broker applied the move, then fences it', async () => {
    const h = await controllerWith();
    await liveBrokers(h, [1, 2]);
    await createTopic(h, 'r2', 4, 2);
    await createTopic(h, 'solo', 4, 1);
    const offsetBefore = h.image.lastAppliedOffset;
    const first = await beat(h, 1, { wantShutDown: true, currentMetadataOffset: offsetBefore });
    assert.deepEqual([first.isFenced, first.shouldShutDown], [false, false], 'the broker has not seen the moves yet');
    assert.equal(h.image.broker(1)?.inControlledShutdown, true);
    for (const p of partitionsOf(h, 'r2')) {
      assert.equal(p.leader, 2);
      assert.deepEqual(p.isr, [2]);
    }
    for (const p of partitionsOf(h, 'solo')) if (p.replicas[0] === 1) assert.equal(p.leader, NO_LEADER);
    // No new leaderships or replicas for a broker in controlled shutdown.
    await createTopic(h, 'later', 4, 1);
    assert.ok(partitionsOf(h, 'later').every((p) => p.replicas[0] === 2));
    const second = await beat(h, 1, { wantShutDown: true });
    assert.deepEqual([second.isFenced, second.shouldShutDown], [true, true]);
    assert.equal(h.image.broker(1)?.fenced, true);
    // It comes back: a new incarnation, caught up, gets its single-replica partitions back.
    await h.controller.registerBroker(registration(1, null, 1));
    assert.equal(h.image.broker(1)?.inControlledShutdown, false);
    await beat(h, 1);
    for (const p of partitionsOf(h, 'solo')) if (p.replicas[0] === 1) assert.equal(p.leader, 1);
    for (const p of partitionsOf(h, 'r2')) assert.equal(p.leader, 2, 'ISR expansion is the partition leader\'s job, not the controller\'s');
  });

  it('a fenced broker asking to shut down may do so at once', async () => {
    const h = await controllerWith();
    await h.controller.registerBroker(registration(1));
    const hb = await beat(h, 1, { wantShutDown: true });
    assert.deepEqual([hb.isFenced, hb.shouldShutDown], [true, true]);
  });
});

describe('controller: rack-aware placement', () => {
  it('spreads each partition over distinct racks when every broker has one', async () => {
    const h = await controllerWith();
    const racks = ['a', 'a', 'b', 'b', 'c', 'c'];
    await liveBrokers(h, [1, 2, 3, 4, 5, 6], racks);
    await createTopic(h, 'spread', 12, 3);
    const rackOf = (id: number): string | null => h.image.broker(id)?.rack ?? null;
    const leaders = new Map<number, number>();
    for (const p of partitionsOf(h, 'spread')) {
      assert.equal(new Set(p.replicas.map(rackOf)).size, 3, `partition ${p.partitionId} replicas ${p.replicas.join(',')} span 3 racks`);
      leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
    }
    assert.equal(leaders.size, 6, 'every broker leads some partition');
    // A fenced broker gets nothing new.
    h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT);
    for (const id of [1, 2, 3, 4, 5]) await beat(h, id);
    assert.equal(await h.controller.tick(), 1);
    await createTopic(h, 'after', 10, 2);
    for (const p of partitionsOf(h, 'after')) {
      assert.ok(!p.replicas.includes(6));
      assert.equal(new Set(p.replicas.map(rackOf)).size, 2);
    }
  });
});

describe('metadata: BrokerRegistrationChangeRecord', () => {
  it('round-trips through the frame codec and through an image snapshot (toRecords)', () => {
    const records: MetadataRecord[] = [
      { type: 'BrokerRegistrationChangeRecord', data: { brokerId: 4, brokerEpoch: 77n, fenced: -1, inControlledShutdown: 1 } },
      { type: 'BrokerRegistrationChangeRecord', data: { brokerId: 4, brokerEpoch: 77n, fenced: 0, inControlledShutdown: 0 } },
    ];
    for (const r of records) assert.deepEqual(decodeMetadataRecord(encodeMetadataRecord(r)).record, r);
    const image = new MetadataImage('c');
    image.apply({
      baseOffset: 0n,
      lastOffset: 1n,
      epoch: 1,
      timestampMs: 0n,
      records: [
        {
          type: 'RegisterBrokerRecord',
          data: { brokerId: 4, incarnationId: incarnation(4), brokerEpoch: 77n, endPoints: [], features: [], rack: 'r', fenced: true, inControlledShutdown: false },
        },
        { type: 'BrokerRegistrationChangeRecord', data: { brokerId: 4, brokerEpoch: 77n, fenced: -1, inControlledShutdown: 1 } },
      ],
    });
    assert.deepEqual([image.broker(4)?.fenced, image.broker(4)?.inControlledShutdown], [false, true]);
    assert.deepEqual(image.usableBrokers(), []);
    const copy = new MetadataImage('c');
    copy.apply({ baseOffset: 0n, lastOffset: 0n, epoch: 1, timestampMs: 0n, records: image.toRecords() });
    assert.deepEqual(copy.broker(4), image.broker(4));
    assert.throws(() =>
      copy.apply({ baseOffset: 1n, lastOffset: 1n, epoch: 1, timestampMs: 0n, records: [{ type: 'BrokerRegistrationChangeRecord', data: { brokerId: 4, brokerEpoch: 1n, fenced: 1, inControlledShutdown: 0 } }] }),
    /epoch/);
  });
});

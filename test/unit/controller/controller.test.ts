import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ZERO_UUID } from '../../../src/protocol/codec.js';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { MetadataPublisher } from '../../../src/controller/metadata/publisher.js';
import { QuorumController } from '../../../src/controller/controller.js';
import { MetadataLogError } from '../../../src/controller/metadata-log.js';
import { SeededRandom } from '../../../src/util/random.js';
import { AlterConfigOp, type TopicConfigValidator } from '../../../src/controller/types.js';
import { boot, MemoryMetadataLog, newTopic, registerBroker } from './fixtures.js';

const validateTopicConfigs: TopicConfigValidator = (configs) =>
  [...configs].filter(([k, v]) => k !== 'retention.ms' || !/^-?\d+$/.test(v)).map(([key, v]) => ({ key, message: `${key}: bad value "${v}"` }));

/** A controller over a MemoryMetadataLog with `brokerCount` brokers (racks optional). */
async function cluster(brokerCount: number, racks?: string[], replicationFactorMax?: number) {
  const log = new MemoryMetadataLog();
  const image = new MetadataImage('c');
  const publisher = new MetadataPublisher(image, (e) => {
    throw e;
  });
  await log.start(publisher.handleCommit);
  publisher.finishLoad();
  const controller = new QuorumController({
    nodeId: 1,
    log,
    image,
    random: new SeededRandom(1),
    numPartitionsDefault: 3,
    replicationFactorDefault: 1,
    replicationFactorMax,
    validateTopicConfigs,
  });
  const brokers = Array.from({ length: brokerCount }, (_, i) => registerBroker(i + 1, BigInt(i), racks?.[i] ?? null));
  if (brokers.length > 0) await log.append(brokers);
  log.appends = [];
  return { log, image, controller };
}

async function createOne(c: QuorumController, ...args: Parameters<typeof newTopic>) {
  const [r] = await c.createTopics([newTopic(...args)], { validateOnly: false });
  assert.ok(r);
  return r;
}

test('createTopics writes TopicRecord + PartitionRecords + ConfigRecords in one append', async () => {
  const { log, image, controller } = await cluster(3);
  const r = await createOne(controller, 'orders', { numPartitions: 4, replicationFactor: 2, configs: [{ name: 'retention.ms', value: '1000' }] });
  assert.equal(r.errorCode, ErrorCode.NONE);
  assert.equal(r.errorMessage, null);
  assert.equal(r.numPartitions, 4);
  assert.equal(r.replicationFactor, 2);
  assert.notEqual(r.topicId, ZERO_UUID);
  assert.deepEqual(r.configs, [{ name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false }]);
  assert.equal(log.appends.length, 1);
  assert.deepEqual(log.appends[0]?.map((x) => x.type), ['TopicRecord', 'PartitionRecord', 'PartitionRecord', 'PartitionRecord', 'PartitionRecord', 'ConfigRecord']);
  const t = image.topicByName('orders');
  assert.equal(t?.topicId, r.topicId);
  for (const p of t?.partitions.values() ?? []) {
    assert.equal(p.replicas.length, 2);
    assert.equal(p.leader, p.replicas[0]);
    assert.deepEqual(p.isr, p.replicas);
    assert.equal(p.leaderEpoch, 0);
    assert.equal(p.partitionEpoch, 0);
  }
  assert.equal(image.topicConfigs('orders').get('retention.ms'), '1000');
});

test('defaults: numPartitions and replicationFactor -1', async () => {
  const { controller } = await cluster(1);
  const r = await createOne(controller, 'd', { numPartitions: -1, replicationFactor: -1 });
  assert.deepEqual([r.errorCode, r.numPartitions, r.replicationFactor], [ErrorCode.NONE, 3, 1]);
});

test('validateOnly checks everything and writes nothing', async () => {
  const { log, image, controller } = await cluster(1);
  const [ok, bad] = await controller.createTopics([newTopic('v', { numPartitions: 2 }), newTopic('v2', { numPartitions: 0 })], { validateOnly: true });
  assert.deepEqual([ok?.errorCode, ok?.numPartitions, ok?.topicId], [ErrorCode.NONE, 2, ZERO_UUID]);
  assert.equal(bad?.errorCode, ErrorCode.INVALID_PARTITIONS);
  assert.equal(log.appends.length, 0);
  assert.equal(image.topicByName('v'), undefined);
});

test('illegal names are INVALID_TOPIC_EXCEPTION with a message', async () => {
  const { controller } = await cluster(1);
  const names = ['', '.', '..', 'a'.repeat(250), 'has space', 'ünïcode', 'a/b'];
  const results = await controller.createTopics(names.map((n) => newTopic(n)), { validateOnly: false });
  for (const r of results) {
    assert.equal(r.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION, JSON.stringify(r.name));
    assert.ok(r.errorMessage && r.errorMessage.length > 0);
  }
  const ok = await createOne(controller, 'a'.repeat(249));
  assert.equal(ok.errorCode, ErrorCode.NONE);
});

test('TOPIC_ALREADY_EXISTS, collisions on . and _, duplicates in one request', async () => {
  const { controller } = await cluster(1);
  assert.equal((await createOne(controller, 'metrics.cpu')).errorCode, ErrorCode.NONE);
  const exists = await createOne(controller, 'metrics.cpu');
  assert.equal(exists.errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
  assert.match(exists.errorMessage ?? '', /already exists/);
  const collide = await createOne(controller, 'metrics_cpu');
  assert.equal(collide.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.match(collide.errorMessage ?? '', /collides with existing topic: metrics\.cpu/);
  const inRequest = await controller.createTopics([newTopic('x.y'), newTopic('x_y')], { validateOnly: false });
  assert.deepEqual(inRequest.map((r) => r.errorCode), [ErrorCode.NONE, ErrorCode.INVALID_TOPIC_EXCEPTION]);
  const dup = await controller.createTopics([newTopic('dup'), newTopic('dup')], { validateOnly: false });
  assert.equal(dup.length, 1);
  assert.equal(dup[0]?.errorCode, ErrorCode.INVALID_REQUEST);
  const meta = await createOne(controller, '__cluster_metadata');
  assert.equal(meta.errorCode, ErrorCode.INVALID_REQUEST);
});

test('INVALID_PARTITIONS and INVALID_REPLICATION_FACTOR', async () => {
  const { controller } = await cluster(2);
  for (const n of [0, -2]) assert.equal((await createOne(controller, `p${-n}`, { numPartitions: n })).errorCode, ErrorCode.INVALID_PARTITIONS);
  assert.equal((await createOne(controller, 'huge', { numPartitions: 1_000_000 })).errorCode, ErrorCode.INVALID_PARTITIONS);
  for (const rf of [0, -2]) assert.equal((await createOne(controller, `r${-rf}`, { replicationFactor: rf })).errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  const tooMany = await createOne(controller, 'r3', { replicationFactor: 3 });
  assert.equal(tooMany.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.match(tooMany.errorMessage ?? '', /only 2 broker\(s\) are registered/);
  assert.equal((await createOne(controller, 'r2', { replicationFactor: 2 })).errorCode, ErrorCode.NONE);
});

test('replicationFactorMax (1 on brokers until partition replication exists): CreateTopics and CreatePartitions refuse more replicas and say why', async () => {
  const { log, image, controller } = await cluster(3, undefined, 1);
  const why = /partition replication is not implemented yet, so the replication factor must be 1/;
  for (const rf of [2, 3]) {
    const r = await createOne(controller, `rf${rf}`, { replicationFactor: rf });
    assert.equal(r.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
    assert.match(r.errorMessage ?? '', why);
  }
  // Beyond the broker count too: the reason given is the one that still holds with more brokers.
  assert.match((await createOne(controller, 'rf5', { replicationFactor: 5 })).errorMessage ?? '', why);
  const manual = await createOne(controller, 'manual2', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }] });
  assert.deepEqual([manual.errorCode, why.test(manual.errorMessage ?? '')], [ErrorCode.INVALID_REPLICATION_FACTOR, true]);
  // Kafka's own checks still come first.
  const unknown = await createOne(controller, 'manual9', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 9] }] });
  assert.equal(unknown.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.equal(log.appends.length, 0, 'nothing refused was written');

  assert.equal((await createOne(controller, 'one', { numPartitions: 2, replicationFactor: -1 })).errorCode, ErrorCode.NONE);
  const [explicit] = await controller.createPartitions([{ name: 'one', count: 3, assignments: [[2, 3]] }], { validateOnly: false });
  assert.equal(explicit?.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'a list longer than the topic\'s replication factor is inconsistent first');
  const [single] = await controller.createPartitions([{ name: 'one', count: 3, assignments: [[3]] }], { validateOnly: false });
  assert.equal(single?.errorCode, ErrorCode.NONE);
  assert.deepEqual(image.partition('one', 2)?.replicas, [3]);
});

test('replicationFactorMax: CreatePartitions on a topic registered with more replicas (an older data dir) is refused, explicit or not', async () => {
  const { log, controller } = await cluster(3, undefined, 1);
  const topicId = 'AAAAAAAAAAAAAAAAAAAAAQ';
  await log.append([
    { type: 'TopicRecord', data: { name: 'legacy', topicId } },
    { type: 'PartitionRecord', data: { partitionId: 0, topicId, replicas: [1, 2], isr: [1, 2], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, eligibleLeaderReplicas: [], lastKnownElr: [] } },
  ]);
  log.appends = [];
  const [auto] = await controller.createPartitions([{ name: 'legacy', count: 2, assignments: null }], { validateOnly: false });
  assert.equal(auto?.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.match(auto?.errorMessage ?? '', /replication factor must be 1/);
  const [explicit] = await controller.createPartitions([{ name: 'legacy', count: 2, assignments: [[2, 3]] }], { validateOnly: false });
  assert.equal(explicit?.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.equal(log.appends.length, 0);
});

test('fenced brokers do not count for the replication factor', async () => {
  const { log, controller } = await cluster(2);
  await log.append([{ type: 'FenceBrokerRecord', data: { id: 2, epoch: 1n } }]);
  assert.equal((await createOne(controller, 't', { replicationFactor: 2 })).errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
});

test('manual assignments are validated (INVALID_REPLICA_ASSIGNMENT / INVALID_REQUEST)', async () => {
  const { image, controller } = await cluster(3);
  const manual = (assignments: { partitionIndex: number; brokerIds: number[] }[], extra = {}) =>
    newTopic(`m${Math.abs(JSON.stringify(assignments).length)}${Object.keys(extra).length}`, { numPartitions: -1, replicationFactor: -1, assignments, ...extra });
  const cases: [ReturnType<typeof manual>, number, RegExp][] = [
    [manual([{ partitionIndex: 0, brokerIds: [1, 9] }]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, /broker 9, but no such broker/],
    [manual([{ partitionIndex: 0, brokerIds: [1, 1] }]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, /more than once/],
    [manual([{ partitionIndex: 0, brokerIds: [] }]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, /empty replica list/],
    [manual([{ partitionIndex: 0, brokerIds: [1] }, { partitionIndex: 2, brokerIds: [2] }]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, /consecutive/],
    [manual([{ partitionIndex: 0, brokerIds: [1, 2] }, { partitionIndex: 1, brokerIds: [3] }]), ErrorCode.INVALID_REPLICA_ASSIGNMENT, /not consistent/],
    [manual([{ partitionIndex: 0, brokerIds: [1] }], { numPartitions: 1 }), ErrorCode.INVALID_REQUEST, /numPartitions was not set to -1/],
    [manual([{ partitionIndex: 0, brokerIds: [1] }], { replicationFactor: 1 }), ErrorCode.INVALID_REQUEST, /replicationFactor was not set to -1/],
  ];
  for (const [topic, code, message] of cases) {
    const [r] = await controller.createTopics([topic], { validateOnly: false });
    assert.equal(r?.errorCode, code, JSON.stringify(topic.assignments));
    assert.match(r?.errorMessage ?? '', message);
  }
  const [ok] = await controller.createTopics(
    [newTopic('manual', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 1, brokerIds: [3, 1] }, { partitionIndex: 0, brokerIds: [2, 3] }] })],
    { validateOnly: false },
  );
  assert.deepEqual([ok?.errorCode, ok?.numPartitions, ok?.replicationFactor], [ErrorCode.NONE, 2, 2]);
  assert.deepEqual(image.partition('manual', 0)?.replicas, [2, 3]);
  assert.equal(image.partition('manual', 1)?.leader, 3);
});

test('configs: INVALID_CONFIG names the key; null values refused', async () => {
  const { log, controller } = await cluster(1);
  const bad = await createOne(controller, 'c1', { configs: [{ name: 'retention.ms', value: 'soon' }] });
  assert.equal(bad.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(bad.errorMessage ?? '', /retention\.ms/);
  const unknown = await createOne(controller, 'c2', { configs: [{ name: 'retention.msx', value: '1' }] });
  assert.equal(unknown.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(unknown.errorMessage ?? '', /retention\.msx/);
  const nul = await createOne(controller, 'c3', { configs: [{ name: 'retention.ms', value: null }] });
  assert.equal(nul.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(nul.errorMessage ?? '', /Null value not supported for topic configs: retention\.ms/);
  assert.equal(log.appends.length, 0);
});

test('one bad topic does not stop the others; all good ones share one append', async () => {
  const { log, controller } = await cluster(1);
  const results = await controller.createTopics([newTopic('a'), newTopic('b', { numPartitions: 0 }), newTopic('c')], { validateOnly: false });
  assert.deepEqual(results.map((r) => [r.name, r.errorCode]), [['a', 0], ['b', ErrorCode.INVALID_PARTITIONS], ['c', 0]]);
  assert.equal(log.appends.length, 1);
  assert.deepEqual(log.appends[0]?.filter((r) => r.type === 'TopicRecord').map((r) => (r.data as { name: string }).name), ['a', 'c']);
});

test('a deposed leader answers NOT_CONTROLLER for the items that passed validation', async () => {
  const { log, image, controller } = await cluster(1);
  log.failWith = new MetadataLogError('ERR_TRIB_METADATA_NOT_LEADER', 'not the leader');
  const results = await controller.createTopics([newTopic('a'), newTopic('.')], { validateOnly: false });
  assert.deepEqual(results.map((r) => r.errorCode), [ErrorCode.NOT_CONTROLLER, ErrorCode.INVALID_TOPIC_EXCEPTION]);
  assert.equal(results[0]?.topicId, ZERO_UUID);
  assert.equal(image.topicByName('a'), undefined);
  log.failWith = new MetadataLogError('ERR_TRIB_METADATA_FAILED', 'disk gone');
  const [r] = await controller.deleteTopics([{ name: 'x', topicId: null }]);
  assert.equal(r?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'validation errors need no append');
});

test('deleteTopics by name and by id; unknown, invalid, duplicate and internal topics', async () => {
  const { image, controller } = await cluster(1);
  const a = await createOne(controller, 'a');
  await createOne(controller, 'b');
  await createOne(controller, '__consumer_offsets');
  const results = await controller.deleteTopics([
    { name: 'b', topicId: null },
    { name: null, topicId: a.topicId },
    { name: 'nope', topicId: null },
    { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAEA' },
    { name: 'b', topicId: a.topicId },
    { name: null, topicId: null },
    { name: '__consumer_offsets', topicId: ZERO_UUID },
  ]);
  assert.deepEqual(results.map((r) => r.errorCode), [
    ErrorCode.NONE,
    ErrorCode.NONE,
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    ErrorCode.UNKNOWN_TOPIC_ID,
    ErrorCode.INVALID_REQUEST,
    ErrorCode.INVALID_REQUEST,
    ErrorCode.INVALID_TOPIC_EXCEPTION,
  ]);
  assert.deepEqual([results[1]?.name, results[1]?.topicId], ['a', a.topicId]);
  assert.equal(image.topicByName('a'), undefined);
  assert.equal(image.topicByName('b'), undefined);
  assert.ok(image.topicByName('__consumer_offsets'));
  const dup = await controller.deleteTopics([{ name: '__consumer_offsets', topicId: null }, { name: '__consumer_offsets', topicId: null }]);
  assert.deepEqual(dup.map((r) => r.errorCode), [ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
});

test('createPartitions: increase only, assignments checked, placement continues', async () => {
  const { image, controller } = await cluster(3);
  await createOne(controller, 't', { numPartitions: 2, replicationFactor: 2 });
  const results = await controller.createPartitions(
    [
      { name: 't', count: 5, assignments: null },
      { name: 'nope', count: 2, assignments: null },
    ],
    { validateOnly: false },
  );
  assert.deepEqual(results.map((r) => r.errorCode), [ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
  assert.equal(image.topicByName('t')?.partitions.size, 5);
  for (const p of image.topicByName('t')?.partitions.values() ?? []) assert.equal(p.replicas.length, 2);
  const bad = await controller.createPartitions(
    [
      { name: 't', count: 4, assignments: null },
    ],
    { validateOnly: false },
  );
  assert.equal(bad[0]?.errorCode, ErrorCode.INVALID_PARTITIONS);
  assert.match(bad[0]?.errorMessage ?? '', /currently has 5 partition\(s\); 4 would not be an increase/);
  const same = await controller.createPartitions([{ name: 't', count: 5, assignments: null }], { validateOnly: false });
  assert.equal(same[0]?.errorCode, ErrorCode.INVALID_PARTITIONS);
  const cases: [readonly (readonly number[])[], RegExp][] = [
    [[[1, 2]], /add 2 additional partition\(s\), but only 1 assignment/],
    [[[1, 2], [3]], /1 replica\(s\), but this is not consistent with previous partitions, which have 2/],
    [[[1, 2], [3, 7]], /broker 7, but no such broker/],
  ];
  for (const [assignments, message] of cases) {
    const [r] = await controller.createPartitions([{ name: 't', count: 7, assignments }], { validateOnly: false });
    assert.equal(r?.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assert.match(r?.errorMessage ?? '', message);
  }
  const [v] = await controller.createPartitions([{ name: 't', count: 7, assignments: [[1, 2], [3, 1]] }], { validateOnly: true });
  assert.equal(v?.errorCode, ErrorCode.NONE);
  assert.equal(image.topicByName('t')?.partitions.size, 5, 'validateOnly wrote nothing');
  const [m] = await controller.createPartitions([{ name: 't', count: 7, assignments: [[1, 2], [3, 1]] }], { validateOnly: false });
  assert.equal(m?.errorCode, ErrorCode.NONE);
  assert.deepEqual(image.partition('t', 6)?.replicas, [3, 1]);
});

test('createPartitions refuses a replication factor the live brokers cannot hold', async () => {
  const { log, controller } = await cluster(2);
  await createOne(controller, 't', { numPartitions: 1, replicationFactor: 2 });
  await log.append([{ type: 'FenceBrokerRecord', data: { id: 2, epoch: 1n } }]);
  const [r] = await controller.createPartitions([{ name: 't', count: 2, assignments: null }], { validateOnly: false });
  assert.equal(r?.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
});

test('incrementalAlterConfigs: set, append, subtract, delete, validation', async () => {
  const { image, controller } = await cluster(1);
  await createOne(controller, 't');
  const set = await controller.incrementalAlterConfigs(
    [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: AlterConfigOp.Set, value: '5' }] }],
    { validateOnly: false },
  );
  assert.equal(set[0]?.errorCode, ErrorCode.NONE);
  assert.equal(image.topicConfigs('t').get('retention.ms'), '5');
  const bad = await controller.incrementalAlterConfigs(
    [
      { resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: AlterConfigOp.Set, value: 'x' }] },
      { resourceType: 2, resourceName: 'nope', configs: [] },
      { resourceType: 4, resourceName: '1', configs: [] },
      { resourceType: 99, resourceName: 'x', configs: [] },
    ],
    { validateOnly: false },
  );
  assert.deepEqual(bad.map((r) => r.errorCode), [ErrorCode.INVALID_CONFIG, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
  assert.match(bad[0]?.errorMessage ?? '', /retention\.ms/);
  const del = await controller.incrementalAlterConfigs(
    [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: AlterConfigOp.Delete, value: null }] }],
    { validateOnly: false },
  );
  assert.equal(del[0]?.errorCode, ErrorCode.NONE);
  assert.equal(image.topicConfigs('t').size, 0);
});

test('APPEND and SUBTRACT edit comma-separated lists', async () => {
  const { log, image, controller } = await cluster(1);
  await createOne(controller, 't');
  const permissive = new QuorumController({
    nodeId: 1,
    log,
    image,
    random: new SeededRandom(2),
    numPartitionsDefault: 1,
    replicationFactorDefault: 1,
    validateTopicConfigs: () => [],
  });
  const op = (configOperation: number, value: string) =>
    permissive.incrementalAlterConfigs([{ resourceType: 2, resourceName: 't', configs: [{ name: 'cleanup.policy', configOperation, value }] }], { validateOnly: false });
  await op(AlterConfigOp.Append, 'delete');
  await op(AlterConfigOp.Append, 'compact,delete');
  assert.equal(image.topicConfigs('t').get('cleanup.policy'), 'delete,compact');
  await op(AlterConfigOp.Subtract, 'delete');
  assert.equal(image.topicConfigs('t').get('cleanup.policy'), 'compact');
  await op(AlterConfigOp.Subtract, 'compact');
  assert.equal(image.topicConfigs('t').has('cleanup.policy'), false);
});

test('requests run one at a time: concurrent creates of one name yield one winner', async () => {
  const { controller } = await cluster(1);
  const all = await Promise.all([1, 2, 3].map(() => controller.createTopics([newTopic('race')], { validateOnly: false })));
  assert.deepEqual(all.map((r) => r[0]?.errorCode).sort(), [0, ErrorCode.TOPIC_ALREADY_EXISTS, ErrorCode.TOPIC_ALREADY_EXISTS].sort());
});

test('topic ids are unique and reproducible from the seed', async () => {
  const one = await cluster(1);
  const two = await cluster(1);
  const a = await one.controller.createTopics(['a', 'b', 'c'].map((n) => newTopic(n)), { validateOnly: false });
  const b = await two.controller.createTopics(['a', 'b', 'c'].map((n) => newTopic(n)), { validateOnly: false });
  assert.equal(new Set(a.map((r) => r.topicId)).size, 3);
  assert.deepEqual(a.map((r) => r.topicId), b.map((r) => r.topicId));
});

test('boot registers the broker and finalizes features; a restart with the same listeners writes only its leader change', async () => {
  const h = await boot();
  const reg = h.booted.image().broker(1);
  assert.ok(reg);
  assert.equal(reg.fenced, false);
  assert.deepEqual(reg.endPoints, [{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 0 }]);
  assert.equal(h.booted.image().featureLevel('metadata.version'), 1);
  const end = h.booted.log.endOffset;
  await h.booted.close();
  const again = await boot({ fs: h.fs });
  // The one-voter Raft log starts a new epoch (one leader-change control record); no registration or feature record.
  assert.equal(again.booted.log.endOffset, end + 1n);
  assert.equal(again.booted.image().broker(1)?.brokerEpoch, reg.brokerEpoch);
  assert.equal(again.booted.clusterId, h.booted.clusterId);
  // a new port re-registers with a higher broker epoch
  await again.booted.controller.registerBroker({ endpoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 19092 }], rack: 'r1' });
  const moved = again.booted.image().broker(1);
  assert.equal(moved?.endPoints[0]?.port, 19092);
  assert.equal(moved?.rack, 'r1');
  assert.ok((moved?.brokerEpoch ?? -1n) > reg.brokerEpoch);
  await again.booted.close();
});

test('boot: subscribers get the initial delta and then one per change', async () => {
  const h = await boot();
  await h.booted.controller.createTopics([newTopic('t', { numPartitions: 2 })], { validateOnly: false });
  await h.booted.close();
  const restarted = await boot({ fs: h.fs });
  const first = restarted.deltas[0];
  assert.ok(first?.initial);
  assert.deepEqual(first.topicsCreated.map((t) => t.name), ['t']);
  assert.equal(first.partitionsAdded.length, 2);
  const late: string[] = [];
  const unsubscribe = restarted.booted.subscribe((d) => late.push(d.initial ? 'initial' : d.topicsDeleted.map((t) => t.name).join(',')));
  await restarted.booted.controller.deleteTopics([{ name: 't', topicId: null }]);
  unsubscribe();
  assert.deepEqual(late, ['initial', 't']);
  const last = restarted.deltas.at(-1);
  assert.deepEqual(last?.topicsDeleted.map((t) => [t.name, t.partitionIds]), [['t', [0, 1]]]);
  await restarted.booted.close();
});

test('a closed controller refuses requests', async () => {
  const { controller } = await cluster(1);
  await controller.close();
  await assert.rejects(controller.createTopics([newTopic('x')], { validateOnly: false }), /shut down/);
});

test('boot uses the real topic config validator by default', async () => {
  const h = await boot();
  const [bad] = await h.booted.controller.createTopics([newTopic('t', { configs: [{ name: 'retention.ms', value: 'forever' }] })], { validateOnly: false });
  assert.equal(bad?.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(bad?.errorMessage ?? '', /retention\.ms/);
  const [ok] = await h.booted.controller.createTopics([newTopic('t', { configs: [{ name: 'cleanup.policy', value: 'compact' }] })], { validateOnly: false });
  assert.equal(ok?.errorCode, ErrorCode.NONE);
  await h.booted.close();
});

/**
 * Unit tests of the mirror module's pure parts: replication policies and
 * cycle detection, MirrorMaker 2's record formats (byte layout and bad
 * input), the offset sync store's translation, the offset.lag.max rule,
 * filters and mm2.properties parsing (bad input gets a clear error).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy, IdentityReplicationPolicy, isCycle, policyFromConfig } from '../../../src/mirror/policy.js';
import { decodeCheckpoint, decodeHeartbeat, decodeOffsetSync, encodeCheckpoint, encodeHeartbeat, encodeOffsetSync, MirrorFormatError } from '../../../src/mirror/records.js';
import { OffsetSyncStore, SyncRule } from '../../../src/mirror/offset-sync-store.js';
import { RegexFilter } from '../../../src/mirror/filters.js';
import { MirrorConfigError, connectorConfig, parseMm2Config, workerConfig } from '../../../src/mirror/mm2-config.js';
import { decodePartitions, encodePartitions } from '../../../src/mirror/task-assignment.js';

test('DefaultReplicationPolicy names and traces remote topics', () => {
  const p = new DefaultReplicationPolicy();
  assert.equal(p.formatRemoteTopic('A', 'orders'), 'A.orders');
  assert.equal(p.topicSource('B.A.orders'), 'B');
  assert.equal(p.upstreamTopic('B.A.orders'), 'A.orders');
  assert.equal(p.originalTopic('B.A.orders'), 'orders');
  assert.equal(p.topicSource('orders'), null);
  assert.equal(p.offsetSyncsTopic('B'), 'mm2-offset-syncs.B.internal');
  assert.equal(p.checkpointsTopic('A'), 'A.checkpoints.internal');
  assert.ok(p.isHeartbeatsTopic('A.heartbeats'));
  for (const t of ['mm2-offset-syncs.B.internal', 'A.checkpoints.internal', '__consumer_offsets', 'mm2-configs.A.internal', 'connect-offsets-internal']) assert.ok(p.isInternalTopic(t), t);
  assert.ok(!p.isInternalTopic('A.orders'));
  const dash = new DefaultReplicationPolicy('_');
  assert.equal(dash.formatRemoteTopic('A', 'orders'), 'A_orders');
  assert.equal(dash.offsetSyncsTopic('B'), 'mm2-offset-syncs_B_internal');
  assert.equal(dash.upstreamTopic('A_orders'), 'orders');
});

test('cycles: a topic from the target cluster is never sent back', () => {
  const p = new DefaultReplicationPolicy();
  assert.ok(isCycle(p, 'B.orders', 'B'));
  assert.ok(isCycle(p, 'C.B.orders', 'B'), 'further up the chain');
  assert.ok(!isCycle(p, 'orders', 'B'));
  assert.ok(!isCycle(p, 'C.orders', 'B'));
  const id = new IdentityReplicationPolicy('.', 'A');
  assert.equal(id.formatRemoteTopic('A', 'orders'), 'orders');
  assert.equal(id.formatRemoteTopic('A', 'heartbeats'), 'A.heartbeats', 'heartbeats keep the prefix');
  assert.equal(id.topicSource('orders'), 'A');
  assert.ok(!isCycle(id, 'orders', 'B'), 'identity names cannot tell');
  assert.ok(isCycle(id, 'B.heartbeats', 'B'));
  assert.ok(policyFromConfig({ 'replication.policy.class': 'IdentityReplicationPolicy' }) instanceof IdentityReplicationPolicy);
  assert.throws(() => policyFromConfig({ 'replication.policy.class': 'com.example.Nope' }), /not known/);
});

test('OffsetSync, Checkpoint and Heartbeat bytes are MirrorMaker 2\'s', () => {
  const s = encodeOffsetSync({ topic: 'ab', partition: 2, upstreamOffset: 5n, downstreamOffset: 7n });
  assert.equal(s.key.toString('hex'), '0002' + '6162' + '00000002');
  assert.equal(s.value.toString('hex'), '0000000000000005' + '0000000000000007');
  assert.deepEqual(decodeOffsetSync(s.key, s.value), { topic: 'ab', partition: 2, upstreamOffset: 5n, downstreamOffset: 7n });
  const c = encodeCheckpoint({ group: 'g', topic: 'A.t', partition: 1, upstreamOffset: 10n, downstreamOffset: 9n, metadata: 'm' });
  assert.equal(c.key.toString('hex'), '000167' + '0003412e74' + '00000001');
  assert.equal(c.value.toString('hex'), '0000' + '000000000000000a' + '0000000000000009' + '00016d');
  assert.equal(decodeCheckpoint(c.key, c.value).downstreamOffset, 9n);
  const h = encodeHeartbeat({ sourceClusterAlias: 'A', targetClusterAlias: 'B', timestamp: 1n });
  assert.equal(h.value.toString('hex'), '0000' + '0000000000000001');
  assert.deepEqual(decodeHeartbeat(h.key, h.value), { sourceClusterAlias: 'A', targetClusterAlias: 'B', timestamp: 1n });
  assert.throws(() => decodeOffsetSync(Buffer.from('0005ab', 'hex'), s.value), MirrorFormatError);
  assert.throws(() => decodeCheckpoint(c.key, Buffer.from('0001', 'hex')), MirrorFormatError);
  assert.throws(() => decodeHeartbeat(null, h.value), MirrorFormatError);
});

test('translation: never ahead of the group, at most one sync interval behind, -1 before every sync', () => {
  const store = new OffsetSyncStore();
  assert.equal(store.translateDownstream('t', 0, 5n), null, 'nothing before read-to-end');
  store.markReadToEnd();
  assert.equal(store.translateDownstream('t', 0, 5n), null, 'no sync for the partition');
  // Downstream offsets are upstream + 1000 (the remote topic had records before).
  for (let u = 100n; u <= 5000n; u += 11n) store.add('t', 0, { upstreamOffset: u, downstreamOffset: u + 1000n });
  for (const g of [100n, 101n, 150n, 2345n, 4999n, 5000n]) {
    const d = store.translateDownstream('t', 0, g);
    assert.ok(d !== null && d <= g + 1000n, `${g}: ${d} not ahead`);
    assert.ok(d !== null && d >= g + 1000n - 11n, `${g}: ${d} within one interval`);
  }
  assert.equal(store.translateDownstream('t', 0, 100n), 1100n, 'exactly at a sync');
  assert.equal(store.translateDownstream('t', 0, 50n), -1n, 'older than every sync');
  // A recreated topic (upstream goes backwards) forgets the old syncs.
  store.add('t', 0, { upstreamOffset: 0n, downstreamOffset: 7000n });
  assert.equal(store.translateDownstream('t', 0, 2345n), 7001n);
});

test('the 64 buckets keep a sync at or before far older offsets', () => {
  const store = new OffsetSyncStore();
  store.markReadToEnd();
  for (let u = 0n; u <= 200_000n; u += 10n) store.add('t', 0, { upstreamOffset: u, downstreamOffset: u });
  // 1024 exact syncs cover the newest 10240 offsets; older ones come from the buckets: never ahead.
  for (const g of [5n, 1234n, 99_999n, 190_001n]) {
    const d = store.translateDownstream('t', 0, g);
    assert.ok(d !== null && d >= 0n && d <= g, `${g}: ${d}`);
  }
  assert.equal(store.translateDownstream('t', 0, 199_995n), 199_991n);
});

test('offset.lag.max rule: first record, every max lag, skipped upstream offsets, truncated downstream', () => {
  const rule = new SyncRule(3n);
  const due: number[] = [];
  const step = (u: bigint, d: bigint, i: number): void => {
    if (rule.update(u, d)) {
      due.push(i);
      rule.sent();
    }
  };
  for (let i = 0; i < 10; i++) step(BigInt(i), BigInt(i), i);
  assert.deepEqual(due, [0, 4, 8]);
  step(12n, 10n, 12); // upstream skipped 10 and 11
  step(13n, 2n, 13); // downstream went backwards
  assert.deepEqual(due, [0, 4, 8, 12, 13]);
});

test('filters match whole names; task partitions round-trip with dashes in topic names', () => {
  const f = new RegexFilter('topics', ['orders.*', 'pay'], ['orders-test']);
  assert.ok(f.matches('orders-eu'));
  assert.ok(!f.matches('orders-test'));
  assert.ok(!f.matches('payments'), 'whole-name match');
  assert.throws(() => new RegexFilter('topics', ['('], []), /topics/);
  const parts = [{ topic: 'a-b', partition: 3 }, { topic: 'c', partition: 0 }];
  assert.deepEqual(decodePartitions(encodePartitions(parts)), parts);
});

test('mm2.properties: flows, precedence, worker topics as MirrorMaker names them', () => {
  const c = parseMm2Config({
    clusters: 'A, B',
    'A.bootstrap.servers': 'a:9092',
    'B.bootstrap.servers': 'b:9092',
    'A->B.enabled': 'true',
    'A->B.topics': 'orders.*',
    topics: '.*',
    'tasks.max': '4',
    'A.consumer.max.poll.records': '100',
    'producer.compression.type': 'gzip',
    'B.producer.linger.ms': '50',
    'B.producer.acks': '1',
    'A->B.producer.acks': 'all',
    'B->A.enabled': 'false',
  });
  assert.deepEqual(c.flows.map((f) => `${f.source}->${f.target}`), ['A->B']);
  const flow = c.flows[0];
  assert.ok(flow !== undefined);
  const source = connectorConfig(c, flow, 'MirrorSourceConnector');
  assert.equal(source.topics, 'orders.*', 'flow key wins');
  assert.equal(source['tasks.max'], '4');
  assert.equal(source['consumer.max.poll.records'], '100');
  assert.equal(source['source.cluster.bootstrap.servers'], 'a:9092');
  assert.equal(source['connector.class'], 'org.apache.kafka.connect.mirror.MirrorSourceConnector');
  const w = workerConfig(c, flow, '/plugins');
  assert.equal(w['bootstrap.servers'], 'b:9092');
  assert.equal(w['group.id'], 'A-mm2');
  assert.equal(w['config.storage.topic'], 'mm2-configs.A.internal');
  assert.equal(w['offset.storage.topic'], 'mm2-offsets.A.internal');
  assert.equal(w['status.storage.topic'], 'mm2-status.A.internal');
  // Producer settings go to the flow's worker (top level < target cluster < flow), not to its connectors.
  assert.equal(w['producer.compression.type'], 'gzip');
  assert.equal(w['producer.linger.ms'], '50');
  assert.equal(w['producer.acks'], 'all', 'the flow key wins over the target cluster one');
  assert.equal(source['producer.acks'], undefined);
});

test('mm2.properties bad input: unknown cluster, missing bootstrap, identity cycle', () => {
  const base = { clusters: 'A, B', 'A.bootstrap.servers': 'a:1', 'B.bootstrap.servers': 'b:1' };
  assert.throws(() => parseMm2Config({ ...base, 'A->C.enabled': 'true' }), (e: Error) => e instanceof MirrorConfigError && /cluster C, which is not in clusters/.test(e.message));
  assert.throws(() => parseMm2Config({ clusters: 'A, B', 'A.bootstrap.servers': 'a:1', 'A->B.enabled': 'true' }), /B has no B.bootstrap.servers/);
  const identity = { ...base, 'replication.policy.class': 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', 'A->B.enabled': 'true', 'B->A.enabled': 'true' };
  assert.throws(() => parseMm2Config(identity), /would cycle/);
  assert.equal(parseMm2Config({ ...identity, 'A->B.topics': 'east-.*', 'B->A.topics': 'west-.*' }).flows.length, 2, 'disjoint filters are fine');
  assert.throws(() => parseMm2Config(base), /enables no flow/);
});

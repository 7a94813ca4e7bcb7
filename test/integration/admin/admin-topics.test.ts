/**
 * Our Admin client against the embeddable broker (startCluster): topics
 * (create with assignments / validateOnly, partial failures per topic,
 * internal flag, describe with authorized operations), partitions, offsets
 * (earliest / latest / max-timestamp / by timestamp, OffsetForLeaderEpoch),
 * records, configs, cluster (describeCluster, apiVersions against the
 * handler registry, log dirs, elections, reassignments).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type EmbeddedCluster } from '../../../src/index.js';
import { Admin, KafkaProtocolError, produce } from '../../../src/client/index.js';
import { allHandlers } from '../../../src/broker/handlers/index.js';
import { handlersForListener } from '../../../src/broker/lifecycle/listener-apis.js';

describe('Admin: topics, offsets, configs, cluster', { timeout: 60_000 }, () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;
  let nodeId: number;

  before(async () => {
    cluster = await startCluster();
    nodeId = cluster.brokers[0]!.nodeId;
    admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  });

  after(async () => {
    await admin?.close();
    await cluster?.stop();
  });

  it('createTopics: explicit assignments, validateOnly, and one error per topic without throwing', async () => {
    const created = await admin.createTopics([
      { name: 'at-assigned', assignments: [[nodeId], [nodeId], [nodeId]], configs: { 'retention.ms': '3600000' } },
      { name: 'at-plain', numPartitions: 2 },
    ]);
    assert.deepEqual(
      created.map((r) => [r.name, r.numPartitions, r.error]),
      [
        ['at-assigned', 3, null],
        ['at-plain', 2, null],
      ],
    );
    assert.match(created[0]!.topicId ?? '', /^[A-Za-z0-9_-]{22}$/);

    const again = await admin.createTopics([{ name: 'at-plain' }, { name: 'at-new' }]);
    assert.equal(again[0]!.error?.kafkaErrorName, 'TOPIC_ALREADY_EXISTS');
    assert.equal(again[1]!.error, null);

    const dry = await admin.createTopics([{ name: 'at-dry', numPartitions: 4 }], { validateOnly: true });
    assert.equal(dry[0]!.error, null);
    assert.deepEqual((await admin.listTopics()).map((t) => t.name).filter((n) => n.startsWith('at-')), ['at-assigned', 'at-new', 'at-plain']);

    await assert.rejects(admin.createTopics([{ name: 'at-both', numPartitions: 1, assignments: [[nodeId]] }]), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
    await assert.rejects(admin.createTopics([{ name: 'at-twice', assignments: [[nodeId, nodeId]] }]), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
  });

  it('describeTopics: partitions, leaders, ISR, configs, topic id, authorized operations; unknown topics carry an error', async () => {
    const [described, missing] = await admin.describeTopics(['at-assigned', 'at-missing'], { includeAuthorizedOperations: true });
    assert.equal(described!.error, null);
    assert.equal(described!.partitions.length, 3);
    for (const p of described!.partitions) {
      assert.equal(p.leader, nodeId);
      assert.deepEqual(p.replicas, [nodeId]);
      assert.deepEqual(p.isr, [nodeId]);
      assert.deepEqual(p.offlineReplicas, []);
      assert.equal(p.error, null);
    }
    assert.equal(described!.configs?.find((c) => c.name === 'retention.ms')?.value, '3600000');
    assert.equal(described!.configs?.find((c) => c.name === 'retention.ms')?.source, 'DYNAMIC_TOPIC_CONFIG');
    // No authorizer yet: the broker answers "not provided", which reads as null (not an empty list).
    assert.equal(described!.authorizedOperations, null);
    assert.ok(missing!.error instanceof KafkaProtocolError);
    assert.equal(missing!.error.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('listTopics hides internal topics unless asked, and flags them', async () => {
    await admin.commitGroupOffsets('at-internal-probe', [{ topic: 'at-plain', partition: 0, offset: 0n }]);
    assert.ok(!(await admin.listTopics()).some((t) => t.name === '__consumer_offsets'));
    const internal = (await admin.listTopics({ includeInternal: true })).find((t) => t.name === '__consumer_offsets');
    assert.equal(internal?.isInternal, true);
  });

  it('createPartitions: the batch form answers per topic (with assignments); the single form throws', async () => {
    const results = await admin.createPartitions([
      { topic: 'at-plain', totalCount: 4, assignments: [[nodeId], [nodeId]] },
      { topic: 'at-missing', totalCount: 2 },
      { topic: 'at-new', totalCount: 1 },
    ]);
    assert.equal(results[0]!.error, null);
    assert.equal(results[1]!.error?.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION');
    assert.equal(results[2]!.error?.kafkaErrorName, 'INVALID_PARTITIONS');
    assert.equal((await admin.describeTopics(['at-plain']))[0]!.partitions.length, 4);
    await assert.rejects(admin.createPartitions('at-new', 1), (e: unknown) => e instanceof KafkaProtocolError && e.kafkaErrorName === 'INVALID_PARTITIONS');
    const dry = await admin.createPartitions([{ topic: 'at-new', totalCount: 5 }], { validateOnly: true });
    assert.equal(dry[0]!.error, null);
    assert.equal((await admin.describeTopics(['at-new']))[0]!.partitions.length, 1);
  });

  it('listOffsets: earliest, latest, max-timestamp, by timestamp, read_committed; per-partition errors', async () => {
    const stamps = [1_000n, 5_000n, 3_000n, 2_000n];
    await produce(admin.cluster, 'at-assigned', 0, stamps.map((timestamp, i) => ({ value: `v${i}`, timestamp })));
    const results = await admin.listOffsets([
      { topic: 'at-assigned', partition: 0, spec: 'earliest' },
      { topic: 'at-assigned', partition: 1, spec: 'latest' },
      { topic: 'at-assigned', partition: 2, spec: 9n },
      { topic: 'at-missing', partition: 0, spec: 'latest' },
      { topic: 'at-assigned', partition: 7, spec: 'latest' },
    ]);
    assert.deepEqual(results.map((r) => [r.offset, r.error?.kafkaErrorName ?? null]), [
      [0n, null],
      [0n, null],
      [-1n, null],
      [-1n, 'UNKNOWN_TOPIC_OR_PARTITION'],
      [-1n, 'UNKNOWN_TOPIC_OR_PARTITION'],
    ]);
    // One partition at most once per call (the wire allows one entry per partition).
    const [latest] = await admin.listOffsets([{ topic: 'at-assigned', partition: 0, spec: 'latest' }]);
    const [maxTs] = await admin.listOffsets([{ topic: 'at-assigned', partition: 0, spec: 'max-timestamp' }]);
    const [byTime] = await admin.listOffsets([{ topic: 'at-assigned', partition: 0, spec: 2_500 }]);
    assert.equal(latest!.offset, 4n);
    assert.equal(maxTs!.offset, 1n);
    assert.equal(maxTs!.timestamp, 5_000n);
    assert.equal(byTime!.offset, 1n);
    const committed = await admin.listOffsets([{ topic: 'at-assigned', partition: 0, spec: 'latest' }], { isolationLevel: 'read_committed' });
    assert.equal(committed[0]!.offset, 4n);
    assert.equal((await admin.listOffsets('at-assigned', 0, 'earliest')).offset, 0n);
    await assert.rejects(admin.listOffsets('at-missing', 0, 'earliest'), { code: 'ERR_TRIB_KAFKA' });
    await assert.rejects(admin.listOffsets([{ topic: 'at-assigned', partition: 0, spec: -5 }]), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
  });

  it('offsetsForLeaderEpoch: the end offset of the current epoch is the log end; errors per partition', async () => {
    const [d] = await admin.describeTopics(['at-assigned'], { includeConfigs: false });
    const epoch = d!.partitions[0]!.leaderEpoch;
    const [current, missing] = await admin.offsetsForLeaderEpoch([
      { topic: 'at-assigned', partition: 0, leaderEpoch: epoch, currentLeaderEpoch: epoch },
      { topic: 'at-missing', partition: 0, leaderEpoch: 0 },
    ]);
    assert.equal(current!.error, null);
    assert.equal(current!.leaderEpoch, epoch);
    assert.equal(current!.endOffset, 4n);
    assert.equal(missing!.error?.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION');
    const [fenced] = await admin.offsetsForLeaderEpoch([{ topic: 'at-assigned', partition: 0, leaderEpoch: epoch, currentLeaderEpoch: epoch + 5 }]);
    assert.equal(fenced!.error?.kafkaErrorName, 'UNKNOWN_LEADER_EPOCH');
  });

  it('deleteRecords moves the log start, which listOffsets earliest then reports', async () => {
    const [deleted] = await admin.deleteRecords('at-assigned', { 0: 2n });
    assert.deepEqual([deleted!.lowWatermark, deleted!.error], [2n, null]);
    assert.equal((await admin.listOffsets('at-assigned', 0, 'earliest')).offset, 2n);
  });

  it('configs: describe with synonyms and documentation, incremental and legacy alter', async () => {
    await admin.incrementalAlterConfigs({ type: 'topic', name: 'at-plain' }, [{ name: 'cleanup.policy', op: 'set', value: 'compact' }]);
    const [topic, broker] = await admin.describeConfigs(
      [
        { type: 'topic', name: 'at-plain', keys: ['cleanup.policy', 'retention.ms'] },
        { type: 'broker', name: String(nodeId), keys: ['log.retention.ms'] },
      ],
      { includeSynonyms: true, includeDocumentation: true },
    );
    const policy = topic!.configs.find((c) => c.name === 'cleanup.policy');
    assert.equal(policy?.value, 'compact');
    assert.equal(policy?.source, 'DYNAMIC_TOPIC_CONFIG');
    assert.ok(policy!.synonyms.some((s) => s.source === 'DYNAMIC_TOPIC_CONFIG'));
    assert.equal(typeof policy?.documentation, 'string');
    assert.equal(broker!.error, null);
    await admin.alterConfigs({ type: 'topic', name: 'at-plain' }, { 'retention.ms': '60000' });
    const [after] = await admin.describeConfigs([{ type: 'topic', name: 'at-plain', keys: ['cleanup.policy', 'retention.ms'] }]);
    // Legacy AlterConfigs replaces the whole set: cleanup.policy is back to its default.
    assert.equal(after!.configs.find((c) => c.name === 'retention.ms')?.value, '60000');
    assert.equal(after!.configs.find((c) => c.name === 'cleanup.policy')?.source, 'DEFAULT_CONFIG');
    const [bad] = await admin.describeConfigs([{ type: 'topic', name: 'at-missing' }]);
    assert.equal(bad!.error?.kafkaErrorName, 'UNKNOWN_TOPIC_OR_PARTITION');
    await assert.rejects(admin.incrementalAlterConfigs({ type: 'topic', name: 'at-plain' }, [{ name: 'retention.ms', op: 'set', value: 'soon' }]), (e: unknown) => {
      assert.ok(e instanceof KafkaProtocolError);
      assert.equal(e.kafkaErrorName, 'INVALID_CONFIG');
      assert.match(e.serverMessage ?? '', /retention\.ms/);
      return true;
    });
  });

  it('describeCluster (with authorized operations) and apiVersions match the broker handler registry', async () => {
    const description = await admin.describeCluster({ includeAuthorizedOperations: true });
    assert.equal(description.controllerId, nodeId);
    assert.deepEqual(description.brokers.map((b) => [b.nodeId, b.port]), [[nodeId, cluster.brokers[0]!.port]]);
    assert.ok(description.authorizedOperations?.includes('ALTER'));
    assert.equal((await admin.describeCluster()).authorizedOperations, null);

    const versions = await admin.apiVersions();
    assert.equal(versions.nodeId, nodeId);
    const advertised = new Map(versions.apis.map((a) => [a.apiKey, a]));
    // A client listener of a lone node: no Raft or broker-lifecycle APIs (src/broker/lifecycle/listener-apis.ts); DescribeQuorum is served.
    const served = handlersForListener(allHandlers, 'broker');
    assert.deepEqual([...advertised.keys()].sort((a, b) => a - b), served.map((h) => h.apiKey).sort((a, b) => a - b));
    for (const h of served) {
      const a = advertised.get(h.apiKey);
      assert.ok(a !== undefined, `${h.name} is not advertised`);
      assert.deepEqual([a.minVersion, a.maxVersion], [h.minVersion, h.maxVersion], h.name);
    }
    assert.equal(advertised.get(2)?.name, 'ListOffsets');
    assert.equal(versions.finalizedFeaturesEpoch >= -1n, true);
  });

  it('log dirs, elections and reassignments', async () => {
    const [dirs] = await admin.describeLogDirs(['at-assigned']);
    assert.equal(dirs!.nodeId, nodeId);
    const parts = dirs!.logDirs.flatMap((d) => d.partitions).filter((p) => p.topic === 'at-assigned');
    assert.deepEqual(parts.map((p) => p.partition), [0, 1, 2]);
    const elections = await admin.electLeaders('preferred', [{ topic: 'at-assigned', partitions: [0] }]);
    assert.equal(elections[0]!.error?.kafkaErrorName, 'ELECTION_NOT_NEEDED');
    assert.deepEqual(await admin.listPartitionReassignments(), []);
    const [moved] = await admin.alterPartitionReassignments([{ topic: 'at-assigned', partition: 0, replicas: [nodeId] }]);
    assert.equal(moved!.error, null);
  });

  it('deleteTopics answers per topic', async () => {
    const results = await admin.deleteTopics(['at-new', 'at-missing']);
    assert.deepEqual(results.map((r) => [r.name, r.error?.kafkaErrorName ?? null]), [
      ['at-new', null],
      ['at-missing', 'UNKNOWN_TOPIC_OR_PARTITION'],
    ]);
  });
});

// DescribeClientQuotas (48) and AlterClientQuotas (49) on a real broker
// (docs/security.md, "Quotas"): our Admin and @platformatic/kafka set,
// list and remove quotas; Kafka's validation errors come back per entry;
// the quotas survive a restart (they are metadata records).
// confluent-kafka-python 1.7 (the one installed) has no client quota admin
// calls (alter_client_quotas arrived in 2.x), so it is not exercised here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin as PlatformaticAdmin } from '@platformatic/kafka';
import { Admin } from '../../../../src/client/admin.js';
import { startCluster, type EmbeddedCluster } from '../../../../src/index.js';

describe('client quotas through the admin APIs', { timeout: 90_000 }, () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;

  before(async () => {
    cluster = await startCluster();
    admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  });
  after(async () => {
    await admin?.close();
    await cluster?.stop();
  });

  it('sets, describes with filters and removes quotas (our Admin)', async () => {
    const set = await admin.alterClientQuotas([
      { entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', value: 1_048_576 }, { key: 'consumer_byte_rate', value: 2_097_152 }] },
      { entity: { user: 'alice', 'client-id': 'app' }, ops: [{ key: 'request_percentage', value: 25.5 }] },
      { entity: { user: null }, ops: [{ key: 'producer_byte_rate', value: 500_000 }] },
      { entity: { 'client-id': null }, ops: [{ key: 'controller_mutation_rate', value: 10 }] },
      { entity: { ip: '10.0.0.7' }, ops: [{ key: 'connection_creation_rate', value: 5 }] },
    ]);
    assert.deepEqual(set.map((r) => r.error), [null, null, null, null, null]);

    const all = await admin.describeClientQuotas();
    assert.equal(all.length, 5);
    const alice = await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 'exact', match: 'alice' }], strict: true });
    assert.deepEqual(alice, [{ entity: { user: 'alice' }, values: { producer_byte_rate: 1_048_576, consumer_byte_rate: 2_097_152 } }]);
    const aliceAny = await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 'exact', match: 'alice' }] });
    assert.equal(aliceAny.length, 2, 'not strict: the user+client-id entity matches too');
    const defaults = await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 'default' }] });
    assert.deepEqual(defaults, [{ entity: { user: null }, values: { producer_byte_rate: 500_000 } }]);
    const ips = await admin.describeClientQuotas({ components: [{ entityType: 'ip', matchType: 'specified' }] });
    assert.deepEqual(ips, [{ entity: { ip: '10.0.0.7' }, values: { connection_creation_rate: 5 } }]);

    const removed = await admin.alterClientQuotas([{ entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', remove: true }] }]);
    assert.equal(removed[0]?.error, null);
    const after = await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 'exact', match: 'alice' }], strict: true });
    assert.deepEqual(after, [{ entity: { user: 'alice' }, values: { consumer_byte_rate: 2_097_152 } }]);
  });

  it("refuses what Kafka refuses, entry by entry; validateOnly writes nothing", async () => {
    const results = await admin.alterClientQuotas([
      { entity: { user: 'bob' }, ops: [{ key: 'no_such_quota', value: 1 }] },
      { entity: { user: 'bob' }, ops: [{ key: 'producer_byte_rate', value: 1.5 }] },
      { entity: { ip: '10.0.0.8', user: 'bob' }, ops: [{ key: 'connection_creation_rate', value: 1 }] },
      { entity: { ip: 'not-an-ip' }, ops: [{ key: 'connection_creation_rate', value: 1 }] },
      { entity: { user: 'bob' }, ops: [{ key: 'producer_byte_rate', value: -5 }] },
      { entity: { user: 'carol' }, ops: [{ key: 'producer_byte_rate', value: 100 }] },
    ]);
    assert.deepEqual(results.map((r) => r.error?.kafkaErrorName), ['INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', undefined]);
    assert.match(results[0]?.error?.serverMessage ?? '', /Invalid configuration key no_such_quota/);
    const dry = await admin.alterClientQuotas([{ entity: { user: 'dave' }, ops: [{ key: 'producer_byte_rate', value: 100 }] }], { validateOnly: true });
    assert.equal(dry[0]?.error, null);
    assert.deepEqual(await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 'exact', match: 'dave' }] }), []);
    await assert.rejects(admin.describeClientQuotas({ components: [{ entityType: 'ip', matchType: 'specified' }, { entityType: 'user', matchType: 'specified' }] }), /IP filter component should not be used/);
  });

  it('@platformatic/kafka alters and describes quotas', async () => {
    const p = new PlatformaticAdmin({ clientId: 'quota-test', bootstrapBrokers: [cluster.bootstrap], retries: 2, timeout: 10_000 });
    try {
      await p.alterClientQuotas({ entries: [{ entities: [{ entityType: 'client-id', entityName: 'plat' }], ops: [{ key: 'consumer_byte_rate', value: 4096, remove: false }] }] });
      const described = await p.describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 0, match: 'plat' }], strict: true });
      assert.deepEqual(described, [{ entity: [{ entityType: 'client-id', entityName: 'plat' }], values: [{ key: 'consumer_byte_rate', value: 4096 }] }]);
    } finally {
      await p.close();
    }
    const ours = await admin.describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 'exact', match: 'plat' }] });
    assert.deepEqual(ours, [{ entity: { 'client-id': 'plat' }, values: { consumer_byte_rate: 4096 } }]);
  });

  it('quotas are metadata: they survive a restart', async () => {
    await admin.close();
    await cluster.restart();
    admin = await Admin.connect({ bootstrap: cluster.bootstrap });
    const alice = await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 'exact', match: 'alice' }], strict: true });
    assert.deepEqual(alice, [{ entity: { user: 'alice' }, values: { consumer_byte_rate: 2_097_152 } }]);
  });
});

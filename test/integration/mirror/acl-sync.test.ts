/**
 * Topic ACL sync between two clusters with Kafka's StandardAuthorizer on:
 * the literal ACLs of a replicated topic reach its remote topic with MM2's
 * read-only rules (ALLOW WRITE left out, ALLOW ALL as READ, DENY as is);
 * ACLs of topics the flow does not replicate stay behind. The mirror's own
 * clients connect as User:ANONYMOUS, a super user on both clusters.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, type Acl } from '../../../src/client/index.js';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startMirror, type MirrorHandle } from '../../../src/mirror/index.js';
import { MM2_ONE_BROKER } from '../../helpers/mirror-clusters.js';
import { until } from '../../helpers/until.js';

let a: EmbeddedCluster;
let b: EmbeddedCluster;
let mirror: MirrorHandle | null = null;

before(async () => {
  const config = { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1, 'authorizer.class.name': 'standard', 'super.users': 'User:ANONYMOUS' };
  [a, b] = await Promise.all([startCluster({ config }), startCluster({ config })]);
});
after(async () => {
  await mirror?.close();
  await Promise.all([a.stop(), b.stop()]);
});

const topicAcl = (name: string, principal: string, operation: Acl['operation'], permissionType: Acl['permissionType'] = 'ALLOW'): Acl => ({
  resourceType: 'TOPIC', resourceName: name, patternType: 'LITERAL', principal, host: '*', operation, permissionType,
});
const show = (acls: readonly Acl[]): string[] => acls.map((x) => `${x.resourceName} ${x.principal} ${x.permissionType} ${x.operation}`).sort();

test('the topic ACLs of replicated topics reach the remote topics, read-only', { timeout: 120_000 }, async () => {
  const adminA = await Admin.connect({ bootstrap: a.bootstrap });
  const adminB = await Admin.connect({ bootstrap: b.bootstrap });
  try {
    await adminA.createTopics([{ name: 'orders', numPartitions: 1, replicationFactor: 1 }, { name: 'other', numPartitions: 1, replicationFactor: 1 }]);
    const created = await adminA.createAcls([
      topicAcl('orders', 'User:alice', 'READ'),
      topicAcl('orders', 'User:alice', 'WRITE'),
      topicAcl('orders', 'User:bob', 'ALL'),
      topicAcl('orders', 'User:mallory', 'DESCRIBE', 'DENY'),
      topicAcl('other', 'User:alice', 'READ'),
    ]);
    assert.deepEqual(created.map((r) => r.error), [null, null, null, null, null]);
    mirror = await startMirror({ clusters: 'A, B', 'A.bootstrap.servers': a.bootstrap, 'B.bootstrap.servers': b.bootstrap, 'A->B.enabled': 'true', 'A->B.topics': 'orders', ...MM2_ONE_BROKER }, () => undefined);
    const expected = ['A.orders User:alice ALLOW READ', 'A.orders User:bob ALLOW READ', 'A.orders User:mallory DENY DESCRIBE'];
    const onB = await until('the ACLs of A.orders on B', async () => {
      const got = show(await adminB.describeAcls({ resourceType: 'TOPIC' }));
      return got.length >= expected.length ? got : null;
    }, 60_000);
    assert.deepEqual(onB, expected);
  } finally {
    await adminA.close();
    await adminB.close();
  }
});

// ACLs on a 3-node cluster (combined brokers + controllers, in this process):
// clients on SASL_PLAINTEXT, nodes on PLAINTEXT (their principal
// User:ANONYMOUS is a super user, as docs/security.md asks). ACLs created
// through each node (forwarded to the active controller when it is another)
// are replicated to every node's image and enforced by all of them; a
// CreateTopics with one denied topic forwards only the allowed one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import type { Acl } from '../../../src/client/acl-admin.js';
import { Producer } from '../../../src/client/producer.js';
import { startInProcessCluster, type InProcessCluster } from '../../helpers/in-process-cluster.js';
import { PLAIN_JAAS } from '../../helpers/sasl.js';
import { uniqueName } from '../../helpers/records.js';
import { until } from '../../helpers/until.js';

const NODES = 3;
const CLUSTER_ID = 'QWNsQ2x1c3RlclRlc3QxMQ';
const ADMIN = { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } as const;
const ALICE = { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } as const;

const allow = (resourceType: Acl['resourceType'], resourceName: string, operation: Acl['operation'], patternType: Acl['patternType'] = 'LITERAL'): Acl => ({ resourceType, resourceName, patternType, principal: 'User:alice', host: '*', operation, permissionType: 'ALLOW' });

describe('3 nodes: ACLs are metadata, enforced by every node', { timeout: 150_000 }, () => {
  let cluster: InProcessCluster;
  const saslPorts: number[] = [];
  const at = (i: number): string => `127.0.0.1:${saslPorts[i]}`;

  before(async () => {
    cluster = await startInProcessCluster({
      nodes: NODES,
      clusterId: CLUSTER_ID,
      portsPerNode: 3,
      dirPrefix: 'trib-acl',
      nodeConfig: (_id, [plain, sasl, controller]) => ({
        listeners: `PLAINTEXT://127.0.0.1:${plain},SASL_PLAINTEXT://127.0.0.1:${sasl},CONTROLLER://127.0.0.1:${controller}`,
        'inter.broker.listener.name': 'PLAINTEXT',
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users': 'User:admin;User:ANONYMOUS',
        'offsets.topic.num.partitions': '3',
      }),
    });
    for (const id of cluster.nodeIds) saslPorts.push(cluster.ports(id)[1] as number);
  });
  after(() => cluster.close());

  it('ACLs made through each node reach every node; produce is refused, then allowed everywhere', async () => {
    const topic = uniqueName('acl-rf3');
    const admins = await Promise.all(saslPorts.map((_p, i) => Admin.connect({ bootstrap: at(i), sasl: ADMIN })));
    try {
      assert.equal((await admins[0]?.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 3 }]))?.[0]?.error, null);
      const producer = await Producer.connect({ clusterOptions: { bootstrap: at(1), retries: 0 }, sasl: ALICE, acks: -1, retries: 0 });
      try {
        await assert.rejects(producer.send({ topic, value: Buffer.from('no') }), /TOPIC_AUTHORIZATION_FAILED|authoriz/i);
      } finally {
        await producer.close();
      }
      // One ACL through each node: at least two of them are forwarded to the active controller.
      const grants = [allow('TOPIC', topic, 'WRITE'), allow('TOPIC', topic, 'DESCRIBE'), allow('CLUSTER', 'kafka-cluster', 'IDEMPOTENT_WRITE')];
      for (const [i, acl] of grants.entries()) assert.deepEqual((await admins[i]?.createAcls([acl]))?.map((r) => r.error), [null]);
      for (const admin of admins) {
        await until('every node describes the three ACLs', async () => ((await admin.describeAcls({ principal: 'User:alice' })).length === 3 ? true : null));
      }
      for (let i = 0; i < NODES; i++) {
        const p = await Producer.connect({ clusterOptions: { bootstrap: at(i) }, sasl: ALICE, acks: -1 });
        try {
          await p.send({ topic, value: Buffer.from(`yes-${i}`) });
        } finally {
          await p.close();
        }
      }
    } finally {
      await Promise.all(admins.map((a) => a.close()));
    }
  });

  it('a CreateTopics with one denied topic creates only the allowed one, through any node', async () => {
    const admin = await Admin.connect({ bootstrap: at(0), sasl: ADMIN });
    try {
      assert.deepEqual((await admin.createAcls([allow('TOPIC', 'alice-', 'CREATE', 'PREFIXED')])).map((r) => r.error), [null]);
      for (let i = 0; i < NODES; i++) {
        const a = await Admin.connect({ bootstrap: at(i), sasl: ALICE });
        try {
          const mine = uniqueName('alice-t');
          const other = uniqueName('bob-t');
          const created = await until('alice may create on every node', async () => {
            const r = await a.createTopics([{ name: mine, numPartitions: 1, replicationFactor: 1 }, { name: other, numPartitions: 1, replicationFactor: 1 }]);
            return r.find((x) => x.name === mine)?.error === null ? r : null;
          });
          assert.equal(created.find((x) => x.name === other)?.error?.kafkaErrorName, 'TOPIC_AUTHORIZATION_FAILED');
          // The admin asks node 1, whose metadata may not have the topic created through another node yet.
          const names = await until('the created topic is listed', async () => {
            const listed = (await admin.listTopics()).map((t) => (typeof t === 'string' ? t : t.name));
            return listed.includes(mine) ? listed : null;
          });
          assert.ok(names.includes(mine) && !names.includes(other), `node ${i + 1}: ${names.join(',')}`);
        } finally {
          await a.close();
        }
      }
    } finally {
      await admin.close();
    }
  });
});

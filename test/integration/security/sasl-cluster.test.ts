// A 3-node cluster (combined brokers + controllers, in this process) whose
// clients connect over a SASL_PLAINTEXT listener while the nodes replicate
// and elect over their own PLAINTEXT inter-broker and CONTROLLER listeners
// (inter.broker.listener.name; docs/security.md). A SCRAM user created
// through one node (forwarded to the active controller) can log in on every
// node once the metadata log has replicated it; a replicated topic (RF 3)
// is produced and read back over SASL; Metadata over the SASL listener
// names the SASL ports.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Producer } from '../../../src/client/producer.js';
import { Consumer } from '../../../src/client/consumer.js';
import { startInProcessCluster, type InProcessCluster } from '../../helpers/in-process-cluster.js';
import { PLAIN_JAAS } from '../../helpers/sasl.js';
import { uniqueName } from '../../helpers/records.js';

const NODES = 3;
const CLUSTER_ID = 'U2FzbENsdXN0ZXJUZXN0MQ';

describe('3 nodes: SASL_PLAINTEXT for clients, PLAINTEXT between nodes', { timeout: 120_000 }, () => {
  let cluster: InProcessCluster;
  const saslPorts: number[] = [];

  before(async () => {
    cluster = await startInProcessCluster({
      nodes: NODES,
      clusterId: CLUSTER_ID,
      portsPerNode: 3,
      dirPrefix: 'trib-sasl',
      nodeConfig: (_id, [plain, sasl, controller]) => ({
        listeners: `PLAINTEXT://127.0.0.1:${plain},SASL_PLAINTEXT://127.0.0.1:${sasl},CONTROLLER://127.0.0.1:${controller}`,
        'inter.broker.listener.name': 'PLAINTEXT',
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
        'offsets.topic.num.partitions': '3',
      }),
    });
    for (const id of cluster.nodeIds) saslPorts.push(cluster.ports(id)[1] as number);
  });
  after(() => cluster.close());

  it('a SCRAM user made on one node logs in on all; an RF-3 topic round-trips over SASL', async () => {
    const admin = await Admin.connect({ bootstrap: `127.0.0.1:${saslPorts[0]}`, sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    const topic = uniqueName('sasl-rf3');
    try {
      // Each node serves once it is registered, but another may still be registering: wait until all three are listed.
      let md = await admin.describeCluster();
      for (let i = 0; i < 100 && md.brokers.length < saslPorts.length; i++) {
        await new Promise((r) => setTimeout(r, 100));
        md = await admin.describeCluster();
      }
      assert.deepEqual(md.brokers.map((b) => b.port).sort(), [...saslPorts].sort(), 'brokers are described with their SASL_PLAINTEXT endpoints');
      assert.deepEqual((await admin.alterUserScramCredentials([{ user: 'carol', mechanism: 'SCRAM-SHA-256', password: 'carol-secret' }])).map((r) => r.error), [null]);
      const created = await admin.createTopics([{ name: topic, numPartitions: 3, replicationFactor: 3 }]);
      assert.equal(created[0]?.error, null);
    } finally {
      await admin.close();
    }
    const sasl = { mechanism: 'SCRAM-SHA-256', username: 'carol', password: 'carol-secret' } as const;
    for (const p of saslPorts) {
      // The credential reaches each node with the metadata log; allow for the replication delay.
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          const a = await Admin.connect({ bootstrap: `127.0.0.1:${p}`, sasl, retries: 0 });
          await a.close();
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    }
    const producer = await Producer.connect({ clusterOptions: { bootstrap: saslPorts.map((p) => `127.0.0.1:${p}`).join(',') }, sasl, acks: -1 });
    for (let i = 0; i < 30; i++) await producer.send({ topic, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) });
    await producer.close();
    const consumer = new Consumer({ bootstrap: `127.0.0.1:${saslPorts[2]}`, sasl, autoOffsetReset: 'earliest' });
    try {
      consumer.assign([0, 1, 2].map((partition) => ({ topic, partition })));
      const seen = new Set<string>();
      for await (const r of consumer) {
        seen.add(String(r.value));
        if (seen.size === 30) break;
      }
      assert.equal(seen.size, 30);
    } finally {
      await consumer.close();
    }
  });
});

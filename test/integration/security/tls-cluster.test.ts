// A 3-node cluster (combined brokers + controllers, in this process) whose
// nodes replicate over a SASL_SSL inter-broker listener and elect over a
// SASL_SSL controller listener (docs/security.md, "Between nodes"): each
// node logs in to the others with sasl.mechanism.inter.broker.protocol /
// sasl.mechanism.controller.protocol and the username/password of the
// listener's JAAS config, over TLS checked against the cluster's CA. An
// RF-3 topic is produced with acks=all, its leader is stopped, the
// partition fails over and every record is read back from the survivors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Producer } from '../../../src/client/producer.js';
import { Consumer } from '../../../src/client/consumer.js';
import { startInProcessCluster, type InProcessCluster } from '../../helpers/in-process-cluster.js';
import { PLAIN_JAAS } from '../../helpers/sasl.js';
import { createTestPki, KEY_PASSWORD, type TestPki } from '../../helpers/tls.js';
import { uniqueName } from '../../helpers/records.js';

const NODES = 3;
const CLUSTER_ID = 'VGxzQ2x1c3RlclRlc3QwMQ';
const RECORDS = 20;

describe('3 nodes: SASL_SSL between brokers and between controllers', { timeout: 180_000 }, () => {
  let cluster: InProcessCluster | undefined;
  const ports: number[] = [];
  let pki: TestPki;
  const sasl = { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } as const;
  const tls = (): { ca: string } => ({ ca: pki.ca });

  before(async () => {
    pki = createTestPki();
    cluster = await startInProcessCluster({
      nodes: NODES,
      clusterId: CLUSTER_ID,
      portsPerNode: 2,
      dirPrefix: 'trib-tls',
      nodeConfig: (_id, [internal, controller]) => ({
        listeners: `INTERNAL://127.0.0.1:${internal},CONTROLLER://127.0.0.1:${controller}`,
        'listener.security.protocol.map': 'INTERNAL:SASL_SSL,CONTROLLER:SASL_SSL',
        'inter.broker.listener.name': 'INTERNAL',
        'sasl.mechanism.inter.broker.protocol': 'PLAIN',
        'sasl.mechanism.controller.protocol': 'PLAIN',
        'listener.name.internal.plain.sasl.jaas.config': PLAIN_JAAS,
        'listener.name.controller.plain.sasl.jaas.config': PLAIN_JAAS,
        'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
        // Node-wide stores: the server side of both listeners and the client side of every inter-node link.
        'ssl.keystore.location': pki.server.keystoreFile,
        'ssl.key.password': KEY_PASSWORD,
        'ssl.truststore.location': pki.caFile,
        'offsets.topic.num.partitions': '1',
        'min.insync.replicas': '2',
      }),
    });
    for (const id of cluster.nodeIds) ports.push(cluster.ports(id)[0] as number);
  });
  after(async () => {
    await cluster?.close();
    pki?.cleanup();
  });

  it('replicates an RF-3 topic over SASL_SSL and fails over when the leader stops', async () => {
    const bootstrap = ports.map((p) => `127.0.0.1:${p}`).join(',');
    const topic = uniqueName('tls-rf3');
    const admin = await Admin.connect({ bootstrap, tls: tls(), sasl });
    let leader = -1;
    try {
      // Each node serves once it is registered, but another may still be registering: allow it a moment.
      let brokers = (await admin.describeCluster()).brokers.length;
      for (let i = 0; i < 100 && brokers < NODES; i++) {
        await new Promise((r) => setTimeout(r, 100));
        brokers = (await admin.describeCluster()).brokers.length;
      }
      assert.equal(brokers, NODES, 'every node registered over the SASL_SSL controller listener');
      assert.equal((await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 3 }]))[0]?.error, null);
      const deadline = Date.now() + 20_000;
      for (;;) {
        const p = (await admin.describeTopics([topic]))[0]?.partitions[0];
        if (p !== undefined && p.leader >= 0 && p.isr.length === 3) {
          leader = p.leader;
          break;
        }
        assert.ok(Date.now() < deadline, `ISR never reached 3: ${JSON.stringify(p)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await admin.close();
    }
    const producer = await Producer.connect({ clusterOptions: { bootstrap }, tls: tls(), sasl, acks: -1 });
    for (let i = 0; i < RECORDS / 2; i++) await producer.send({ topic, partition: 0, value: Buffer.from(`v${i}`) });
    await producer.close();

    // The followers fetched over SASL_SSL (acks=all with min.insync.replicas=2 needed them); now the leader goes.
    await cluster?.stopNode(leader, 'failover test');
    const survivors = ports.filter((_, i) => i !== leader - 1).map((p) => `127.0.0.1:${p}`).join(',');
    const after = await Producer.connect({ clusterOptions: { bootstrap: survivors }, tls: tls(), sasl, acks: -1 });
    for (let i = RECORDS / 2; i < RECORDS; i++) await after.send({ topic, partition: 0, value: Buffer.from(`v${i}`) });
    await after.close();

    const consumer = new Consumer({ bootstrap: survivors, tls: tls(), sasl, autoOffsetReset: 'earliest' });
    try {
      consumer.assign([{ topic, partition: 0 }]);
      const seen: string[] = [];
      for await (const r of consumer) {
        seen.push(String(r.value));
        if (seen.length === RECORDS) break;
      }
      assert.deepEqual(seen, Array.from({ length: RECORDS }, (_, i) => `v${i}`));
    } finally {
      await consumer.close();
    }
  });
});

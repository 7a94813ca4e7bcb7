// Real clients manage and meet ACLs (docs/security.md): kafkajs createAcls /
// describeAcls / deleteAcls and kafka-python's KafkaAdminClient create_acls /
// describe_acls / delete_acls against a broker with the StandardAuthorizer,
// and a kafkajs producer refused with TOPIC_AUTHORIZATION_FAILED until an
// ACL lets it write. (Debian's confluent-kafka-python 1.7.0 has no ACL admin
// API; librdkafka's enforcement side is covered by the matrix test's errors.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import kafkajs from 'kafkajs';
import { Admin } from '../../src/client/admin.js';
import { startSaslBroker, type SaslBroker } from '../helpers/sasl.js';
import { uniqueName } from '../helpers/records.js';
import { runPythonJson } from '../helpers/run.js';

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, ResourcePatternTypes, logLevel } = kafkajs;

const AUTHORIZER = { 'authorizer.class.name': 'standard', 'super.users': 'User:admin' };

describe('ACL admin from real clients', { timeout: 180_000 }, () => {
  let broker: SaslBroker;
  let topic: string;
  const bootstrap = (): string => `127.0.0.1:${broker.saslPort}`;
  const kafka = (username: string, password: string) =>
    new Kafka({ brokers: [bootstrap()], clientId: `acl-${username}`, sasl: { mechanism: 'plain', username, password }, logLevel: logLevel.NOTHING, retry: { retries: 0 } });

  before(async () => {
    broker = await startSaslBroker(AUTHORIZER);
    topic = uniqueName('acl-compat');
    const admin = await Admin.connect({ bootstrap: bootstrap(), sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    try {
      assert.equal((await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]))[0]?.error, null);
    } finally {
      await admin.close();
    }
  });
  after(async () => {
    await broker?.stop();
  });

  it('kafkajs createAcls, describeAcls, deleteAcls', async () => {
    const admin = kafka('admin', 'admin-secret').admin();
    await admin.connect();
    try {
      const entry = { resourceType: AclResourceTypes.TOPIC, resourceName: topic, resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:alice', host: '*', operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.ALLOW };
      const prefixed = { ...entry, resourceName: 'team-', resourcePatternType: ResourcePatternTypes.PREFIXED, operation: AclOperationTypes.READ };
      assert.equal(await admin.createAcls({ acl: [entry, prefixed] }), true);
      const described = await admin.describeAcls({ resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY, principal: 'User:alice', operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY });
      const seen = described.resources.flatMap((r) => r.acls.map((a) => `${r.resourceType}/${r.resourceName}/${r.resourcePatternType}/${a.principal}/${a.operation}/${a.permissionType}`)).sort();
      assert.deepEqual(seen, [`2/${topic}/3/User:alice/4/3`, '2/team-/4/User:alice/3/3'].sort());
      const match = await admin.describeAcls({ resourceType: AclResourceTypes.TOPIC, resourceName: 'team-orders', resourcePatternType: ResourcePatternTypes.MATCH, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY });
      assert.deepEqual(match.resources.map((r) => r.resourceName), ['team-'], 'MATCH finds the prefixed ACL that applies');
      const deleted = await admin.deleteAcls({ filters: [{ resourceType: AclResourceTypes.TOPIC, resourcePatternType: ResourcePatternTypes.PREFIXED, resourceName: 'team-', principal: 'User:alice', operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY }] });
      assert.equal(deleted.filterResponses[0]?.errorCode, 0);
      assert.equal(deleted.filterResponses[0]?.matchingAcls.length, 1);
      const left = await admin.describeAcls({ resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY, principal: 'User:alice', operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY });
      assert.deepEqual(left.resources.map((r) => r.resourceName), [topic]);
    } finally {
      await admin.disconnect();
    }
  });

  it('a kafkajs producer without WRITE is refused with TOPIC_AUTHORIZATION_FAILED; with the ACL it writes', async () => {
    const own = await Admin.connect({ bootstrap: bootstrap(), sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    const producer = kafka('alice', 'alice-secret').producer();
    try {
      const denied = uniqueName('acl-denied');
      assert.equal((await own.createTopics([{ name: denied, numPartitions: 1, replicationFactor: 1 }]))[0]?.error, null);
      await producer.connect();
      await assert.rejects(producer.send({ topic: denied, messages: [{ value: 'no' }] }), (err: Error & { type?: string; cause?: { type?: string } }) => {
        const text = `${err.name} ${err.message} ${err.type ?? ''} ${err.cause?.type ?? ''}`;
        return /TOPIC_AUTHORIZATION_FAILED|not authorized/i.test(text);
      });
      const [r] = await own.createAcls([{ resourceType: 'TOPIC', resourceName: denied, patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'WRITE', permissionType: 'ALLOW' }]);
      assert.equal(r?.error, null);
      const sent = await producer.send({ topic: denied, messages: [{ value: 'yes' }] });
      assert.equal(sent[0]?.errorCode, 0);
    } finally {
      await producer.disconnect();
      await own.close();
    }
  });

  it('kafka-python KafkaAdminClient create_acls, describe_acls, delete_acls', async () => {
    const r = await runPythonJson<{ created: number; createFailed: string[]; described: string[][]; deleted: number; after: number }>(
      'acl_admin.py', 'kafka_python', { bootstrap: bootstrap(), username: 'admin', password: 'admin-secret', topic, principal: 'User:bob' }, { timeoutMs: 90_000 },
    );
    assert.deepEqual(r.createFailed, []);
    assert.equal(r.created, 1);
    assert.deepEqual(r.described, [['User:bob', 'READ', 'ALLOW', 'TOPIC', topic]]);
    assert.equal(r.deleted, 1);
    assert.equal(r.after, 0);
  });
});

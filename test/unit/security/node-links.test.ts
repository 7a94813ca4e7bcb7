// What inter-node connections are opened with (src/security/node-links.ts):
// nothing for PLAINTEXT; TLS with this node's stores for SSL; SASL with
// sasl.mechanism.*.protocol and the listener's JAAS username/password for
// SASL_PLAINTEXT; both for SASL_SSL; a broker-only node finds the
// controller listener's protocol in listener.security.protocol.map.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrokerConfig } from '../../../src/config/broker.js';
import { nodeLinkAuthorizationWarnings, nodeLinkSecurity } from '../../../src/security/node-links.js';
import { createTestPki, KEY_PASSWORD, type TestPki } from '../../helpers/tls.js';

const JAAS = (user: string): string => `org.apache.kafka.common.security.plain.PlainLoginModule required username="${user}" password="${user}-secret" user_${user}="${user}-secret";`;

describe('nodeLinkSecurity', () => {
  let pki: TestPki;
  before(() => {
    pki = createTestPki();
  });
  after(() => pki.cleanup());

  const base = (): Record<string, string> => ({
    'process.roles': 'broker,controller', 'node.id': '1', 'controller.quorum.voters': '1@127.0.0.1:9093,2@127.0.0.1:9095', 'controller.listener.names': 'CONTROLLER',
    'ssl.keystore.location': pki.server.keystoreFile, 'ssl.key.password': KEY_PASSWORD, 'ssl.truststore.location': pki.caFile,
  });

  it('PLAINTEXT links get nothing; SSL links get the node\'s stores', () => {
    const plain = parseBrokerConfig({ ...base(), listeners: 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093' });
    assert.deepEqual(nodeLinkSecurity(plain, 'inter.broker'), {});
    assert.deepEqual(nodeLinkSecurity(plain, 'controller'), {});
    const ssl = parseBrokerConfig({ ...base(), listeners: 'SSL://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093', 'inter.broker.listener.name': 'SSL', 'listener.security.protocol.map': 'SSL:SSL,CONTROLLER:SSL' });
    for (const link of ['inter.broker', 'controller'] as const) {
      const s = nodeLinkSecurity(ssl, link);
      assert.equal(s.sasl, undefined);
      assert.match(String(s.tls?.cert), /BEGIN CERTIFICATE/);
      assert.match(String(s.tls?.ca), /BEGIN CERTIFICATE/);
      assert.equal(s.tls?.passphrase, KEY_PASSWORD);
      assert.equal(s.tls?.minVersion, 'TLSv1.2');
    }
  });

  it('SASL links log in with sasl.mechanism.*.protocol and the listener\'s own username and password; SASL_SSL adds TLS', () => {
    const config = parseBrokerConfig({
      ...base(),
      listeners: 'INTERNAL://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'listener.security.protocol.map': 'INTERNAL:SASL_PLAINTEXT,CONTROLLER:SASL_SSL',
      'inter.broker.listener.name': 'INTERNAL',
      'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
      'listener.name.internal.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
      'listener.name.internal.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="replicator" password="r-secret";',
      'listener.name.controller.plain.sasl.jaas.config': JAAS('ctl'),
    });
    assert.deepEqual(nodeLinkSecurity(config, 'inter.broker'), { sasl: { mechanism: 'SCRAM-SHA-512', username: 'replicator', password: 'r-secret' } });
    const controller = nodeLinkSecurity(config, 'controller');
    assert.deepEqual(controller.sasl, { mechanism: 'PLAIN', username: 'ctl', password: 'ctl-secret' });
    assert.match(String(controller.tls?.cert), /BEGIN CERTIFICATE/);
  });

  it('a broker-only node takes the controller listener\'s protocol from the map and its credentials from its JAAS config', () => {
    const config = parseBrokerConfig({
      ...base(), 'process.roles': 'broker', 'node.id': '3',
      listeners: 'PLAINTEXT://127.0.0.1:9096',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT',
      'listener.name.controller.plain.sasl.jaas.config': JAAS('broker3'),
    });
    assert.deepEqual(nodeLinkSecurity(config, 'controller'), { sasl: { mechanism: 'PLAIN', username: 'broker3', password: 'broker3-secret' } });
    const missing = parseBrokerConfig({ ...base(), 'process.roles': 'broker', 'node.id': '3', listeners: 'PLAINTEXT://127.0.0.1:9096', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT' });
    assert.throws(() => nodeLinkSecurity(missing, 'controller'), /sasl\.mechanism\.controller\.protocol: the JAAS config of listener CONTROLLER needs username/);
  });
});

describe('nodeLinkAuthorizationWarnings', () => {
  const sasl = (username: string) => ({ sasl: { mechanism: 'PLAIN' as const, username, password: 'x' } });
  it('names each SASL user of the links that is not a super user, once', () => {
    const warnings = nodeLinkAuthorizationWarnings({ interBroker: sasl('broker'), controller: sasl('broker') }, new Set(['User:admin']));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /User:broker, which is not in super.users/);
  });
  it('is quiet for super users, without an authorizer, and for links without SASL', () => {
    assert.deepEqual(nodeLinkAuthorizationWarnings({ interBroker: sasl('broker'), controller: sasl('ctl') }, new Set(['User:broker', 'User:ctl'])), []);
    assert.deepEqual(nodeLinkAuthorizationWarnings({ interBroker: sasl('broker'), controller: {} }, null), []);
    assert.deepEqual(nodeLinkAuthorizationWarnings({ interBroker: {}, controller: {} }, new Set()), []);
    assert.deepEqual(nodeLinkAuthorizationWarnings(undefined, new Set()), []);
  });
});

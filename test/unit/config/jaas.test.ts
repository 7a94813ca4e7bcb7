import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJaasConfig, plainUsers } from '../../../src/config/jaas.js';
import { parseBrokerConfig } from '../../../src/config/broker.js';
import { ConfigError } from '../../../src/config/errors.js';

test('Kafka\'s PlainLoginModule line parses: options, quoted values with escapes, user_ entries', () => {
  const m = parseJaasConfig('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="al\\"ice" user_bob=bare;');
  assert.ok(typeof m !== 'string');
  assert.equal(m.loginModule, 'org.apache.kafka.common.security.plain.PlainLoginModule');
  assert.equal(m.flag, 'required');
  assert.deepEqual([...plainUsers(m)], [['admin', 'admin-secret'], ['alice', 'al"ice'], ['bob', 'bare']]);
});

test('bad JAAS configs say why', () => {
  assert.match(String(parseJaasConfig('Module required user_a="x"')), /must end with ";"/);
  assert.match(String(parseJaasConfig('Module mandatory;')), /control flag/);
  assert.match(String(parseJaasConfig('Module required user_a="x;')), /not closed/);
  assert.match(String(parseJaasConfig('Module required a="1"; Other required;')), /exactly one/);
  assert.match(String(parseJaasConfig('Module required a b;')), /key="value"/);
});

test('listener.name.<listener>.* keys: known keys per listener, values checked, secrets never echoed', () => {
  const jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";';
  const c = parseBrokerConfig({
    listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': jaas,
    'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-512',
  });
  assert.equal(c.listenerOverride('SASL_PLAINTEXT', 'plain.sasl.jaas.config'), jaas);
  assert.equal(c.listenerOverride('sasl_plaintext', 'sasl.enabled.mechanisms'), 'PLAIN,SCRAM-SHA-512');
  const problems = (raw: Record<string, string>): string[] => {
    try {
      parseBrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', ...raw });
      return [];
    } catch (err) {
      return (err as ConfigError).problems.map((p) => p.message);
    }
  };
  assert.match(problems({ 'listener.name.sasl_plaintext.log.retention.ms': '1' }).join(), /cannot be set per listener/);
  assert.match(problems({ 'listener.name.other.sasl.enabled.mechanisms': 'PLAIN' }).join(), /OTHER is not one of listeners/);
  assert.match(problems({ 'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'GSSAPI' }).join(), /GSSAPI/);
  const bad = problems({ 'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'Module required user_alice="topsecret"' }).join();
  assert.match(bad, /not a valid JAAS config/);
  assert.doesNotMatch(bad, /topsecret/);
  assert.match(problems({}).join(), /SASL_PLAINTEXT offers PLAIN but no JAAS config/);
  assert.deepEqual(problems({ 'sasl.enabled.mechanisms': 'SCRAM-SHA-256' }), []);
});

test('a SASL listener between nodes must offer the nodes\' mechanism and carry their own username and password', () => {
  const base = {
    'process.roles': 'broker,controller', 'node.id': '1', 'controller.quorum.voters': '1@127.0.0.1:9093', 'controller.listener.names': 'CONTROLLER',
    listeners: 'SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:9093', 'inter.broker.listener.name': 'SASL_PLAINTEXT',
  };
  assert.throws(() => parseBrokerConfig({ ...base, 'sasl.enabled.mechanisms': 'SCRAM-SHA-256' }), /sasl\.mechanism\.inter\.broker\.protocol: SASL_PLAINTEXT is the inter\.broker listener but does not offer PLAIN/);
  assert.throws(
    () => parseBrokerConfig({ ...base, 'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="x";' }),
    /needs username="\.\.\." password="\.\.\." for this node to log in/,
  );
  const ok = parseBrokerConfig({ ...base, 'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";' });
  assert.equal(ok.interBrokerListenerName, 'SASL_PLAINTEXT');
});

test('an SSL or SASL_SSL listener without a key store is refused when the broker settings are built', async () => {
  const { settingsFromConfig } = await import('../../../src/broker/settings.js');
  for (const protocol of ['SSL', 'SASL_SSL']) {
    const config = parseBrokerConfig({ listeners: `PLAINTEXT://127.0.0.1:0,${protocol}://127.0.0.1:0`, 'sasl.enabled.mechanisms': 'SCRAM-SHA-256' });
    assert.throws(() => settingsFromConfig(config), new RegExp(`listener ${protocol}: a TLS listener needs a key store`));
  }
  const jks = parseBrokerConfig({ listeners: 'SSL://127.0.0.1:0', 'inter.broker.listener.name': 'SSL', 'listener.name.ssl.ssl.keystore.type': 'JKS', 'ssl.keystore.location': '/tmp/x.jks' });
  assert.throws(() => settingsFromConfig(jks), /ssl\.keystore\.type=JKS is not supported/);
  const missing = parseBrokerConfig({ listeners: 'SSL://127.0.0.1:0', 'inter.broker.listener.name': 'SSL', 'listener.name.ssl.ssl.keystore.location': '/nonexistent/server.pem' });
  assert.throws(() => settingsFromConfig(missing), /ssl\.keystore\.location: cannot read \/nonexistent\/server\.pem \(no such file\)/);
  const rules = parseBrokerConfig({ listeners: 'SSL://127.0.0.1:0', 'inter.broker.listener.name': 'SSL', 'ssl.principal.mapping.rules': 'RULE:^CN=(.*)$/$1/X' });
  assert.throws(() => settingsFromConfig(rules), /ssl\.principal\.mapping\.rules: invalid rule|a TLS listener needs a key store/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LONG_MAX } from '../../../src/config/def.js';
import { BROKER_CONFIGS, loadBrokerConfig, parseBrokerConfig, type BrokerConfigKey } from '../../../src/config/broker.js';
import { ConfigError } from '../../../src/config/errors.js';
import { parseProperties } from '../../../src/config/properties.js';

const KEYS = Object.keys(BROKER_CONFIGS) as BrokerConfigKey[];
const repoRoot = resolve(import.meta.dirname, '../../../..');

function problemsOf(fn: () => unknown): { key: string; message: string; origin?: string }[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

/** Kafka 3.x broker defaults (KafkaConfig), written out independently; '' = null. */
const KAFKA_DEFAULTS: Partial<Record<BrokerConfigKey, string>> = {
  'broker.id': '', 'controller.quorum.voters': '', 'controller.listener.names': '', 'advertised.listeners': '',
  'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
  'inter.broker.listener.name': '', 'security.inter.broker.protocol': 'PLAINTEXT', 'broker.rack': '', 'log.dirs': '', 'metadata.log.dir': '',
  'num.partitions': '1', 'default.replication.factor': '1', 'auto.create.topics.enable': 'true', 'delete.topic.enable': 'true',
  'min.insync.replicas': '1', 'unclean.leader.election.enable': 'false', 'compression.type': 'producer', 'message.max.bytes': '1048588',
  'log.segment.bytes': '1073741824', 'log.roll.hours': '168', 'log.roll.jitter.hours': '0', 'log.retention.minutes': '', 'log.retention.hours': '168',
  'log.retention.bytes': '-1', 'log.retention.check.interval.ms': '300000', 'log.cleanup.policy': 'delete', 'log.cleaner.enable': 'true',
  'log.cleaner.backoff.ms': '15000', 'log.cleaner.delete.retention.ms': '86400000', 'log.cleaner.min.compaction.lag.ms': '0',
  'log.cleaner.max.compaction.lag.ms': String(LONG_MAX), 'log.cleaner.min.cleanable.ratio': '0.5', 'log.index.interval.bytes': '4096',
  'log.index.size.max.bytes': '10485760', 'log.flush.interval.messages': String(LONG_MAX), 'log.flush.scheduler.interval.ms': String(LONG_MAX),
  'log.flush.offset.checkpoint.interval.ms': '60000', 'log.flush.start.offset.checkpoint.interval.ms': '60000', 'log.segment.delete.delay.ms': '60000',
  'log.preallocate': 'false', 'log.message.timestamp.type': 'CreateTime', 'log.message.timestamp.difference.max.ms': String(LONG_MAX),
  'log.message.timestamp.before.max.ms': String(LONG_MAX), 'log.message.timestamp.after.max.ms': String(LONG_MAX), 'log.message.downconversion.enable': 'true',
  'socket.request.max.bytes': '104857600', 'queued.max.requests': '500', 'connections.max.idle.ms': '600000', 'max.connections': '2147483647',
  'max.connections.per.ip': '2147483647', 'max.connections.per.ip.overrides': '', 'quota.window.num': '11', 'quota.window.size.seconds': '1', 'fetch.max.bytes': '57671680', 'replica.lag.time.max.ms': '30000', 'replica.fetch.max.bytes': '1048576',
  'replica.fetch.min.bytes': '1', 'replica.fetch.wait.max.ms': '500', 'replica.fetch.response.max.bytes': '10485760', 'replica.fetch.backoff.ms': '1000', 'replica.selector.class': '', 'max.incremental.fetch.session.cache.slots': '1000', 'transaction.partition.verification.enable': 'true',
  'controller.quorum.election.timeout.ms': '1000', 'controller.quorum.fetch.timeout.ms': '2000', 'controller.quorum.election.backoff.max.ms': '1000',
  'controller.quorum.append.linger.ms': '25', 'controller.quorum.request.timeout.ms': '2000', 'controller.quorum.retry.backoff.ms': '20',
  'broker.heartbeat.interval.ms': '2000', 'broker.session.timeout.ms': '9000', 'auto.leader.rebalance.enable': 'true', 'leader.imbalance.check.interval.seconds': '300', 'metadata.log.segment.bytes': '1073741824', 'metadata.log.segment.ms': '604800000',
  'metadata.max.retention.bytes': '104857600', 'metadata.max.retention.ms': '604800000', 'metadata.log.max.record.bytes.between.snapshots': '20971520',
  'metadata.max.idle.interval.ms': '500', 'group.initial.rebalance.delay.ms': '3000', 'group.min.session.timeout.ms': '6000',
  'group.max.session.timeout.ms': '1800000', 'group.max.size': '2147483647', 'offsets.topic.num.partitions': '50', 'offsets.topic.segment.bytes': '104857600',
  'offsets.retention.minutes': '10080', 'offsets.retention.check.interval.ms': '600000', 'offsets.commit.timeout.ms': '5000', 'offset.metadata.max.bytes': '4096',
  'transactional.id.expiration.ms': '604800000', 'transaction.max.timeout.ms': '900000', 'transaction.state.log.num.partitions': '50',
  'offsets.topic.replication.factor': '3', 'transaction.state.log.replication.factor': '3', 'transaction.state.log.min.isr': '2',
  'transaction.state.log.segment.bytes': '104857600', 'transaction.abort.timed.out.transaction.cleanup.interval.ms': '10000',
  'transaction.remove.expired.transaction.cleanup.interval.ms': '3600000', 'producer.id.expiration.ms': '86400000', 'producer.id.expiration.check.interval.ms': '600000',
  'sasl.jaas.config': '', 'connections.max.reauth.ms': '0', 'sasl.server.max.receive.size': '524288',
  'authorizer.class.name': '', 'super.users': '', 'allow.everyone.if.no.acl.found': 'false',
  'ssl.keystore.location': '', 'ssl.keystore.password': '', 'ssl.key.password': '', 'ssl.keystore.certificate.chain': '', 'ssl.keystore.key': '',
  'ssl.truststore.location': '', 'ssl.truststore.password': '', 'ssl.truststore.certificates': '', 'ssl.client.auth': 'none',
  'ssl.enabled.protocols': 'TLSv1.2,TLSv1.3', 'ssl.protocol': 'TLSv1.3', 'ssl.cipher.suites': '', 'ssl.principal.mapping.rules': 'DEFAULT',
  'ssl.endpoint.identification.algorithm': 'https',
};

/**
 * Where we differ from Kafka on purpose (each documented in the key's doc and kafkaDefault),
 * or the key is ours, or Kafka's default is null and resolved through a fallback key.
 */
const OUR_DEFAULTS: Partial<Record<BrokerConfigKey, string>> = {
  'node.id': '1', 'process.roles': 'broker,controller', 'listeners': 'PLAINTEXT://127.0.0.1:9092', 'log.dir': './data',
  'cluster.id': '',
  'log.retention.ms': '604800000', 'log.roll.ms': '604800000', 'log.roll.jitter.ms': '0', 'log.flush.interval.ms': String(LONG_MAX),
  'log.level': 'info', 'metrics.listeners': '', 'log.open.files.max': '0',
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
  'sasl.mechanism.inter.broker.protocol': 'PLAIN', 'sasl.mechanism.controller.protocol': 'PLAIN', 'ssl.keystore.type': '', 'ssl.truststore.type': '',
  'transaction.hanging.abort.enable': 'true', 'transaction.hanging.check.interval.ms': '60000',
};

test('every broker key has a default equal to Kafka\'s, or a documented difference', () => {
  const encode = (k: BrokerConfigKey): string => {
    const def = BROKER_CONFIGS[k];
    return def.default === null ? '' : (def.encode as (v: unknown) => string)(def.default);
  };
  for (const key of KEYS) {
    const kafka = KAFKA_DEFAULTS[key];
    const ours = OUR_DEFAULTS[key];
    assert.ok(kafka !== undefined || ours !== undefined, `no expected default written down for ${key}`);
    assert.equal(encode(key), kafka ?? ours, key);
    if (ours !== undefined && !['log.level', 'metrics.listeners', 'log.open.files.max'].includes(key)) assert.ok(BROKER_CONFIGS[key].kafkaDefault !== undefined, `${key} differs from Kafka without kafkaDefault`);
  }
});

/** Values each key must refuse, by type, plus key-specific ones. */
function badValues(key: BrokerConfigKey): string[] {
  const def = BROKER_CONFIGS[key];
  const specific: Partial<Record<BrokerConfigKey, string[]>> = {
    'listeners': ['nonsense', 'PLAINTEXT://host:99999', 'PLAINTEXT://:9092,,X://:1'],
    'advertised.listeners': ['PLAINTEXT//host:1'],
    'controller.quorum.voters': ['1@host', 'x@host:9093', '1@host:0'],
    'cluster.id': ['short', 'MkU3OEVBNTcwNTJENDM2Q!'],
    'listener.security.protocol.map': ['PLAINTEXT', 'A:TLS'],
    'controller.listener.names': ['A,,B'],
    'log.dirs': ['/a,,/b'],
    'metrics.listeners': ['ftp://x:1', 'http://x'],
    'process.roles': ['', 'brokr'],
    'log.retention.hours': ['0', '-2'],
    'log.retention.minutes': ['0'],
    'log.retention.ms': ['0', '-2'],
    'replica.selector.class': ['com.example.MySelector', 'RackAwareReplicaSelector'],
    'sasl.jaas.config': ['PlainLoginModule required user_a="x"', 'PlainLoginModule maybe;'],
    'authorizer.class.name': ['kafka.security.authorizer.AclAuthorizer', 'com.example.MyAuthorizer'],
    'max.connections.per.ip.overrides': ['10.0.0.1', '10.0.0.1:x', ':5', '10.0.0.1:-1'],
    'ssl.enabled.protocols': ['SSLv3', 'TLSv1.2,TLSv1'],
  };
  const byType: Record<string, string[]> = {
    boolean: ['maybe'], int: ['abc', '1.5', '99999999999'], long: ['abc', '1e3'], double: ['abc'], enum: ['not-a-choice'], list: [], string: [], password: [],
  };
  const out = [...(specific[key] ?? []), ...(byType[def.type] ?? [])];
  if (def.type === 'list' && def.allowed !== undefined) out.push('not-a-choice');
  const min = (def.expected.match(/>= (-?\d+)|in \[(-?\d+),/) ?? []).slice(1).find((m) => m !== undefined);
  if (min !== undefined) out.push(String(Number(min) - 1));
  return out;
}

/** Free-form strings: any text is a valid value (checked across keys, if at all). */
const FREE_FORM = new Set<BrokerConfigKey>(['super.users', 'broker.id', 'inter.broker.listener.name', 'broker.rack', 'log.dir', 'metadata.log.dir',
  // Files and TLS strings: read and checked when the listener starts (src/security/tls).
  'ssl.keystore.location', 'ssl.truststore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.keystore.certificate.chain', 'ssl.keystore.key',
  'ssl.truststore.password', 'ssl.truststore.certificates', 'ssl.protocol', 'ssl.cipher.suites', 'ssl.principal.mapping.rules', 'ssl.endpoint.identification.algorithm']);

test('every broker key refuses bad values with a message naming the key', () => {
  for (const key of KEYS) {
    const values = badValues(key);
    if (values.length === 0) {
      assert.ok(FREE_FORM.has(key), `no bad values for ${key}`);
      continue;
    }
    for (const value of values) {
      const problems = problemsOf(() => parseBrokerConfig({ [key]: value }));
      assert.ok(problems.length >= 1, `${key}=${value} was accepted`);
      assert.equal(problems[0]?.key, key, `${key}=${value}: ${problems[0]?.message}`);
      assert.ok(problems[0]?.message.startsWith(`${key}: `), problems[0]?.message);
    }
  }
});

test('all problems are reported together, with where each value came from', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trib-config-'));
  try {
    const file = join(dir, 'server.properties');
    writeFileSync(file, '# test\nnum.partitions=zero\nlog.retension.hours=1\nretention.ms=5\n');
    const problems = problemsOf(() => loadBrokerConfig({ file, overrides: { 'auto.create.topics.enable': 'sure' } }));
    assert.deepEqual(problems.map((p) => [p.key, p.origin]), [
      ['num.partitions', `${file}:2`],
      ['log.retension.hours', `${file}:3`],
      ['retention.ms', `${file}:4`],
      ['auto.create.topics.enable', '--override'],
    ]);
    assert.match(problems[1]?.message ?? '', /did you mean "log\.retention\.hours"\?/);
    assert.match(problems[2]?.message ?? '', /the broker-wide default is "log\.retention\.ms"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing config file is a ConfigError that says what to check', () => {
  assert.throws(() => loadBrokerConfig({ file: '/nonexistent/dir/server.properties' }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.code, 'ERR_TRIB_CONFIG_FILE');
    assert.match(err.message, /cannot read the config file \(no such file\)/);
    return true;
  });
});

test('overrides win over the file; duplicates in the file warn; ignored Kafka keys are listed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trib-config-'));
  try {
    const file = join(dir, 's.properties');
    writeFileSync(file, 'num.partitions=3\nnum.partitions=4\nnum.io.threads=8\nzookeeper.connect=localhost:2181\n');
    const c = loadBrokerConfig({ file, overrides: { 'default.replication.factor': '1', 'num.partitions': '6' } });
    assert.equal(c.get('num.partitions'), 6);
    assert.deepEqual(c.ignored, ['num.io.threads', 'zookeeper.connect']);
    assert.equal(c.warnings.length, 3);
    assert.match(c.warnings[0] ?? '', /num\.partitions is set more than once .* \(lines 1, 2\)/);
    assert.deepEqual(c.originals, { 'num.partitions': '6', 'num.io.threads': '8', 'zookeeper.connect': 'localhost:2181', 'default.replication.factor': '1' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('log.retention.ms > minutes > hours precedence, with sources', () => {
  const ms = (raw: Record<string, string>): number => parseBrokerConfig(raw).get('log.retention.ms');
  assert.equal(ms({}), 168 * 3600_000);
  assert.equal(ms({ 'log.retention.hours': '1' }), 3600_000);
  assert.equal(ms({ 'log.retention.hours': '1', 'log.retention.minutes': '5' }), 300_000);
  assert.equal(ms({ 'log.retention.hours': '1', 'log.retention.minutes': '5', 'log.retention.ms': '42' }), 42);
  assert.equal(ms({ 'log.retention.hours': '-1' }), -1);
  assert.equal(ms({ 'log.retention.ms': '-1', 'log.retention.hours': '5' }), -1);
  const c = parseBrokerConfig({ 'log.retention.minutes': '5' });
  assert.deepEqual(c.sourceOf('log.retention.ms'), { source: 'STATIC_BROKER_CONFIG', key: 'log.retention.minutes' });
  assert.deepEqual(parseBrokerConfig({}).sourceOf('log.retention.ms'), { source: 'DEFAULT_CONFIG', key: 'log.retention.ms' });
  assert.equal(c.isExplicit('log.retention.ms'), false);
});

test('listeners: NAME://host:port, empty host, IPv6, port 0, names upper-cased, protocol from the map', () => {
  const c = parseBrokerConfig({
    listeners: 'PLAINTEXT://:9092,internal://[::1]:9094,EXT://example.com:0',
    'listener.security.protocol.map': 'INTERNAL:PLAINTEXT,EXT:SSL',
    'inter.broker.listener.name': 'INTERNAL',
  });
  assert.deepEqual(c.listeners, [
    { name: 'PLAINTEXT', host: '', port: 9092, securityProtocol: 'PLAINTEXT' },
    { name: 'INTERNAL', host: '::1', port: 9094, securityProtocol: 'PLAINTEXT' },
    { name: 'EXT', host: 'example.com', port: 0, securityProtocol: 'SSL' },
  ]);
  // advertised defaults to listeners, with the all-interfaces host replaced by loopback
  assert.deepEqual(c.advertisedListeners.map((l) => `${l.name}:${l.host}:${l.port}`), ['PLAINTEXT:127.0.0.1:9092', 'INTERNAL:::1:9094', 'EXT:example.com:0']);
  assert.equal(c.interBrokerListenerName, 'INTERNAL');
});

test('listener cross-checks: unknown protocol, duplicate names and ports, bad advertised listeners', () => {
  const keys = (raw: Record<string, string>): string[] => problemsOf(() => parseBrokerConfig(raw)).map((p) => p.message);
  assert.match(keys({ listeners: 'FOO://:9092' }).join('\n'), /listeners: listener name FOO has no security protocol; add "FOO:PLAINTEXT"/);
  assert.match(keys({ listeners: 'PLAINTEXT://:9092,PLAINTEXT://:9093' }).join('\n'), /used twice/);
  assert.match(keys({ listeners: 'PLAINTEXT://:9092,SSL://:9092' }).join('\n'), /both use port 9092/);
  assert.deepEqual(keys({ listeners: 'PLAINTEXT://:0,SSL://:0' }).filter((m) => m.includes('port')), []);
  assert.match(keys({ 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' }).join('\n'), /advertised\.listeners: PLAINTEXT has host "0\.0\.0\.0"/);
  assert.match(keys({ 'advertised.listeners': 'SSL://h:9092' }).join('\n'), /SSL is not a listener/);
  assert.match(keys({ listeners: 'A://:1', 'listener.security.protocol.map': 'A:PLAINTEXT' }).join('\n'), /no advertised listener is named PLAINTEXT/);
  assert.match(keys({ 'inter.broker.listener.name': 'PLAINTEXT', 'security.inter.broker.protocol': 'PLAINTEXT' }).join('\n'), /not both/);
});

test('KRaft quorum checks', () => {
  const msgs = (raw: Record<string, string>): string => problemsOf(() => parseBrokerConfig(raw)).map((p) => p.message).join('\n');
  assert.match(msgs({ 'process.roles': 'broker' }), /a broker-only node .* needs the controllers' addresses/);
  assert.match(msgs({ 'controller.quorum.voters': '2@h:9093' }), /this node \(node\.id=1\) is a controller but not among the voters/);
  assert.match(msgs({ 'controller.quorum.voters': '1@h:9093' }), /controller\.listener\.names: required/);
  assert.match(msgs({ 'controller.quorum.voters': '1@h:9093', 'controller.listener.names': 'CONTROLLER' }), /CONTROLLER is not in listeners/);
  assert.match(msgs({ 'controller.quorum.voters': '1@h:9093,1@g:9093' }), /node id 1 appears twice/);
  const ok = parseBrokerConfig({
    'controller.quorum.voters': '1@localhost:9093', 'controller.listener.names': 'CONTROLLER',
    listeners: 'PLAINTEXT://:9092,CONTROLLER://:9093', 'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
  });
  assert.deepEqual(ok.quorumVoters, [{ id: 1, host: 'localhost', port: 9093 }]);
  assert.deepEqual(ok.advertisedListeners.map((l) => l.name), ['PLAINTEXT']);
  assert.match(msgs({ 'controller.quorum.voters': '1@localhost:9093', 'controller.listener.names': 'CONTROLLER', listeners: 'PLAINTEXT://:9092,CONTROLLER://:9093',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT', 'advertised.listeners': 'PLAINTEXT://h:9092,CONTROLLER://h:9093' }), /CONTROLLER is a controller listener/);
});

test('node.id / broker.id, log dirs, other cross-key checks', () => {
  assert.equal(parseBrokerConfig({ 'broker.id': '7' }).nodeId, 7);
  assert.equal(parseBrokerConfig({ 'broker.id': '7', 'node.id': '7' }).nodeId, 7);
  assert.match(problemsOf(() => parseBrokerConfig({ 'broker.id': '7', 'node.id': '8' }))[0]?.message ?? '', /broker\.id: 7 differs from node\.id 8/);
  assert.deepEqual(parseBrokerConfig({}, { cwd: '/srv' }).logDirs, ['/srv/data']);
  assert.deepEqual(parseBrokerConfig({ 'log.dir': '/x', 'log.dirs': '/a, b' }, { cwd: '/srv' }).logDirs, ['/a', '/srv/b']);
  assert.equal(parseBrokerConfig({ 'log.dirs': '/a,/b' }).metadataLogDir, '/a');
  assert.equal(parseBrokerConfig({ 'metadata.log.dir': '/m' }).metadataLogDir, '/m');
  assert.equal(problemsOf(() => parseBrokerConfig({ 'log.dirs': '' }))[0]?.key, 'log.dirs');
  assert.equal(problemsOf(() => parseBrokerConfig({ 'group.min.session.timeout.ms': '10', 'group.max.session.timeout.ms': '5' }))[0]?.key, 'group.min.session.timeout.ms');
});

test('typed access by Kafka key', () => {
  const c = parseBrokerConfig({ 'log.level': 'DEBUG', 'broker.rack': 'r1' });
  const level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' = c.get('log.level');
  const rack: string | null = c.get('broker.rack');
  const retention: number = c.get('log.retention.ms');
  const roles: readonly ('broker' | 'controller')[] = c.get('process.roles');
  assert.equal(level, 'debug');
  assert.equal(rack, 'r1');
  assert.equal(retention, 604_800_000);
  assert.deepEqual(roles, ['broker', 'controller']);
  assert.deepEqual(c.roles, { broker: true, controller: true });
  assert.ok(Object.isFrozen(c));
});

test('Kafka\'s own KRaft server.properties loads unchanged', () => {
  const kafkaFile = `
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@localhost:9093
listeners=PLAINTEXT://:9092,CONTROLLER://:9093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://localhost:9092
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=/tmp/kraft-combined-logs
num.partitions=1
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
#log.flush.interval.messages=10000
#log.flush.interval.ms=1000
log.retention.hours=168
#log.retention.bytes=1073741824
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
`;
  const raw = Object.fromEntries(parseProperties(kafkaFile).entries.map((e) => [e.key, e.value]));
  const c = parseBrokerConfig(raw);
  assert.deepEqual(c.ignored, ['num.network.threads', 'num.io.threads', 'socket.send.buffer.bytes', 'socket.receive.buffer.bytes', 'num.recovery.threads.per.data.dir']);
  assert.deepEqual(c.advertisedListeners.map((l) => `${l.name}://${l.host}:${l.port}`), ['PLAINTEXT://localhost:9092']);
  assert.deepEqual(c.logDirs, ['/tmp/kraft-combined-logs']);
});

test('config/server.properties documents every key with its default, and loads', () => {
  const text = readFileSync(join(repoRoot, 'config', 'server.properties'), 'utf8');
  // Commented-out "#key=value" lines show the defaults; active lines set a (valid) value.
  const commented = new Map(parseProperties(text.split('\n').filter((l) => /^#[a-z][a-z0-9.]*=/.test(l)).map((l) => l.slice(1)).join('\n')).entries.map((e) => [e.key, e.value]));
  const active = new Set(parseProperties(text).entries.map((e) => e.key));
  for (const key of KEYS) {
    assert.ok(commented.has(key) !== active.has(key), `config/server.properties must show ${key} exactly once`);
    if (!commented.has(key)) continue;
    const def = BROKER_CONFIGS[key];
    const expected = def.default === null ? '' : (def.encode as (v: unknown) => string)(def.default);
    assert.equal(commented.get(key), expected, `${key} documented default`);
  }
  const c = loadBrokerConfig({ file: join(repoRoot, 'config', 'server.properties'), cwd: repoRoot });
  assert.deepEqual(c.warnings, []);
  assert.deepEqual(c.logDirs, [join(repoRoot, 'data')]);
});

test('config/dev.properties loads: one node on 127.0.0.1:9092, data in ./data', () => {
  const c = loadBrokerConfig({ file: join(repoRoot, 'config', 'dev.properties'), cwd: repoRoot });
  assert.deepEqual(c.listeners, [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' }]);
  assert.deepEqual(c.logDirs, [join(repoRoot, 'data')]);
  assert.equal(c.nodeId, 1);
  assert.deepEqual(c.warnings, []);
});

test('describe() hides passwords and reports sources', () => {
  const rows = parseBrokerConfig({ 'num.partitions': '3' }).describe();
  assert.equal(rows.length, KEYS.length);
  const np = rows.find((r) => r.name === 'num.partitions');
  assert.deepEqual(np, { name: 'num.partitions', value: '3', source: 'STATIC_BROKER_CONFIG', sourceId: 4, sensitive: false });
});

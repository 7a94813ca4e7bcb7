/**
 * The dynamic broker config overlay: which keys can change at run time,
 * validation (every dynamic key refuses a bad value naming it), precedence
 * and sources, and DescribeConfigs rows with Kafka's synonym order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BROKER_CONFIGS, parseBrokerConfig, type BrokerConfigKey } from '../../../../src/config/broker.js';
import type { ConfigKey } from '../../../../src/config/def.js';
import { DynamicBrokerConfig, isDynamicBrokerKey, RESTART_REQUIRED_KEYS } from '../../../../src/broker/configs/dynamic-broker-config.js';
import { describeBroker, describeTopic } from '../../../../src/broker/configs/describe.js';
import { configSchemaFor } from '../../../../src/broker/configs/schema.js';
import { badValueFor, DYNAMIC_BROKER_KEYS } from './bad-values.js';

const fresh = (raw: Record<string, string> = {}): DynamicBrokerConfig => new DynamicBrokerConfig(parseBrokerConfig(raw, { cwd: '/tmp' }));
const defs = BROKER_CONFIGS as unknown as Record<string, ConfigKey<unknown>>;

test('the dynamic keys are the definitions marked per-broker or cluster-wide, minus the listener keys', () => {
  const expected = Object.values(defs).filter((d) => d.dynamic !== 'read-only' && !RESTART_REQUIRED_KEYS.has(d.name)).map((d) => d.name).sort();
  assert.deepEqual([...DYNAMIC_BROKER_KEYS].sort(), expected);
  for (const key of ['log.retention.ms', 'log.segment.bytes', 'message.max.bytes', 'log.cleanup.policy', 'log.flush.interval.messages', 'compression.type', 'log.message.timestamp.type']) {
    assert.ok(isDynamicBrokerKey(key), key);
  }
  for (const key of ['num.partitions', 'auto.create.topics.enable', 'log.retention.hours', 'listeners', 'advertised.listeners', 'node.id']) {
    assert.ok(!isDynamicBrokerKey(key), key);
  }
});

test('every dynamic broker key: a bad value is refused with a message naming the key', () => {
  const config = fresh();
  for (const key of DYNAMIC_BROKER_KEYS) {
    const problems = config.validate('', new Map([[key, badValueFor(defs[key] as ConfigKey<unknown>)]]));
    assert.equal(problems.length, 1, `${key}: ${JSON.stringify(problems)}`);
    assert.equal(problems[0]?.key, key);
    assert.ok(problems[0]?.message.startsWith(`${key}: `), problems[0]?.message);
  }
});

test('every read-only broker key, unknown keys and per-broker keys at cluster level are refused naming the key', () => {
  const config = fresh();
  for (const key of Object.keys(defs).filter((k) => !isDynamicBrokerKey(k))) {
    const value = (defs[key] as ConfigKey<unknown>).encode((defs[key] as ConfigKey<unknown>).default) || 'x';
    const problems = config.validate('1', new Map([[key, value]]));
    assert.equal(problems.length, 1, key);
    assert.match(problems[0]?.message ?? '', new RegExp(`^${key.replaceAll('.', '\\.')}: .*(read-only|start-up|expected)`), key);
  }
  const unknown = config.validate('', new Map([['log.retention.msec', '1']]));
  assert.match(unknown[0]?.message ?? '', /^log\.retention\.msec: unknown broker config key; did you mean "log\.retention\.ms"\?/);
  const topicKey = config.validate('', new Map([['retention.ms', '1']]));
  assert.match(topicKey[0]?.message ?? '', /the broker-wide default is "log\.retention\.ms"/);
  assert.deepEqual(config.validate('', new Map([['log.retention.ms', '1000'], ['log.cleanup.policy', 'compact,delete']])), []);
  const cross = config.validate('', new Map([['log.cleaner.min.compaction.lag.ms', '100'], ['log.cleaner.max.compaction.lag.ms', '10']]));
  assert.equal(cross[0]?.key, 'log.cleaner.min.compaction.lag.ms');
});

test('precedence: per-broker dynamic > cluster default > static > default, with sources', () => {
  const config = fresh({ 'log.retention.hours': '2', 'node.id': '3' });
  let changes = 0;
  config.onChange(() => changes++);
  assert.equal(config.get('log.retention.ms'), 2 * 3_600_000);
  assert.deepEqual(config.sourceOf('log.retention.ms'), { source: 'STATIC_BROKER_CONFIG', key: 'log.retention.hours' });
  assert.equal(config.apply('', new Map([['log.retention.ms', '5000']])).changed, true);
  assert.equal(config.get('log.retention.ms'), 5000);
  assert.equal(config.sourceOf('log.retention.ms').source, 'DYNAMIC_DEFAULT_BROKER_CONFIG');
  assert.equal(config.apply('3', new Map([['log.retention.ms', '7000']])).changed, true);
  assert.equal(config.get('log.retention.ms'), 7000);
  assert.equal(config.sourceOf('log.retention.ms').source, 'DYNAMIC_BROKER_CONFIG');
  // Another broker's configs are not ours.
  assert.equal(config.apply('4', new Map([['log.retention.ms', '1']])).changed, false);
  assert.equal(config.apply('3', new Map()).changed, true);
  assert.equal(config.get('log.retention.ms'), 5000);
  assert.equal(changes, 3);
  // A topic without overrides follows; one with an override keeps it.
  assert.equal(config.topicConfig().retentionMs, 5000);
  assert.equal(config.topicConfig().source['retention.ms'].source, 'DYNAMIC_DEFAULT_BROKER_CONFIG');
  assert.equal(config.topicConfig({ 'retention.ms': '9' }).retentionMs, 9);
  // Stored values that no longer validate are ignored and reported.
  const bad = config.apply('', new Map([['log.retention.ms', 'abc'], ['num.partitions', '4']]));
  assert.equal(bad.problems.length, 2);
  assert.equal(config.get('log.retention.ms'), 2 * 3_600_000);
});

test('DescribeConfigs rows: topic override first, then level by level in synonym order', () => {
  const config = fresh({ 'log.retention.hours': '2', 'log.retention.minutes': '30' });
  config.apply('', new Map([['log.retention.ms', '5000'], ['log.cleanup.policy', 'compact']]));
  const options = { includeSynonyms: true, includeDocumentation: true };
  const [retention] = describeTopic(config, new Map([['retention.ms', '10']]), ['retention.ms'], options);
  assert.ok(retention);
  assert.equal(retention.value, '10');
  assert.equal(retention.configSource, 1);
  assert.deepEqual(retention.synonyms.map((s) => [s.name, s.value, s.source]), [
    ['retention.ms', '10', 1],
    ['log.retention.ms', '5000', 3],
    ['log.retention.minutes', '30', 4],
    ['log.retention.hours', '2', 4],
    ['log.retention.ms', '604800000', 5],
    ['log.retention.hours', '168', 5],
  ]);
  assert.equal(retention.configType, 5);
  assert.match(retention.documentation ?? '', /segments/);
  const [policy] = describeTopic(config, new Map(), ['cleanup.policy'], { includeSynonyms: false, includeDocumentation: false });
  assert.deepEqual([policy?.value, policy?.configSource, policy?.synonyms, policy?.documentation], ['compact', 3, [], null]);
  const all = describeTopic(config, new Map(), null, options);
  assert.equal(all.length, 27, 'Kafka\'s 25 topic keys and Tributary\'s mirror.state and mirror.promoted.offsets');
  // Tributary's topic-only keys have no broker synonym: like Kafka's keys without one, they list no synonym when not set.
  assert.ok(all.every((c) => (c.synonyms[0]?.source ?? 5) === c.configSource && !c.readOnly));

  const broker = describeBroker(config, true, null, options);
  assert.equal(broker.length, Object.keys(defs).length);
  const row = (name: string) => broker.find((c) => c.name === name);
  assert.deepEqual([row('log.retention.ms')?.value, row('log.retention.ms')?.configSource, row('log.retention.ms')?.readOnly], ['5000', 3, false]);
  assert.deepEqual([row('num.partitions')?.value, row('num.partitions')?.configSource, row('num.partitions')?.readOnly, row('num.partitions')?.isDefault], ['1', 5, true, true]);
  assert.deepEqual([row('broker.rack')?.value, row('broker.rack')?.configSource], [null, 5]);
  const cluster = describeBroker(config, false, null, options);
  assert.deepEqual(cluster.map((c) => [c.name, c.value, c.configSource, c.synonyms.length]).sort(), [['log.cleanup.policy', 'compact', 3, 1], ['log.retention.ms', '5000', 3, 1]]);
});

test('the controller schema: list keys and inherited values for APPEND/SUBTRACT', () => {
  const config = fresh({ 'log.cleanup.policy': 'compact' });
  const schema = configSchemaFor(config);
  assert.equal(schema.isList(2, 'cleanup.policy'), true);
  assert.equal(schema.isList(2, 'retention.ms'), false);
  assert.equal(schema.isList(2, 'nope'), undefined);
  assert.equal(schema.isList(4, 'log.cleanup.policy'), true);
  assert.equal(schema.inheritedValue(2, 't', 'cleanup.policy'), 'compact');
  config.apply('', new Map([['log.cleanup.policy', 'delete']]));
  assert.equal(schema.inheritedValue(2, 't', 'cleanup.policy'), 'delete');
  assert.equal(schema.inheritedValue(4, '1', 'log.cleanup.policy'), 'delete');
  assert.equal(schema.inheritedValue(4, '', 'log.cleanup.policy'), 'compact');
});

test('values of every dynamic key round-trip through apply', () => {
  const config = fresh();
  for (const key of DYNAMIC_BROKER_KEYS) {
    const def = defs[key] as ConfigKey<unknown>;
    const text = def.encode(def.default) || 'x';
    if (def.decode(text).ok) {
      config.apply('', new Map([[key, text]]));
      assert.equal(def.encode(config.get(key as BrokerConfigKey)), text, key);
    }
  }
});

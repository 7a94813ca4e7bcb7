import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LONG_MAX } from '../../../src/config/def.js';
import { parseBrokerConfig } from '../../../src/config/broker.js';
import { describeTopicConfig, TOPIC_CONFIG_KEYS, TOPIC_CONFIGS } from '../../../src/config/topic.js';
import { effectiveTopicConfig, TOPIC_BROKER_SYNONYMS, validateTopicConfigs } from '../../../src/config/topic-broker.js';
import { ConfigError } from '../../../src/config/errors.js';

/** Kafka 3.x topic defaults (TopicConfig / LogConfig), written out independently. Long.MAX_VALUE -> 2^53-1. */
const KAFKA_TOPIC_DEFAULTS: Record<string, string> = {
  'cleanup.policy': 'delete',
  'compression.type': 'producer',
  'delete.retention.ms': '86400000',
  'file.delete.delay.ms': '60000',
  'flush.messages': String(LONG_MAX),
  'flush.ms': String(LONG_MAX),
  'index.interval.bytes': '4096',
  'max.compaction.lag.ms': String(LONG_MAX),
  'max.message.bytes': '1048588',
  'message.downconversion.enable': 'true',
  'message.timestamp.difference.max.ms': String(LONG_MAX),
  'message.timestamp.before.max.ms': String(LONG_MAX),
  'message.timestamp.after.max.ms': String(LONG_MAX),
  'message.timestamp.type': 'CreateTime',
  'min.cleanable.dirty.ratio': '0.5',
  'min.compaction.lag.ms': '0',
  'min.insync.replicas': '1',
  'preallocate': 'false',
  'retention.bytes': '-1',
  'retention.ms': '604800000',
  'segment.bytes': '1073741824',
  'segment.index.bytes': '10485760',
  'segment.jitter.ms': '0',
  'segment.ms': '604800000',
  'unclean.leader.election.enable': 'false',
  // Tributary's own key (exact-mode mirror topics, docs/mirror.md); not one of Kafka's.
  'mirror.state': 'none',
  'mirror.promoted.offsets': '',
};

/** A value each key must refuse (beyond the type: below the minimum, outside the allowed set). */
const BAD_TOPIC_VALUES: Record<string, string[]> = {
  'cleanup.policy': ['delete,purge', 'delete,,compact'],
  'compression.type': ['brotli', 'ZSTD'],
  'delete.retention.ms': ['abc', '-1'],
  'file.delete.delay.ms': ['-1', '1.5'],
  'flush.messages': ['0', 'never'],
  'flush.ms': ['-1'],
  'index.interval.bytes': ['-1', '2147483648'],
  'max.compaction.lag.ms': ['0'],
  'max.message.bytes': ['-1', '1MB'],
  'message.downconversion.enable': ['yes', '1'],
  'message.timestamp.difference.max.ms': ['-1'],
  'message.timestamp.before.max.ms': ['-5'],
  'message.timestamp.after.max.ms': ['x'],
  'message.timestamp.type': ['createtime', 'NoTime'],
  'min.cleanable.dirty.ratio': ['1.5', '-0.1', 'half'],
  'min.compaction.lag.ms': ['-1'],
  'min.insync.replicas': ['0', 'two'],
  'preallocate': ['maybe'],
  'retention.bytes': ['-2', '1GB'],
  'retention.ms': ['-2', 'abc', '7d'],
  'segment.bytes': ['13', '2147483648'],
  'segment.index.bytes': ['47'],
  'segment.jitter.ms': ['-1'],
  'segment.ms': ['0'],
  'unclean.leader.election.enable': ['on'],
  'mirror.state': ['ACTIVE', 'passive'],
  'mirror.promoted.offsets': ['0=5', '0:5,0:6', 'x:1'],
};

test('the topic keys are exactly the ones listed here, and defaults equal Kafka\'s', () => {
  assert.deepEqual([...TOPIC_CONFIG_KEYS].sort(), Object.keys(KAFKA_TOPIC_DEFAULTS).sort());
  for (const key of TOPIC_CONFIG_KEYS) {
    const def = TOPIC_CONFIGS[key];
    assert.equal((def.encode as (v: unknown) => string)(def.default), KAFKA_TOPIC_DEFAULTS[key], key);
    assert.notEqual(def.doc, '', key);
  }
});

test('every topic key refuses bad values with an INVALID_CONFIG message naming the key', () => {
  for (const key of TOPIC_CONFIG_KEYS) {
    const bad = BAD_TOPIC_VALUES[key];
    assert.ok(bad !== undefined && bad.length > 0, `no bad values listed for ${key}`);
    for (const value of bad) {
      const errors = validateTopicConfigs({ [key]: value });
      assert.equal(errors.length, 1, `${key}=${value} was accepted`);
      assert.equal(errors[0]?.key, key);
      assert.equal(errors[0]?.errorCode, 40);
      assert.ok(errors[0]?.message.startsWith(`${key}: expected `), errors[0]?.message);
      assert.ok(errors[0]?.message.includes(`got "${value}"`), errors[0]?.message);
    }
  }
});

test('the message says what form is expected', () => {
  assert.deepEqual(validateTopicConfigs({ 'retention.ms': 'abc' }).map((e) => e.message), ['retention.ms: expected an integer >= -1, got "abc"']);
  assert.deepEqual(validateTopicConfigs({ 'segment.bytes': '10' }).map((e) => e.message), ['segment.bytes: expected an integer >= 14, got "10"']);
});

test('valid values pass, every bad key is reported, unknown keys and null values are refused', () => {
  assert.deepEqual(validateTopicConfigs({ 'cleanup.policy': 'compact,delete', 'retention.ms': '-1', 'compression.type': 'zstd', 'min.cleanable.dirty.ratio': '0.01' }), []);
  const errors = validateTopicConfigs({ 'retention.ms': 'x', 'segment.bytes': '1', 'retention.msx': '1', 'log.retention.ms': '1', 'flush.ms': null });
  assert.deepEqual(errors.map((e) => e.key).sort(), ['flush.ms', 'log.retention.ms', 'retention.ms', 'retention.msx', 'segment.bytes']);
  assert.match(errors.find((e) => e.key === 'retention.msx')?.message ?? '', /did you mean "retention.ms"\?/);
  assert.match(errors.find((e) => e.key === 'log.retention.ms')?.message ?? '', /the topic config is "retention.ms"/);
});

test('min.compaction.lag.ms may not exceed max.compaction.lag.ms', () => {
  const errors = validateTopicConfigs({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' });
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.key, 'min.compaction.lag.ms');
});

/** Tributary's own topic keys, which no broker key defaults. */
const TOPIC_ONLY_KEYS = new Set(['mirror.state', 'mirror.promoted.offsets']);

test('every topic key has a broker synonym that exists in the broker config (but Tributary\'s topic-only keys)', () => {
  const broker = parseBrokerConfig({});
  for (const key of TOPIC_CONFIG_KEYS) {
    const synonyms = TOPIC_BROKER_SYNONYMS[key];
    assert.equal(synonyms.length > 0, !TOPIC_ONLY_KEYS.has(key), key);
    for (const s of synonyms) assert.doesNotThrow(() => broker.get(s), `${key} <- ${s}`);
  }
});

test('effective config: defaults, static broker config and topic overrides, with their sources', () => {
  const broker = parseBrokerConfig({ 'log.retention.hours': '24', 'log.segment.bytes': '1048576', 'message.max.bytes': '2000000' });
  const t = effectiveTopicConfig(broker, { 'segment.bytes': '4096', 'cleanup.policy': 'compact' });
  assert.equal(t.retentionMs, 24 * 3600_000);
  assert.deepEqual(t.source['retention.ms'], { source: 'STATIC_BROKER_CONFIG', key: 'log.retention.hours' });
  assert.equal(t.segmentBytes, 4096);
  assert.deepEqual(t.source['segment.bytes'], { source: 'DYNAMIC_TOPIC_CONFIG', key: 'segment.bytes' });
  assert.equal(t.maxMessageBytes, 2_000_000);
  assert.deepEqual(t.source['max.message.bytes'], { source: 'STATIC_BROKER_CONFIG', key: 'message.max.bytes' });
  assert.equal(t.indexIntervalBytes, 4096);
  assert.deepEqual(t.source['index.interval.bytes'], { source: 'DEFAULT_CONFIG', key: 'index.interval.bytes' });
  assert.deepEqual(t.cleanupPolicy, { delete: false, compact: true });
  assert.equal(t.messageTimestampType, 'CreateTime');
  assert.equal(t.flushIntervalMessages, LONG_MAX);
  assert.equal(t.compressionType, 'producer');
});

test('effective config with no overrides equals Kafka\'s defaults', () => {
  const t = parseBrokerConfig({}).topicDefaults();
  assert.equal(t.retentionMs, 604_800_000);
  assert.equal(t.retentionBytes, -1);
  assert.equal(t.segmentBytes, 1_073_741_824);
  assert.equal(t.segmentMs, 604_800_000);
  assert.equal(t.segmentIndexBytes, 10_485_760);
  assert.equal(t.flushIntervalMs, LONG_MAX);
  assert.equal(t.maxMessageBytes, 1_048_588);
  assert.equal(t.minInsyncReplicas, 1);
  assert.deepEqual(t.cleanupPolicy, { delete: true, compact: false });
  for (const key of TOPIC_CONFIG_KEYS) assert.equal(t.source[key].source, 'DEFAULT_CONFIG', key);
});

test('timestamp bounds fall back to the deprecated difference.max.ms, as Kafka does', () => {
  const broker = parseBrokerConfig({});
  assert.equal(effectiveTopicConfig(broker, { 'message.timestamp.difference.max.ms': '1000' }).timestampBeforeMaxMs, 1000);
  assert.equal(effectiveTopicConfig(broker, { 'message.timestamp.difference.max.ms': '1000' }).timestampAfterMaxMs, 1000);
  const both = effectiveTopicConfig(broker, { 'message.timestamp.difference.max.ms': '1000', 'message.timestamp.after.max.ms': '50' });
  assert.equal(both.timestampAfterMaxMs, 50);
  assert.equal(both.timestampBeforeMaxMs, 1000);
  const fromBroker = effectiveTopicConfig(parseBrokerConfig({ 'log.message.timestamp.before.max.ms': '7' }));
  assert.equal(fromBroker.timestampBeforeMaxMs, 7);
});

test('segment.ms follows log.roll.ms / log.roll.hours; flush.ms follows log.flush.scheduler.interval.ms', () => {
  assert.equal(parseBrokerConfig({ 'log.roll.hours': '1' }).topicDefaults().segmentMs, 3_600_000);
  assert.equal(parseBrokerConfig({ 'log.roll.hours': '1', 'log.roll.ms': '5000' }).topicDefaults().segmentMs, 5000);
  const flush = parseBrokerConfig({ 'log.flush.scheduler.interval.ms': '2000' }).topicDefaults();
  assert.equal(flush.flushIntervalMs, 2000);
  assert.deepEqual(flush.source['flush.ms'], { source: 'STATIC_BROKER_CONFIG', key: 'log.flush.scheduler.interval.ms' });
});

test('bad overrides in effectiveTopicConfig throw a ConfigError listing them all', () => {
  assert.throws(() => effectiveTopicConfig(parseBrokerConfig({}), { 'retention.ms': 'x', 'segment.bytes': '1' }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.problems.map((p) => p.key), ['retention.ms', 'segment.bytes']);
    return true;
  });
});

test('describeTopicConfig gives DescribeConfigs rows with Kafka source ids', () => {
  const rows = describeTopicConfig(parseBrokerConfig({ 'log.retention.hours': '1' }).topicConfig({ 'cleanup.policy': 'compact,delete' }));
  assert.equal(rows.length, TOPIC_CONFIG_KEYS.length);
  const byName = new Map(rows.map((r) => [r.name, r]));
  assert.deepEqual({ v: byName.get('cleanup.policy')?.value, s: byName.get('cleanup.policy')?.sourceId }, { v: 'compact,delete', s: 1 });
  assert.deepEqual({ v: byName.get('retention.ms')?.value, s: byName.get('retention.ms')?.sourceId }, { v: '3600000', s: 4 });
  assert.deepEqual({ v: byName.get('segment.bytes')?.value, s: byName.get('segment.bytes')?.sourceId }, { v: '1073741824', s: 5 });
  assert.equal(byName.get('min.cleanable.dirty.ratio')?.typeId, 6);
});

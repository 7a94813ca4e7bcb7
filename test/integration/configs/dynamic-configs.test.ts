/**
 * DescribeConfigs / AlterConfigs / IncrementalAlterConfigs against an
 * in-process broker, over the wire: every topic and dynamic broker key
 * refuses a bad value with INVALID_CONFIG naming it; read-only and unknown
 * keys are refused; validateOnly changes nothing; changes take effect on the
 * running broker (retention deletes segments, max.message.bytes refuses
 * larger batches, segment.bytes rolls, a broker-level log.retention.ms
 * default applies to topics without overrides, LogAppendTime, compaction's
 * key rule); they survive a restart; topic compression.type recompresses
 * produced batches, keeping pipelined produce requests in order.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runBroker, type RunningBroker } from '../../../src/broker/broker.js';
import { settingsFromConfig } from '../../../src/broker/settings.js';
import { parseBrokerConfig, BROKER_CONFIGS } from '../../../src/config/broker.js';
import { TOPIC_CONFIGS, TOPIC_CONFIG_KEYS } from '../../../src/config/topic.js';
import type { ConfigKey } from '../../../src/config/def.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { Compression, compressionOf, readBatchHeader } from '../../../src/protocol/record-batch/header.js';
import { decodeRecordBatchSync, splitBatches } from '../../../src/protocol/record-batch/reader.js';
import { isDynamicBrokerKey } from '../../../src/broker/configs/dynamic-broker-config.js';
import { RawClient } from '../../helpers/in-process-broker.js';
import { badValueFor, DYNAMIC_BROKER_KEYS } from '../../unit/broker/configs/bad-values.js';

const TOPIC = 2;
const BROKER = 4;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

interface Node {
  broker: RunningBroker;
  port: number;
  client: RawClient;
}

interface AlterResult {
  responses: { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string }[];
}
interface DescribeResult {
  results: {
    errorCode: number;
    errorMessage: string | null;
    resourceName: string;
    configs: { name: string; value: string | null; readOnly: boolean; isDefault: boolean; configSource: number; isSensitive: boolean; synonyms: { name: string; value: string | null; source: number }[] }[];
  }[];
}
interface ProduceResult {
  responses: { partitionResponses: { errorCode: number; baseOffset: bigint; logAppendTimeMs: bigint }[] }[];
}

const dataDir = mkdtempSync(join(tmpdir(), 'trib-configs-'));
const OVERRIDES = { 'log.retention.check.interval.ms': '100', 'log.flush.interval.messages': '1' };
let node: Node;
let correlationId = 0;

async function start(): Promise<Node> {
  const config = parseBrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:0', 'log.dirs': dataDir, ...OVERRIDES });
  const broker = await runBroker(settingsFromConfig(config), pino({ level: 'silent' }));
  const port = (broker.boundAddresses[0] as { port: number }).port;
  return { broker, port, client: await RawClient.connect(port) };
}

async function stop(n: Node): Promise<void> {
  n.client.close();
  await n.broker.stop('test');
}

async function call<T>(apiKey: number, version: number, body: unknown): Promise<T> {
  const c = node.client;
  const id = ++correlationId;
  c.send(apiKey, version, id, body);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const arrival = c.arrivals.find((a) => a.correlationId === id);
    if (arrival) return c.decode(apiKey, version, arrival.body) as T;
    if (Date.now() > deadline || c.closed) throw new Error(`no response to api ${apiKey} v${version}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function incremental(resources: { type: number; name: string; ops: [string, number, string | null][] }[], validateOnly = false): Promise<AlterResult> {
  return call<AlterResult>(44, 1, {
    resources: resources.map((r) => ({ resourceType: r.type, resourceName: r.name, configs: r.ops.map(([name, configOperation, value]) => ({ name, configOperation, value })) })),
    validateOnly,
  });
}

function alter(type: number, name: string, configs: Record<string, string | null>, validateOnly = false, version = 0): Promise<AlterResult> {
  return call<AlterResult>(33, version, {
    resources: [{ resourceType: type, resourceName: name, configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    validateOnly,
  });
}

function describeConfigs(type: number, name: string, keys: string[] | null, version = 1): Promise<DescribeResult> {
  return call<DescribeResult>(32, version, { resources: [{ resourceType: type, resourceName: name, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
}

async function value(type: number, name: string, key: string): Promise<{ value: string | null; configSource: number } | undefined> {
  const d = await describeConfigs(type, name, [key]);
  return d.results[0]?.configs[0];
}

async function createTopic(name: string, configs: Record<string, string> = {}): Promise<void> {
  const created = await node.broker.services.metadata.createTopics(
    [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, v]) => ({ name: n, value: v })) }],
    false,
  );
  assert.equal(created[0]?.errorCode, 0, created[0]?.errorMessage ?? '');
}

function batch(count: number, options: { bytes?: number; ageMs?: number; compression?: number; keyed?: boolean } = {}): Buffer {
  const timestampMs = Date.now() - (options.ageMs ?? 0);
  return buildRecordBatchSync({
    compression: options.compression ?? Compression.None,
    timestampMs,
    records: Array.from({ length: count }, (_, i) => ({ key: options.keyed === false ? null : `k${i}`, value: `v${i}-${'x'.repeat(options.bytes ?? 10)}` })),
  });
}

async function produce(topic: string, records: Buffer): Promise<{ errorCode: number; baseOffset: bigint; logAppendTimeMs: bigint }> {
  const r = await call<ProduceResult>(0, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
  const p = r.responses[0]?.partitionResponses[0];
  assert.ok(p);
  return p;
}

function segmentFiles(topic: string): string[] {
  return readdirSync(join(dataDir, `${topic}-0`)).filter((f) => f.endsWith('.log'));
}

async function waitUntil(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function partition(topic: string) {
  const p = node.broker.services.replicaManager.get(topic, 0);
  assert.ok(p, `${topic}-0 hosted`);
  return p;
}

before(async () => {
  node = await start();
  await createTopic('keys');
});

after(async () => {
  await stop(node);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('validation', () => {
  it('every topic key: a bad value is refused with INVALID_CONFIG naming the key (AlterConfigs and IncrementalAlterConfigs)', async () => {
    for (const key of TOPIC_CONFIG_KEYS) {
      const bad = badValueFor(TOPIC_CONFIGS[key] as ConfigKey<unknown>);
      const inc = await incremental([{ type: TOPIC, name: 'keys', ops: [[key, SET, bad]] }]);
      assert.equal(inc.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG, key);
      assert.ok(inc.responses[0]?.errorMessage?.startsWith(`${key}: `), `${key}: ${inc.responses[0]?.errorMessage}`);
      const legacy = await alter(TOPIC, 'keys', { [key]: bad });
      assert.equal(legacy.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG, key);
      assert.ok(legacy.responses[0]?.errorMessage?.startsWith(`${key}: `), `${key}: ${legacy.responses[0]?.errorMessage}`);
    }
    assert.equal(node.broker.services.configs.dynamicConfig.topicConfig().retentionMs, 7 * 24 * 3_600_000);
  });

  it('every dynamic broker key: a bad value is refused naming the key, per broker and cluster-wide', async () => {
    const defs = BROKER_CONFIGS as unknown as Record<string, ConfigKey<unknown>>;
    for (const key of DYNAMIC_BROKER_KEYS) {
      const bad = badValueFor(defs[key] as ConfigKey<unknown>);
      for (const name of ['', '1']) {
        const inc = await incremental([{ type: BROKER, name, ops: [[key, SET, bad]] }]);
        assert.equal(inc.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG, `${key} @ '${name}'`);
        assert.ok(inc.responses[0]?.errorMessage?.startsWith(`${key}: `), `${key}: ${inc.responses[0]?.errorMessage}`);
      }
      const legacy = await alter(BROKER, '', { [key]: bad }, false, 1);
      assert.equal(legacy.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG, key);
      assert.ok(legacy.responses[0]?.errorMessage?.startsWith(`${key}: `), key);
    }
  });

  it('read-only and unknown keys are refused with INVALID_CONFIG naming the key', async () => {
    const readOnly = Object.keys(BROKER_CONFIGS).filter((k) => !isDynamicBrokerKey(k));
    assert.ok(readOnly.includes('num.partitions') && readOnly.includes('log.retention.hours'));
    for (const key of readOnly) {
      const def = (BROKER_CONFIGS as unknown as Record<string, ConfigKey<unknown>>)[key] as ConfigKey<unknown>;
      const text = def.encode(def.default) || 'x';
      const r = await incremental([{ type: BROKER, name: '1', ops: [[key, SET, text]] }]);
      assert.equal(r.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG, key);
      assert.ok(r.responses[0]?.errorMessage?.startsWith(`${key}: `), `${key}: ${r.responses[0]?.errorMessage}`);
    }
    const unknownTopicKey = await incremental([{ type: TOPIC, name: 'keys', ops: [['retention.msec', SET, '1']] }]);
    assert.equal(unknownTopicKey.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG);
    assert.match(unknownTopicKey.responses[0]?.errorMessage ?? '', /^retention\.msec: unknown topic config key; did you mean "retention\.ms"\?/);
    const deleteUnknown = await incremental([{ type: TOPIC, name: 'keys', ops: [['retention.msec', DELETE, null]] }]);
    assert.equal(deleteUnknown.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG);
    const perBrokerOnly = await incremental([{ type: BROKER, name: '', ops: [['advertised.listeners', SET, 'PLAINTEXT://h:1']] }]);
    assert.equal(perBrokerOnly.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG);
    const appendScalar = await incremental([{ type: TOPIC, name: 'keys', ops: [['retention.ms', APPEND, '5']] }]);
    assert.equal(appendScalar.responses[0]?.errorCode, ErrorCode.INVALID_CONFIG);
    const unknownTopic = await incremental([{ type: TOPIC, name: 'nope', ops: [['retention.ms', SET, '5']] }]);
    assert.equal(unknownTopic.responses[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('validateOnly checks without changing anything', async () => {
    const ok = await incremental([{ type: TOPIC, name: 'keys', ops: [['retention.ms', SET, '1234']] }, { type: BROKER, name: '', ops: [['log.retention.ms', SET, '4321']] }], true);
    assert.deepEqual(ok.responses.map((r) => r.errorCode), [0, 0]);
    const legacy = await alter(TOPIC, 'keys', { 'retention.ms': '99' }, true);
    assert.equal(legacy.responses[0]?.errorCode, 0);
    assert.equal((await value(TOPIC, 'keys', 'retention.ms'))?.configSource, 5);
    assert.equal((await value(BROKER, '1', 'log.retention.ms'))?.configSource, 5);
  });
});

describe('DescribeConfigs', () => {
  it('answers errors per resource: unknown topic, another broker id, unsupported resource type', async () => {
    const d = await call<DescribeResult>(32, 2, {
      resources: [
        { resourceType: TOPIC, resourceName: 'missing', configurationKeys: null },
        { resourceType: BROKER, resourceName: '7', configurationKeys: null },
        { resourceType: 8, resourceName: '1', configurationKeys: null },
        { resourceType: TOPIC, resourceName: 'keys', configurationKeys: ['retention.ms', 'no.such.key'] },
      ],
      includeSynonyms: false,
    });
    assert.deepEqual(d.results.map((r) => r.errorCode), [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST, 0]);
    assert.deepEqual(d.results[3]?.configs.map((c) => [c.name, c.synonyms.length]), [['retention.ms', 0]]);
  });

  it('v0 reports isDefault; v3/v4 add documentation when asked', async () => {
    const v0 = await describeConfigs(TOPIC, 'keys', ['segment.bytes'], 0);
    assert.equal(v0.results[0]?.configs[0]?.isDefault, true);
    const v4 = await call<{ results: { configs: { configType: number; documentation: string | null }[] }[] }>(32, 4, {
      resources: [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['log.segment.bytes'] }],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    assert.equal(v4.results[0]?.configs[0]?.configType, 3);
    assert.match(v4.results[0]?.configs[0]?.documentation ?? '', /segment/);
  });
});

describe('changes take effect on the running broker', () => {
  it('shrinking retention.ms deletes old segments on the next retention check', async () => {
    await createTopic('retained', { 'segment.bytes': '1024' });
    for (let i = 0; i < 12; i++) assert.equal((await produce('retained', batch(3, { bytes: 100, ageMs: 3_600_000 }))).errorCode, 0);
    const p = partition('retained');
    assert.ok(p.log.segmentCount > 2, `segments: ${p.log.segmentCount}`);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(p.logStartOffset, 0n, 'nothing is old enough yet');
    const r = await incremental([{ type: TOPIC, name: 'retained', ops: [['retention.ms', SET, '60000']] }]);
    assert.equal(r.responses[0]?.errorCode, 0);
    await waitUntil('retention removed the rolled segments', () => p.logStartOffset > 0n && p.log.segmentCount === 1);
  });

  it('a broker-level log.retention.ms default applies to topics without an override, not to those with one', async () => {
    await createTopic('inherits', { 'segment.bytes': '1024' });
    await createTopic('overrides', { 'segment.bytes': '1024', 'retention.ms': String(30 * 24 * 3_600_000) });
    for (const topic of ['inherits', 'overrides']) {
      for (let i = 0; i < 10; i++) assert.equal((await produce(topic, batch(3, { bytes: 100, ageMs: 3_600_000 }))).errorCode, 0);
    }
    const r = await incremental([{ type: BROKER, name: '', ops: [['log.retention.ms', SET, '60000']] }]);
    assert.equal(r.responses[0]?.errorCode, 0, r.responses[0]?.errorMessage ?? '');
    assert.deepEqual(await value(TOPIC, 'inherits', 'retention.ms'), { ...(await value(TOPIC, 'inherits', 'retention.ms')), value: '60000', configSource: 3 });
    await waitUntil('retention removed the inheriting topic\'s segments', () => partition('inherits').logStartOffset > 0n);
    assert.equal(partition('overrides').logStartOffset, 0n);
    const back = await incremental([{ type: BROKER, name: '', ops: [['log.retention.ms', DELETE, null]] }]);
    assert.equal(back.responses[0]?.errorCode, 0);
    assert.equal((await value(TOPIC, 'inherits', 'retention.ms'))?.value, String(7 * 24 * 3_600_000));
  });

  it('a smaller max.message.bytes refuses larger batches with MESSAGE_TOO_LARGE; a broker message.max.bytes default too', async () => {
    await createTopic('sized');
    const big = batch(10, { bytes: 200 });
    assert.equal((await produce('sized', big)).errorCode, 0);
    assert.equal((await incremental([{ type: TOPIC, name: 'sized', ops: [['max.message.bytes', SET, '1000']] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('sized', big)).errorCode, ErrorCode.MESSAGE_TOO_LARGE);
    assert.equal((await produce('sized', batch(1))).errorCode, 0);
    assert.equal((await incremental([{ type: TOPIC, name: 'sized', ops: [['max.message.bytes', DELETE, null]] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('sized', big)).errorCode, 0);
    assert.equal((await incremental([{ type: BROKER, name: '1', ops: [['message.max.bytes', SET, '1000']] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('sized', big)).errorCode, ErrorCode.MESSAGE_TOO_LARGE);
    assert.equal((await value(BROKER, '1', 'message.max.bytes'))?.configSource, 2);
    assert.equal((await incremental([{ type: BROKER, name: '1', ops: [['message.max.bytes', DELETE, null]] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('sized', big)).errorCode, 0);
  });

  it('a smaller segment.bytes rolls the log', async () => {
    await createTopic('rolling');
    for (let i = 0; i < 5; i++) await produce('rolling', batch(3, { bytes: 100 }));
    assert.equal(segmentFiles('rolling').length, 1);
    assert.equal((await alter(TOPIC, 'rolling', { 'segment.bytes': '1024' }, false, 1)).responses[0]?.errorCode, 0);
    for (let i = 0; i < 5; i++) await produce('rolling', batch(3, { bytes: 100 }));
    assert.ok(segmentFiles('rolling').length > 1, `segments: ${segmentFiles('rolling').join(', ')}`);
  });

  it('message.timestamp.type and cleanup.policy changes apply to the next produce', async () => {
    await createTopic('rules');
    assert.equal((await produce('rules', batch(1))).logAppendTimeMs, -1n);
    assert.equal((await produce('rules', batch(1, { keyed: false }))).errorCode, 0);
    const r = await incremental([{ type: TOPIC, name: 'rules', ops: [['message.timestamp.type', SET, 'LogAppendTime'], ['cleanup.policy', APPEND, 'compact']] }]);
    assert.equal(r.responses[0]?.errorCode, 0, r.responses[0]?.errorMessage ?? '');
    assert.equal((await value(TOPIC, 'rules', 'cleanup.policy'))?.value, 'delete,compact');
    const stamped = await produce('rules', batch(1));
    assert.ok(stamped.logAppendTimeMs > 0n);
    assert.equal((await produce('rules', batch(1, { keyed: false }))).errorCode, ErrorCode.INVALID_RECORD);
    assert.equal((await incremental([{ type: TOPIC, name: 'rules', ops: [['cleanup.policy', SUBTRACT, 'compact']] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('rules', batch(1, { keyed: false }))).errorCode, 0);
    // A dynamic broker default reaches topics without an override.
    assert.equal((await incremental([{ type: BROKER, name: '', ops: [['log.message.timestamp.type', SET, 'LogAppendTime']] }])).responses[0]?.errorCode, 0);
    assert.equal((await incremental([{ type: TOPIC, name: 'rules', ops: [['message.timestamp.type', DELETE, null]] }])).responses[0]?.errorCode, 0);
    assert.ok((await produce('rules', batch(1))).logAppendTimeMs > 0n);
    assert.equal((await incremental([{ type: BROKER, name: '', ops: [['log.message.timestamp.type', DELETE, null]] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('rules', batch(1))).logAppendTimeMs, -1n);
  });

  it('AlterConfigs replaces the whole set of a resource\'s dynamic configs', async () => {
    await createTopic('replaced', { 'retention.ms': '1000000', 'segment.ms': '1000000' });
    const r = await alter(TOPIC, 'replaced', { 'retention.bytes': '1000000' }, false, 2);
    assert.equal(r.responses[0]?.errorCode, 0);
    const d = await describeConfigs(TOPIC, 'replaced', null);
    assert.deepEqual(d.results[0]?.configs.filter((c) => c.configSource === 1).map((c) => [c.name, c.value]), [['retention.bytes', '1000000']]);
  });
});

describe('recompression (topic compression.type)', () => {
  it('stores every batch in the topic codec, in request order, and reads the records back exactly', async () => {
    await createTopic('zipped', { 'compression.type': 'gzip' });
    const codecs = [Compression.Lz4, Compression.None, Compression.Gzip, Compression.Snappy, Compression.Zstd, Compression.None, Compression.Gzip, Compression.Lz4];
    const sent = codecs.map((compression, i) =>
      buildRecordBatchSync({
        compression: compression === Compression.Zstd ? Compression.None : compression,
        records: [{ key: `k${i}`, value: `value ${i} ${'y'.repeat(200)}`, headers: [{ key: 'n', value: String(i) }] }, { key: null, value: null }],
      }),
    );
    // Pipelined: every request is written before any response is read.
    const c = node.client;
    const first = correlationId + 1;
    for (const records of sent) {
      c.send(0, 7, ++correlationId, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'zipped', partitionData: [{ index: 0, records }] }] });
    }
    await waitUntil('all produce responses', () => c.arrivals.filter((a) => a.correlationId >= first).length === sent.length);
    const offsets = c.arrivals
      .filter((a) => a.correlationId >= first)
      .map((a) => (c.decode(0, 7, a.body) as unknown as ProduceResult).responses[0]?.partitionResponses[0]);
    assert.deepEqual(offsets.map((o) => o?.errorCode), sent.map(() => 0));
    assert.deepEqual(offsets.map((o) => o?.baseOffset), sent.map((_, i) => BigInt(i * 2)));

    const p = partition('zipped');
    const read = node.broker.services.replicaManager.read(p, 0n, 10 << 20, 'highWatermark', true);
    const stored = read.chunks.flatMap((chunk) => splitBatches(chunk));
    assert.equal(stored.length, sent.length);
    stored.forEach((b, i) => {
      assert.equal(compressionOf(readBatchHeader(b).attributes), Compression.Gzip, `batch ${i} stored as gzip`);
      const got = decodeRecordBatchSync(b);
      const want = decodeRecordBatchSync(sent[i] as Buffer);
      assert.equal(got.header.baseOffset, BigInt(i * 2));
      assert.deepEqual(got.records, want.records, `batch ${i} records`);
      assert.equal(got.header.baseTimestamp, want.header.baseTimestamp);
    });
    // Back to "producer": batches are stored as sent again.
    assert.equal((await incremental([{ type: TOPIC, name: 'zipped', ops: [['compression.type', SET, 'producer']] }])).responses[0]?.errorCode, 0);
    assert.equal((await produce('zipped', batch(2, { compression: Compression.Lz4 }))).errorCode, 0);
    const last = node.broker.services.replicaManager.read(p, 16n, 1 << 20, 'highWatermark', true).chunks.flatMap((chunk) => splitBatches(chunk));
    assert.equal(compressionOf(readBatchHeader(last[0] as Buffer).attributes), Compression.Lz4);
  });

  it('a batch that does not decompress is refused with CORRUPT_MESSAGE', async () => {
    await createTopic('zipped2', { 'compression.type': 'lz4' });
    const b = Buffer.from(buildRecordBatchSync({ compression: Compression.Gzip, records: [{ key: 'k', value: 'v'.repeat(500) }] }));
    b.fill(7, 70, 90);
    // Keep the CRC right so only the payload is bad.
    const { computeBatchCrc, Offsets } = await import('../../../src/protocol/record-batch/header.js');
    b.writeUInt32BE(computeBatchCrc(b), Offsets.crc);
    assert.equal((await produce('zipped2', b)).errorCode, ErrorCode.CORRUPT_MESSAGE);
    assert.equal((await produce('zipped2', batch(1))).errorCode, 0);
  });
});

describe('restart', () => {
  it('keeps topic and broker dynamic configs, and applies them at start-up', async () => {
    await createTopic('durable', { 'segment.bytes': '1024' });
    const r = await incremental([
      { type: TOPIC, name: 'durable', ops: [['max.message.bytes', SET, '1000'], ['retention.ms', SET, '3600000']] },
      { type: BROKER, name: '', ops: [['log.retention.ms', SET, '7200000'], ['log.cleanup.policy', SET, 'compact,delete']] },
      { type: BROKER, name: '1', ops: [['log.segment.bytes', SET, '2048']] },
    ]);
    assert.deepEqual(r.responses.map((x) => x.errorCode), [0, 0, 0]);
    await stop(node);
    node = await start();
    assert.deepEqual(await value(TOPIC, 'durable', 'max.message.bytes'), { ...(await value(TOPIC, 'durable', 'max.message.bytes')), value: '1000', configSource: 1 });
    assert.equal((await value(BROKER, '', 'log.retention.ms'))?.value, '7200000');
    assert.equal((await value(BROKER, '1', 'log.segment.bytes'))?.configSource, 2);
    assert.equal((await value(TOPIC, 'keys', 'segment.bytes'))?.value, '2048');
    assert.equal((await value(TOPIC, 'keys', 'cleanup.policy'))?.value, 'compact,delete');
    assert.equal((await produce('durable', batch(10, { bytes: 200 }))).errorCode, ErrorCode.MESSAGE_TOO_LARGE);
    // The logs opened at start-up got the dynamic defaults too.
    const cfg = partition('keys').log.config;
    assert.deepEqual([cfg.segmentBytes, cfg.retentionMs], [2048, 7200000]);
    // Clean up the broker-level defaults for any later test.
    await incremental([{ type: BROKER, name: '', ops: [['log.retention.ms', DELETE, null], ['log.cleanup.policy', DELETE, null]] }, { type: BROKER, name: '1', ops: [['log.segment.bytes', DELETE, null]] }]);
  });
});

/**
 * Configs through real clients against a broker process: kafkajs admin
 * describeConfigs / alterConfigs, confluent-kafka-python (librdkafka 2.0.2)
 * AdminClient describe_configs / alter_configs, changes surviving a restart,
 * and recompression: a gzip topic receives lz4 batches from kcat, stores gzip,
 * and kcat reads the records back exactly.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import kafkajs, { Kafka, logLevel, type Admin } from 'kafkajs';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { assertKcatProduceClean, kcatConsumeAll, kcatProduce } from '../../helpers/kcat.js';
import { walkPartitionLog } from '../../helpers/log-files.js';
import { uniqueName } from '../../helpers/records.js';
import { repoRoot } from '../../helpers/broker-process.js';
import { runPythonJson } from '../../helpers/run.js';
import { TOPIC_CONFIG_KEYS } from '../../../src/config/topic.js';
import { join } from 'node:path';

// kafkajs is CommonJS: its enum objects are not named ESM exports.
const { ConfigResourceTypes } = kafkajs;
const PY = join(repoRoot, 'test', 'integration', 'configs', 'py', 'confluent_configs.py');

interface PyError {
  code: number | null;
  name: string;
  str: string;
}
interface PyEntry {
  value: string | null;
  source: number;
  read_only: boolean;
  is_default: boolean;
  is_sensitive: boolean;
  synonyms: [string, string | null, number][];
}
interface PyDescribe {
  results: Record<string, { error: PyError | null; configs: Record<string, PyEntry> }>;
}
interface PyAlter {
  results: Record<string, PyError | null>;
}

describe('configs through kafkajs, confluent-kafka-python and kcat', { timeout: 300_000 }, () => {
  let broker: BrokerProcess;
  let admin: Admin;
  const py = <T>(command: string, args: Record<string, unknown>): Promise<T> => runPythonJson<T>(PY, command, { bootstrap: broker.bootstrap, ...args }, { timeoutMs: 60_000 });

  const connectAdmin = async (): Promise<Admin> => {
    const kafka = new Kafka({ clientId: 'configs-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3 } });
    const a = kafka.admin();
    await a.connect();
    return a;
  };

  before(async () => {
    broker = await startBroker({ name: 'configs', overrides: { 'log.retention.hours': '100' } });
    admin = await connectAdmin();
  });

  after(async () => {
    await admin?.disconnect();
    await broker?.cleanup();
  });

  it('kafkajs: describeConfigs shows every topic key with sources and synonyms; alterConfigs changes and validates', () =>
    broker.explain(async () => {
      const topic = uniqueName('kjs-configs');
      assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '123456' }] }] }), true);
      const described = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
      const entries = described.resources[0]?.configEntries ?? [];
      assert.equal(entries.length, TOPIC_CONFIG_KEYS.length, 'every topic key is described');
      const byName = new Map(entries.map((e) => [e.configName, e]));
      assert.equal(byName.get('retention.ms')?.configValue, '123456');
      assert.equal(byName.get('retention.ms')?.configSource, 1);
      assert.deepEqual(byName.get('retention.ms')?.configSynonyms.map((s) => [s.configName, s.configSource]).slice(0, 2), [['retention.ms', 1], ['log.retention.hours', 4]]);
      assert.equal(byName.get('segment.bytes')?.configSource, 5);

      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
      const after1 = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy', 'retention.ms'] }] });
      const values = Object.fromEntries((after1.resources[0]?.configEntries ?? []).map((e) => [e.configName, [e.configValue, e.configSource]]));
      // AlterConfigs replaced the whole set: retention.ms went back to the broker's value.
      assert.deepEqual(values, { 'cleanup.policy': ['compact', 1], 'retention.ms': ['360000000', 4] });

      await assert.rejects(
        admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: 'soon' }] }] }),
        (err: Error & { type?: string }) => err.type === 'INVALID_CONFIG' || /retention\.ms/.test(err.message),
      );
    }));

  it('kafkajs: broker resources — the node id lists every broker key, dynamic per-broker values can be set', () =>
    broker.explain(async () => {
      const described = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.BROKER, name: '1' }] });
      const entries = described.resources[0]?.configEntries ?? [];
      assert.ok(entries.length > 100, `broker keys: ${entries.length}`);
      const retention = entries.find((e) => e.configName === 'log.retention.ms');
      assert.deepEqual([retention?.configValue, retention?.configSource, retention?.readOnly], ['360000000', 4, false]);
      assert.equal(entries.find((e) => e.configName === 'num.partitions')?.readOnly, true);

      // kafkajs and librdkafka both refuse an empty resource name (the cluster-wide default); dynamic-configs.test.ts covers it on the wire.
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'log.segment.bytes', value: '50000000' }] }] });
      const mine = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: ['log.segment.bytes'] }] });
      const segment = mine.resources[0]?.configEntries[0];
      assert.deepEqual([segment?.configValue, segment?.configSource, segment?.configSynonyms.map((s) => s.configSource)], ['50000000', 2, [2, 5]]);
      await assert.rejects(
        admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'num.partitions', value: '3' }] }] }),
        (err: Error & { type?: string }) => err.type === 'INVALID_CONFIG' || /num\.partitions/.test(err.message),
      );
    }));

  it('confluent-kafka-python: describe_configs and alter_configs (validate_only, errors naming the key)', () =>
    broker.explain(async () => {
      const topic = uniqueName('py-configs');
      const created = await py<PyAlter>('create_topic', { topic, config: { 'max.message.bytes': '200000' } });
      assert.deepEqual(created.results, { [topic]: null });
      const d = await py<PyDescribe>('describe', { resources: [['topic', topic], ['broker', '1']] });
      const t = d.results[`topic:${topic}`];
      assert.equal(t?.error, null);
      assert.equal(Object.keys(t?.configs ?? {}).length, TOPIC_CONFIG_KEYS.length, 'every topic key is described');
      assert.deepEqual([t?.configs['max.message.bytes']?.value, t?.configs['max.message.bytes']?.source], ['200000', 1]);
      assert.deepEqual([t?.configs['retention.ms']?.value, t?.configs['retention.ms']?.source], ['360000000', 4]);
      const b = d.results['broker:1'];
      assert.equal(b?.error, null);
      assert.equal(b?.configs['node.id']?.read_only, true);

      const dry = await py<PyAlter>('alter', { resources: [['topic', topic, { 'retention.ms': '5000' }]], validate_only: true });
      assert.deepEqual(dry.results, { [`topic:${topic}`]: null });
      const bad = await py<PyAlter>('alter', { resources: [['topic', topic, { 'segment.bytes': '-5' }]] });
      assert.equal(bad.results[`topic:${topic}`]?.name, 'INVALID_CONFIG');
      assert.match(bad.results[`topic:${topic}`]?.str ?? '', /segment\.bytes/);
      const ok = await py<PyAlter>('alter', { resources: [['topic', topic, { 'retention.ms': '5000', 'max.message.bytes': '200000' }]] });
      assert.deepEqual(ok.results, { [`topic:${topic}`]: null });
      const again = await py<PyDescribe>('describe', { resources: [['topic', topic]] });
      assert.deepEqual([again.results[`topic:${topic}`]?.configs['retention.ms']?.value, again.results[`topic:${topic}`]?.configs['retention.ms']?.source], ['5000', 1]);

      const brokerBad = await py<PyAlter>('alter', { resources: [['broker', '1', { 'log.retention.ms': 'never' }]] });
      assert.equal(brokerBad.results['broker:1']?.name, 'INVALID_CONFIG');
      assert.match(brokerBad.results['broker:1']?.str ?? '', /log\.retention\.ms/);
      const brokerOk = await py<PyAlter>('alter', { resources: [['broker', '1', { 'log.retention.ms': '86400000' }]] });
      assert.deepEqual(brokerOk.results, { 'broker:1': null });
      const brokerNow = await py<PyDescribe>('describe', { resources: [['broker', '1']] });
      assert.deepEqual([brokerNow.results['broker:1']?.configs['log.retention.ms']?.value, brokerNow.results['broker:1']?.configs['log.retention.ms']?.source], ['86400000', 2]);
    }));

  it('dynamic configs survive a restart', () =>
    broker.explain(async () => {
      const topic = uniqueName('restart-configs');
      assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] }), true);
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'segment.ms', value: '3600000' }] }] });
      await admin.disconnect();
      await broker.restart();
      admin = await connectAdmin();
      const d = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['segment.ms', 'segment.bytes', 'retention.ms'] }] });
      const values = Object.fromEntries((d.resources[0]?.configEntries ?? []).map((e) => [e.configName, [e.configValue, e.configSource]]));
      // retention.ms comes from this broker's dynamic log.retention.ms (set by librdkafka's AlterConfigs above,
      // which replaced the broker's whole dynamic set, so the earlier log.segment.bytes is gone).
      assert.deepEqual(values, { 'segment.ms': ['3600000', 1], 'segment.bytes': ['1073741824', 5], 'retention.ms': ['86400000', 2] });
    }));

  it('recompression: a gzip topic gets lz4 batches from kcat, stores gzip, and kcat reads every record back', () =>
    broker.explain(async () => {
      const topic = uniqueName('recompress');
      assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'compression.type', value: 'gzip' }] }] }), true);
      const lines = Array.from({ length: 300 }, (_, i) => `key-${i}:value-${i}-${'abc'.repeat(20)}`);
      const produced = await kcatProduce(broker.bootstrap, topic, lines, { compression: 'lz4', partition: 0, headers: [['origin', 'kcat']] });
      assertKcatProduceClean(produced);
      const walk = walkPartitionLog(broker.dataDir, topic, 0);
      assert.ok(walk.batches.length > 0);
      assert.deepEqual([...new Set(walk.batches.map((b) => b.codec))], ['gzip']);
      assert.ok(walk.batches.every((b) => b.crcOk));
      const consumed = await kcatConsumeAll(broker.bootstrap, topic, { partition: 0 });
      assert.equal(consumed.length, lines.length);
      consumed.forEach((r, i) => {
        const [key, value] = (lines[i] as string).split(/:(.*)/s) as [string, string];
        assert.deepEqual([r.offset, r.key, r.value, r.headers], [BigInt(i), key, value, [['origin', 'kcat']]], `record ${i}`);
      });
    }));
});

/**
 * Admin's config calls against fake brokers: DescribeConfigs mapping (source
 * names, sensitive values hidden, synonyms, v3+ type and documentation, the
 * newest common version), routing (a broker resource goes to that broker),
 * per-resource errors, IncrementalAlterConfigs and AlterConfigs requests and
 * their INVALID_CONFIG errors with the broker's message, argument checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientErrorCode, KafkaProtocolError } from '../../../src/net/errors.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ADMIN_API_VERSIONS, requestsOf, startFakeCluster } from './admin-fixtures.js';
import type { FakeRequest } from './fake-broker.js';

type DescribeResource = { resourceType: number; resourceName: string; configurationKeys: string[] | null };

function describeReply(req: FakeRequest, nodeId: number): { body: Record<string, unknown> } {
  const resources = req.body.resources as DescribeResource[];
  return {
    body: {
      throttleTimeMs: 0,
      results: resources.map((r) => {
        if (r.resourceName === 'missing') {
          return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: "Topic 'missing' does not exist.", resourceType: r.resourceType, resourceName: r.resourceName, configs: [] };
        }
        const configs =
          r.resourceType === 2
            ? [
                {
                  name: 'retention.ms',
                  value: '1000',
                  readOnly: false,
                  configSource: 1,
                  isSensitive: false,
                  synonyms: [
                    { name: 'retention.ms', value: '1000', source: 1 },
                    { name: 'log.retention.ms', value: '604800000', source: 5 },
                  ],
                  configType: 5,
                  documentation: 'How long segments are kept.',
                },
                { name: 'cleanup.policy', value: 'delete', readOnly: false, configSource: 5, isSensitive: false, synonyms: [], configType: 7, documentation: null },
              ]
            : [
                { name: 'ssl.key.password', value: 'secret', readOnly: false, configSource: 4, isSensitive: true, synonyms: [{ name: 'ssl.key.password', value: 'secret', source: 4 }], configType: 9, documentation: null },
                { name: 'node.id', value: String(nodeId), readOnly: true, configSource: 4, isSensitive: false, synonyms: [], configType: 3, documentation: null },
              ];
        return { errorCode: 0, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs };
      }),
    },
  };
}

test('describeConfigs maps sources, synonyms, types and documentation, and hides sensitive values', async (t) => {
  const fake = await startFakeCluster((req, nodeId) => describeReply(req, nodeId));
  t.after(() => fake.stop());
  const [topic, missing] = await fake.admin.describeConfigs(
    [
      { type: 'topic', name: 'orders' },
      { type: 'topic', name: 'missing' },
    ],
    { includeSynonyms: true, includeDocumentation: true },
  );
  const [req] = requestsOf(fake.requests, 32);
  assert.equal(req?.req.apiVersion, 4, 'the newest version both sides support');
  assert.equal(req?.req.body.includeSynonyms, true);
  assert.equal(req?.req.body.includeDocumentation, true);
  assert.equal(topic?.error, null);
  assert.deepEqual(
    topic?.configs.map((c) => c.name),
    ['cleanup.policy', 'retention.ms'],
    'sorted by name',
  );
  const retention = topic?.configs.find((c) => c.name === 'retention.ms');
  assert.deepEqual(retention, {
    name: 'retention.ms',
    value: '1000',
    source: 'DYNAMIC_TOPIC_CONFIG',
    readOnly: false,
    isSensitive: false,
    synonyms: [
      { name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG' },
      { name: 'log.retention.ms', value: '604800000', source: 'DEFAULT_CONFIG' },
    ],
    type: 'LONG',
    documentation: 'How long segments are kept.',
  });
  assert.ok(missing?.error instanceof KafkaProtocolError);
  assert.equal(missing.error.errorName, 'UNKNOWN_TOPIC_OR_PARTITION');
  assert.equal(missing.error.serverMessage, "Topic 'missing' does not exist.");
  assert.deepEqual(missing.configs, []);
});

test('describeConfigs sends a broker resource to that broker, the defaults and topics to any broker', async (t) => {
  const fake = await startFakeCluster((req, nodeId) => describeReply(req, nodeId));
  t.after(() => fake.stop());
  const results = await fake.admin.describeConfigs([
    { type: 'broker', name: '2' },
    { type: 'topic', name: 'orders', keys: ['retention.ms'] },
    { type: 'broker', name: '' },
  ]);
  assert.deepEqual(
    results.map((r) => [r.type, r.name, r.error]),
    [
      ['broker', '2', null],
      ['topic', 'orders', null],
      ['broker', '', null],
    ],
    'results in the order asked',
  );
  const describes = requestsOf(fake.requests, 32);
  assert.equal(describes.length, 2, 'one request for broker 2, one for the rest');
  const toBroker2 = describes.find((r) => (r.req.body.resources as DescribeResource[]).some((x) => x.resourceName === '2'));
  assert.equal(toBroker2?.nodeId, 2);
  assert.deepEqual(toBroker2?.req.body.resources, [{ resourceType: 4, resourceName: '2', configurationKeys: null }]);
  const others = describes.filter((r) => r !== toBroker2).flatMap((r) => r.req.body.resources as DescribeResource[]);
  assert.deepEqual(others, [
    { resourceType: 2, resourceName: 'orders', configurationKeys: ['retention.ms'] },
    { resourceType: 4, resourceName: '', configurationKeys: null },
  ]);
  const password = results[0]?.configs.find((c) => c.name === 'ssl.key.password');
  assert.equal(password?.value, null, 'sensitive values are never shown');
  assert.equal(password?.synonyms[0]?.value, null);
  assert.equal(results[0]?.configs.find((c) => c.name === 'node.id')?.value, '2', 'answered by broker 2');
});

test('describeConfigs before v3 has no type or documentation', async (t) => {
  const versions = ADMIN_API_VERSIONS.map((v) => (v.apiKey === 32 ? { ...v, maxVersion: 2 } : v));
  const fake = await startFakeCluster((req, nodeId) => describeReply(req, nodeId), { apiVersions: versions });
  t.after(() => fake.stop());
  const [topic] = await fake.admin.describeConfigs([{ type: 'topic', name: 'orders' }], { includeDocumentation: true });
  assert.equal(requestsOf(fake.requests, 32)[0]?.req.apiVersion, 2);
  const retention = topic?.configs.find((c) => c.name === 'retention.ms');
  assert.equal(retention?.type, null);
  assert.equal(retention?.documentation, null);
  assert.equal(retention?.source, 'DYNAMIC_TOPIC_CONFIG');
});

test('incrementalAlterConfigs sends each operation and throws INVALID_CONFIG with the broker message', async (t) => {
  const fake = await startFakeCluster((req) => {
    const [r] = req.body.resources as { resourceType: number; resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }[];
    const bad = r?.configs.find((c) => c.value === 'abc');
    return {
      body: {
        throttleTimeMs: 0,
        responses: [
          {
            errorCode: bad === undefined ? 0 : ErrorCode.INVALID_CONFIG,
            errorMessage: bad === undefined ? null : `${bad.name}: expected an integer >= -1, got "abc"`,
            resourceType: r?.resourceType ?? 0,
            resourceName: r?.resourceName ?? '',
          },
        ],
      },
    };
  });
  t.after(() => fake.stop());
  await fake.admin.incrementalAlterConfigs(
    { type: 'topic', name: 'orders' },
    [
      { name: 'retention.ms', op: 'set', value: '1000' },
      { name: 'segment.bytes', op: 'delete' },
      { name: 'cleanup.policy', op: 'append', value: 'compact' },
      { name: 'leader.replication.throttled.replicas', op: 'subtract', value: '0:1' },
    ],
    { validateOnly: true },
  );
  const [sent] = requestsOf(fake.requests, 44);
  assert.equal(sent?.req.apiVersion, 1);
  assert.equal(sent?.req.body.validateOnly, true);
  assert.deepEqual(sent?.req.body.resources, [
    {
      resourceType: 2,
      resourceName: 'orders',
      configs: [
        { name: 'retention.ms', configOperation: 0, value: '1000' },
        { name: 'segment.bytes', configOperation: 1, value: null },
        { name: 'cleanup.policy', configOperation: 2, value: 'compact' },
        { name: 'leader.replication.throttled.replicas', configOperation: 3, value: '0:1' },
      ],
    },
  ]);

  await assert.rejects(
    fake.admin.incrementalAlterConfigs({ type: 'topic', name: 'orders' }, [{ name: 'retention.ms', op: 'set', value: 'abc' }]),
    (err: unknown) => {
      assert.ok(err instanceof KafkaProtocolError);
      assert.equal(err.errorName, 'INVALID_CONFIG');
      assert.match(err.serverMessage ?? '', /^retention\.ms: /);
      assert.match(err.message, /IncrementalAlterConfigs topic orders: INVALID_CONFIG.*retention\.ms/);
      return true;
    },
  );
});

test('incrementalAlterConfigs on broker 2 goes to broker 2; alterConfigs sends the whole set', async (t) => {
  const fake = await startFakeCluster((req) => {
    const [r] = req.body.resources as { resourceType: number; resourceName: string }[];
    return { body: { throttleTimeMs: 0, responses: [{ errorCode: 0, errorMessage: null, resourceType: r?.resourceType ?? 0, resourceName: r?.resourceName ?? '' }] } };
  });
  t.after(() => fake.stop());
  await fake.admin.incrementalAlterConfigs({ type: 'broker', name: '2' }, [{ name: 'log.cleaner.threads', op: 'set', value: '2' }]);
  assert.deepEqual(
    requestsOf(fake.requests, 44).map((r) => r.nodeId),
    [2],
  );
  await fake.admin.alterConfigs({ type: 'broker', name: '' }, { 'log.retention.ms': '1000', 'log.segment.bytes': '1048576' });
  const [legacy] = requestsOf(fake.requests, 33);
  assert.equal(legacy?.req.apiVersion, 2);
  assert.equal(legacy?.nodeId, 1, 'the controller');
  assert.deepEqual(legacy?.req.body.resources, [
    {
      resourceType: 4,
      resourceName: '',
      configs: [
        { name: 'log.retention.ms', value: '1000' },
        { name: 'log.segment.bytes', value: '1048576' },
      ],
    },
  ]);
});

test('config calls check their arguments before sending', async (t) => {
  const fake = await startFakeCluster(() => ({ none: true }));
  t.after(() => fake.stop());
  const invalid = (err: unknown): boolean => (err as { code?: unknown }).code === ClientErrorCode.INVALID_ARGUMENT;
  await assert.rejects(fake.admin.describeConfigs([{ type: 'broker', name: 'one' }]), invalid);
  await assert.rejects(fake.admin.describeConfigs([{ type: 'topic', name: '' }]), invalid);
  await assert.rejects(fake.admin.incrementalAlterConfigs({ type: 'topic', name: 't' }, [{ name: 'retention.ms', op: 'set' }]), invalid);
  await assert.rejects(fake.admin.incrementalAlterConfigs({ type: 'topic', name: 't' }, [{ name: '', op: 'delete' }]), invalid);
  assert.equal(fake.requests.filter((r) => r.req.apiKey !== 3).length, 0);
});

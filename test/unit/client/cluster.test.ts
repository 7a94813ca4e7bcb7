import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster, parseBootstrap } from '../../../src/client/cluster.js';
import { Admin } from '../../../src/client/admin.js';
import { ClientErrorCode, KafkaProtocolError, TributaryClientError } from '../../../src/net/errors.js';
import { decodeRecords, fetch, listOffsetsMany, produce, produceMany } from '../../../src/client/records.js';
import { buildControlBatch, buildRecordBatch, ControlRecordType } from '../../../src/protocol/record-batch/builder.js';
import { setBaseOffset } from '../../../src/protocol/record-batch/header.js';
import { decodeRecordBatch } from '../../../src/protocol/record-batch/reader.js';
import { FakeBroker, withApiVersions, type FakeBroker as Broker, type FakeReply, type FakeRequest } from './fake-broker.js';

interface FakeTopic {
  partitions: number;
}

/** Metadata for a one-node cluster (node 1 = the fake itself). */
function metadataReply(broker: Broker, topics: Map<string, FakeTopic>, req: FakeRequest, leaderId = 1): FakeReply {
  const requested = (req.body.topics as { name: string }[] | null) ?? null;
  const names = requested === null ? [...topics.keys()] : requested.map((t) => t.name);
  return {
    body: {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: broker.port, rack: null }],
      clusterId: 'fake',
      controllerId: 1,
      topics: names.map((name) => {
        const t = topics.get(name);
        if (t === undefined) return { errorCode: 3, name, isInternal: false, partitions: [] };
        return {
          errorCode: 0,
          name,
          isInternal: false,
          partitions: Array.from({ length: t.partitions }, (_, i) => ({
            errorCode: 0,
            partitionIndex: i,
            leaderId,
            leaderEpoch: 0,
            replicaNodes: [1],
            isrNodes: [1],
            offlineReplicas: [],
          })),
        };
      }),
    },
  };
}

test('parseBootstrap accepts lists, IPv6 and default ports, and rejects junk', () => {
  assert.deepEqual(parseBootstrap('a:1, b:2'), [
    { host: 'a', port: 1 },
    { host: 'b', port: 2 },
  ]);
  assert.deepEqual(parseBootstrap('[::1]:9093'), [{ host: '::1', port: 9093 }]);
  assert.deepEqual(parseBootstrap('localhost'), [{ host: 'localhost', port: 9092 }]);
  for (const bad of ['', 'a:0', 'a:99999', 'a:b', 'a:1:2']) {
    assert.throws(() => parseBootstrap(bad), (err: TributaryClientError) => err.code === ClientErrorCode.INVALID_ARGUMENT, bad);
  }
});

test('unreachable bootstrap brokers give ERR_TRIB_NO_BROKERS', async () => {
  const broker = await FakeBroker.start(() => ({ none: true }));
  const port = broker.port;
  await broker.stop();
  await assert.rejects(Cluster.connect({ bootstrap: `127.0.0.1:${port}`, retries: 0 }), (err: TributaryClientError) => err.code === ClientErrorCode.NO_BROKERS);
});

test('produce refreshes metadata and retries after NOT_LEADER_OR_FOLLOWER', async (t) => {
  const topics = new Map([['orders', { partitions: 2 }]]);
  let produces = 0;
  let metadataCalls = 0;
  const broker = await FakeBroker.start(
    withApiVersions((req, b) => {
      if (req.apiKey === 3) {
        metadataCalls++;
        return metadataReply(b, topics, req);
      }
      if (req.apiKey === 0) {
        produces++;
        const topicData = req.body.topicData as { name: string; partitionData: { index: number; records: Buffer }[] }[];
        const errorCode = produces === 1 ? 6 : 0;
        return {
          body: {
            responses: topicData.map((td) => ({
              name: td.name,
              partitionResponses: td.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: 42n, logAppendTimeMs: -1n, logStartOffset: 0n })),
            })),
            throttleTimeMs: 0,
          },
        };
      }
      return { none: true };
    }),
  );
  t.after(() => broker.stop());
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}`, retryBackoffMs: 1 });
  t.after(() => cluster.close());
  const result = await produce(cluster, 'orders', 1, [{ key: 'k', value: 'v' }], { acks: 1 });
  assert.equal(result.baseOffset, 42n);
  assert.equal(produces, 2);
  assert.ok(metadataCalls >= 3, `metadata calls: ${metadataCalls}`);
  // The batch sent is a valid v2 batch carrying the record.
  const last = broker.requests.filter((r) => r.apiKey === 0).at(-1) as FakeRequest;
  assert.equal(last.apiVersion, 7);
  assert.equal(last.body.acks, 1);
  const sent = (last.body.topicData as { partitionData: { index: number; records: Buffer }[] }[])[0]?.partitionData[0];
  assert.equal(sent?.index, 1);
  const decoded = await decodeRecordBatch(sent?.records as Buffer);
  assert.equal(decoded.records[0]?.value?.toString(), 'v');
  assert.equal(decoded.records[0]?.key?.toString(), 'k');
});

test('non-retriable produce errors surface as KafkaProtocolError with the Kafka name', async (t) => {
  const topics = new Map([['t', { partitions: 1 }]]);
  const broker = await FakeBroker.start(
    withApiVersions((req, b) => {
      if (req.apiKey === 3) return metadataReply(b, topics, req);
      return {
        body: {
          responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: 10, baseOffset: -1n }] }],
          throttleTimeMs: 0,
        },
      };
    }),
  );
  t.after(() => broker.stop());
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  t.after(() => cluster.close());
  await assert.rejects(produce(cluster, 't', 0, [{ value: 'x' }]), (err: KafkaProtocolError) => {
    assert.equal(err.code, ClientErrorCode.KAFKA);
    assert.equal(err.errorName, 'MESSAGE_TOO_LARGE');
    assert.equal(err.topic, 't');
    assert.equal(err.partition, 0);
    return true;
  });
});

test('unknown topics fail with UNKNOWN_TOPIC_OR_PARTITION after bounded retries', async (t) => {
  let metadataCalls = 0;
  const broker = await FakeBroker.start(
    withApiVersions((req, b) => {
      metadataCalls++;
      return metadataReply(b, new Map(), req);
    }),
  );
  t.after(() => broker.stop());
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}`, retries: 2, retryBackoffMs: 1 });
  t.after(() => cluster.close());
  metadataCalls = 0;
  await assert.rejects(
    produceMany(cluster, [{ topic: 'nope', partition: 0, records: [{ value: 'x' }] }]),
    (err: KafkaProtocolError) => err.errorName === 'UNKNOWN_TOPIC_OR_PARTITION',
  );
  assert.ok(metadataCalls >= 3 && metadataCalls <= 6, `metadata calls: ${metadataCalls}`);
});

test('acks=0 produce sends a one-way request', async (t) => {
  const topics = new Map([['t', { partitions: 1 }]]);
  const broker = await FakeBroker.start(withApiVersions((req, b) => (req.apiKey === 3 ? metadataReply(b, topics, req) : { none: true })));
  t.after(() => broker.stop());
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  t.after(() => cluster.close());
  const result = await produce(cluster, 't', 0, [{ value: 'fire and forget' }], { acks: 0, compression: 'gzip' });
  assert.equal(result.baseOffset, -1n);
  await new Promise((r) => setTimeout(r, 20));
  const sent = broker.requests.find((r) => r.apiKey === 0);
  assert.equal(sent?.body.acks, 0);
});

test('fetch and listOffsets go to the leader and decode records', async (t) => {
  const topics = new Map([['t', { partitions: 1 }]]);
  const batch = await buildRecordBatch({ records: [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })), compression: 1 });
  setBaseOffset(batch, 10n);
  const broker = await FakeBroker.start(
    withApiVersions((req, b) => {
      if (req.apiKey === 3) return metadataReply(b, topics, req);
      if (req.apiKey === 2) {
        const ts = ((req.body.topics as { partitions: { timestamp: bigint }[] }[])[0]?.partitions[0]?.timestamp ?? 0n) as bigint;
        return {
          body: {
            throttleTimeMs: 0,
            topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: ts === -2n ? 10n : 14n, leaderEpoch: 0 }] }],
          },
        };
      }
      return {
        body: {
          throttleTimeMs: 0,
          errorCode: 0,
          sessionId: 0,
          responses: [
            {
              topic: 't',
              partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 14n, lastStableOffset: 14n, logStartOffset: 10n, abortedTransactions: null, records: batch }],
            },
          ],
        },
      };
    }),
  );
  t.after(() => broker.stop());
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  t.after(() => cluster.close());
  const [earliest, latest] = await listOffsetsMany(cluster, [
    { topic: 't', partition: 0, spec: 'earliest' },
    { topic: 't', partition: 0, spec: 'latest' },
  ]);
  assert.equal(earliest?.offset, 10n);
  assert.equal(latest?.offset, 14n);
  const result = await fetch(cluster, { topic: 't', partition: 0, offset: 12n });
  assert.deepEqual(
    result.records.map((r) => [r.offset, r.key?.toString(), r.value?.toString()]),
    [
      [12n, 'k2', 'v2'],
      [13n, 'k3', 'v3'],
    ],
  );
  assert.equal(result.nextOffset, 14n);
  assert.equal(result.highWatermark, 14n);
  const fetchReq = broker.requests.find((r) => r.apiKey === 1);
  assert.equal(fetchReq?.apiVersion, 12);
  assert.equal(fetchReq?.body.isolationLevel, 0);
});

test('read_committed decoding drops aborted transactions and control batches', async () => {
  const pid = 7n;
  const txn = await buildRecordBatch({ records: [{ value: 'aborted-1' }, { value: 'aborted-2' }], producerId: pid, producerEpoch: 0, baseSequence: 0, transactional: true });
  setBaseOffset(txn, 0n);
  const plain = await buildRecordBatch({ records: [{ value: 'plain' }] });
  setBaseOffset(plain, 2n);
  const abort = buildControlBatch({ type: ControlRecordType.Abort, producerId: pid, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 3n });
  const committed = await buildRecordBatch({ records: [{ value: 'committed' }], producerId: pid, producerEpoch: 0, baseSequence: 2, transactional: true });
  setBaseOffset(committed, 4n);
  const data = Buffer.concat([txn, plain, abort, committed]);
  const position = { topic: 't', partition: 0, offset: 0n };
  const all = await decodeRecords(position, data, []);
  assert.deepEqual(
    all.out.map((r) => r.value?.toString()),
    ['aborted-1', 'aborted-2', 'plain', 'committed'],
  );
  assert.equal(all.nextOffset, 5n);
  const committedOnly = await decodeRecords(position, data, [{ producerId: pid, firstOffset: 0n }]);
  assert.deepEqual(
    committedOnly.out.map((r) => r.value?.toString()),
    ['plain', 'committed'],
  );
  // A truncated trailing batch is ignored, and nextOffset stops before it.
  const truncated = await decodeRecords(position, data.subarray(0, data.length - 5), []);
  assert.equal(truncated.nextOffset, 4n);
});

test('Admin maps CreateTopics, DeleteTopics and describe results per topic', async (t) => {
  const topics = new Map([['exists', { partitions: 3 }]]);
  const broker = await FakeBroker.start(
    withApiVersions((req, b) => {
      if (req.apiKey === 3) return metadataReply(b, topics, req);
      if (req.apiKey === 19) {
        const ts = req.body.topics as { name: string; numPartitions: number; replicationFactor: number; configs: { name: string; value: string }[] }[];
        return {
          body: {
            throttleTimeMs: 0,
            topics: ts.map((x) => {
              if (topics.has(x.name)) return { name: x.name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', errorCode: 36, errorMessage: `Topic '${x.name}' already exists.` };
              topics.set(x.name, { partitions: x.numPartitions });
              return { name: x.name, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', errorCode: 0, errorMessage: null, numPartitions: x.numPartitions, replicationFactor: x.replicationFactor };
            }),
          },
        };
      }
      if (req.apiKey === 20) {
        const names = (req.body.topics as { name: string }[]).map((x) => x.name);
        return {
          body: {
            throttleTimeMs: 0,
            responses: names.map((name) => ({ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', errorCode: topics.delete(name) ? 0 : 3, errorMessage: null })),
          },
        };
      }
      if (req.apiKey === 32) {
        const resources = req.body.resources as { resourceName: string }[];
        return {
          body: {
            throttleTimeMs: 0,
            results: resources.map((r) => ({
              errorCode: 0,
              errorMessage: null,
              resourceType: 2,
              resourceName: r.resourceName,
              configs: [
                { name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false, synonyms: [] },
                { name: 'cleanup.policy', value: 'delete', readOnly: false, configSource: 5, isSensitive: false, synonyms: [] },
              ],
            })),
          },
        };
      }
      return { none: true };
    }),
  );
  t.after(() => broker.stop());
  const admin = await Admin.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  t.after(() => admin.close());
  const created = await admin.createTopics([{ name: 'new', numPartitions: 4, configs: { 'retention.ms': '1000' } }, { name: 'exists' }]);
  assert.equal(created[0]?.error, null);
  assert.equal(created[0]?.topicId, 'AAAAAAAAAAAAAAAAAAAAAQ');
  assert.equal(created[0]?.numPartitions, 4);
  assert.equal(created[1]?.error?.errorName, 'TOPIC_ALREADY_EXISTS');
  const createReq = broker.requests.find((r) => r.apiKey === 19);
  assert.equal(createReq?.apiVersion, 7);
  const sentTopics = createReq?.body.topics as { replicationFactor: number; configs: unknown[] }[];
  assert.equal(sentTopics[0]?.replicationFactor, -1, 'broker default replication factor');
  assert.deepEqual(sentTopics[0]?.configs, [{ name: 'retention.ms', value: '1000' }]);

  const listed = await admin.listTopics();
  assert.deepEqual(
    listed.map((x) => [x.name, x.partitionCount]),
    [
      ['exists', 3],
      ['new', 4],
    ],
  );
  const [described, missing] = await admin.describeTopics(['new', 'missing']);
  assert.equal(described?.partitions.length, 4);
  assert.deepEqual(described?.partitions[0], { partition: 0, leader: 1, leaderEpoch: 0, replicas: [1], isr: [1], offlineReplicas: [], elr: null, lastKnownElr: null, error: null });
  assert.equal(described?.configs?.find((c) => c.name === 'retention.ms')?.source, 'DYNAMIC_TOPIC_CONFIG');
  assert.equal(missing?.error?.errorName, 'UNKNOWN_TOPIC_OR_PARTITION');

  const deleted = await admin.deleteTopics(['new', 'missing']);
  assert.equal(deleted[0]?.error, null);
  assert.equal(deleted[1]?.error?.errorName, 'UNKNOWN_TOPIC_OR_PARTITION');
  assert.equal(broker.requests.find((r) => r.apiKey === 20)?.apiVersion, 6);
  await assert.rejects(admin.createTopic({ name: 'bad/name' }), (err: TributaryClientError) => err.code === ClientErrorCode.INVALID_ARGUMENT);
});

/**
 * Shared by the admin handler tests: an in-process broker, one request at a
 * time over a RawClient (our codec), topic creation through the metadata
 * service, and produce of small batches.
 */
import assert from 'node:assert/strict';
import { buildRecordBatchSync } from '../../../../src/protocol/record-batch/builder.js';
import { RawClient, type InProcessBroker } from '../../../helpers/in-process-broker.js';

export class AdminCaller {
  private correlationId = 0;
  constructor(readonly client: RawClient) {}

  static async connect(node: InProcessBroker): Promise<AdminCaller> {
    return new AdminCaller(await RawClient.connect(node.port));
  }

  /** Sends one request and returns its decoded response (requests are not pipelined). */
  async call<T = Record<string, unknown>>(apiKey: number, version: number, body: unknown): Promise<T> {
    const id = ++this.correlationId;
    const before = this.client.arrivals.length;
    this.client.send(apiKey, version, id, body);
    await this.client.waitFor(before + 1);
    const frame = this.client.arrivals[before];
    assert.ok(frame, `a response to ${apiKey} v${version}`);
    assert.equal(frame.correlationId, id);
    return this.client.decode(apiKey, version, frame.body) as T;
  }

  close(): void {
    this.client.close();
  }
}

export async function createTopic(node: InProcessBroker, name: string, numPartitions = 1, configs: { name: string; value: string }[] = []): Promise<void> {
  const [r] = await node.broker.services.metadata.createTopics([{ name, numPartitions, replicationFactor: 1, assignments: [], configs }], false);
  assert.equal(r?.errorCode, 0, r?.errorMessage ?? 'create topic');
}

/** Produces `count` one-record batches to a partition (Produce v7, acks=1); returns the last base offset. */
export async function produce(c: AdminCaller, topic: string, partition: number, count: number): Promise<bigint> {
  let last = -1n;
  for (let i = 0; i < count; i++) {
    const records = buildRecordBatchSync({ records: [{ key: null, value: `record-${i}` }] });
    const r = await c.call<{ responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] }>(0, 7, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
    });
    const p = r.responses[0]?.partitionResponses[0];
    assert.equal(p?.errorCode, 0, 'produce');
    last = p.baseOffset;
  }
  return last;
}

export interface ListedOffset {
  errorCode: number;
  offset: bigint;
}

/** ListOffsets v1 for one partition (-2 earliest, -1 latest). */
export async function listOffset(c: AdminCaller, topic: string, partition: number, timestamp: bigint): Promise<ListedOffset> {
  const r = await c.call<{ topics: { partitions: ListedOffset[] }[] }>(2, 1, {
    replicaId: -1,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, timestamp }] }],
  });
  const p = r.topics[0]?.partitions[0];
  assert.ok(p);
  return p;
}

export interface FetchedPartition {
  errorCode: number;
  highWatermark: bigint;
  logStartOffset: bigint;
  records: Buffer | { chunks: Buffer[] };
}

/** Fetch v11 of one partition from `offset`, no waiting. */
export async function fetchAt(c: AdminCaller, topic: string, partition: number, offset: bigint): Promise<FetchedPartition> {
  const r = await c.call<{ responses: { partitions: FetchedPartition[] }[] }>(1, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    topics: [{ topic, partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [],
  });
  const p = r.responses[0]?.partitions[0];
  assert.ok(p);
  return p;
}

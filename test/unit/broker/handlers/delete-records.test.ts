/**
 * DeleteRecords (21) on an in-process broker, every version: the log start
 * moves (offset or -1 = high watermark), answers the low watermark, Fetch
 * below it answers OFFSET_OUT_OF_RANGE, ListOffsets earliest follows, and the
 * new start survives a restart (log-start-offset-checkpoint).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runBroker, type RunningBroker } from '../../../../src/broker/broker.js';
import { settingsFromConfig } from '../../../../src/broker/settings.js';
import { parseBrokerConfig } from '../../../../src/config/broker.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { startInProcessBroker, type InProcessBroker } from '../../../helpers/in-process-broker.js';
import { AdminCaller, createTopic, fetchAt, listOffset, produce } from './admin-helpers.js';

type DeleteResponse = { topics: { name: string; partitions: { partitionIndex: number; lowWatermark: bigint; errorCode: number }[] }[] };

let node: InProcessBroker;
let c: AdminCaller;

before(async () => {
  node = await startInProcessBroker();
  c = await AdminCaller.connect(node);
});

after(async () => {
  c?.close();
  await node?.stop();
});

function deleteRecords(version: number, topic: string, partitions: { partitionIndex: number; offset: bigint }[]): Promise<DeleteResponse> {
  return c.call<DeleteResponse>(21, version, { topics: [{ name: topic, partitions }], timeoutMs: 5000 });
}

for (const version of [0, 1, 2]) {
  test(`v${version}: moves the log start, answers the low watermark, and readers see it`, async () => {
    const topic = `dr-v${version}`;
    await createTopic(node, topic, 2);
    await produce(c, topic, 0, 10);
    const r = await deleteRecords(version, topic, [{ partitionIndex: 0, offset: 4n }]);
    assert.deepEqual(r.topics, [{ name: topic, partitions: [{ partitionIndex: 0, lowWatermark: 4n, errorCode: ErrorCode.NONE }] }]);
    assert.equal((await listOffset(c, topic, 0, -2n)).offset, 4n, 'ListOffsets earliest');
    assert.equal((await listOffset(c, topic, 0, -1n)).offset, 10n, 'ListOffsets latest unchanged');
    const below = await fetchAt(c, topic, 0, 2n);
    assert.equal(below.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE, 'Fetch below the new start');
    assert.equal(below.logStartOffset, 4n);
    const at = await fetchAt(c, topic, 0, 4n);
    assert.equal(at.errorCode, ErrorCode.NONE);
    assert.equal(at.logStartOffset, 4n);

    const hw = await deleteRecords(version, topic, [
      { partitionIndex: 0, offset: -1n },
      { partitionIndex: 1, offset: 0n },
    ]);
    assert.deepEqual(hw.topics[0]?.partitions, [
      { partitionIndex: 0, lowWatermark: 10n, errorCode: ErrorCode.NONE },
      { partitionIndex: 1, lowWatermark: 0n, errorCode: ErrorCode.NONE },
    ]);
    assert.equal((await listOffset(c, topic, 0, -2n)).offset, 10n);
  });
}

test('errors: beyond the high watermark, negative offsets, unknown topic or partition, compacted topics; lower offsets change nothing', async () => {
  await createTopic(node, 'dr-errors');
  await createTopic(node, 'dr-compacted', 1, [{ name: 'cleanup.policy', value: 'compact' }]);
  await createTopic(node, 'dr-both', 1, [{ name: 'cleanup.policy', value: 'compact,delete' }]);
  await produce(c, 'dr-errors', 0, 5);
  const codes = async (topic: string, partition: number, offset: bigint) => (await deleteRecords(2, topic, [{ partitionIndex: partition, offset }])).topics[0]?.partitions[0];
  assert.deepEqual(await codes('dr-errors', 0, 6n), { partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE });
  assert.equal((await codes('dr-errors', 0, -5n))?.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
  assert.equal((await codes('dr-errors', 3, 0n))?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal((await codes('no-such-topic', 0, 0n))?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal((await codes('dr-compacted', 0, 0n))?.errorCode, ErrorCode.POLICY_VIOLATION);
  assert.equal((await codes('dr-both', 0, 0n))?.errorCode, ErrorCode.NONE);
  assert.deepEqual(await codes('dr-errors', 0, 5n), { partitionIndex: 0, lowWatermark: 5n, errorCode: ErrorCode.NONE }, 'exactly the high watermark');
  assert.deepEqual(await codes('dr-errors', 0, 2n), { partitionIndex: 0, lowWatermark: 5n, errorCode: ErrorCode.NONE }, 'below the start');
});

test('the new log start survives a restart, and produce continues after it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trib-dr-restart-'));
  const start = (): Promise<RunningBroker> =>
    runBroker(settingsFromConfig(parseBrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:0', 'log.dirs': dataDir, 'log.segment.bytes': '1024' })), pino({ level: 'silent' }));
  let broker = await start();
  try {
    const asNode = (b: RunningBroker): InProcessBroker => ({ broker: b, port: (b.boundAddresses[0] as { port: number }).port, dataDir, stop: () => b.stop() });
    let caller = await AdminCaller.connect(asNode(broker));
    await createTopic(asNode(broker), 'dr-durable');
    await produce(caller, 'dr-durable', 0, 30);
    const r = await caller.call<DeleteResponse>(21, 1, { topics: [{ name: 'dr-durable', partitions: [{ partitionIndex: 0, offset: 17n }] }], timeoutMs: 1000 });
    assert.equal(r.topics[0]?.partitions[0]?.lowWatermark, 17n);
    caller.close();
    await broker.stop();
    broker = await start();
    caller = await AdminCaller.connect(asNode(broker));
    assert.equal((await listOffset(caller, 'dr-durable', 0, -2n)).offset, 17n, 'earliest after restart');
    assert.equal((await fetchAt(caller, 'dr-durable', 0, 16n)).errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    assert.equal(await produce(caller, 'dr-durable', 0, 1), 30n);
    caller.close();
  } finally {
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

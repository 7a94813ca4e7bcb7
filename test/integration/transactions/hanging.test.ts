// Hanging transactions (issue 13 part 6): a transaction opened on a
// partition by a producer no coordinator knows (written by hand with
// transaction.partition.verification.enable off, as a pre-KIP-890 late write
// would) holds the partition's LSO back. The partition leader finds it once
// it is open longer than transaction.max.timeout.ms, reports it (metrics,
// `txn list --hanging`'s rule) and, with transaction.hanging.abort.enable,
// aborts it: the LSO reaches the high watermark. A real transaction that
// its coordinator knows is left alone and still commits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startBroker, type RunningBroker } from '../../../src/broker/broker.js';
import { parseBrokerConfig } from '../../../src/config/broker.js';
import { Admin } from '../../../src/client/admin.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { findHangingTransactions } from '../../../src/cli/commands/txn-hanging.js';
import { decode, encode } from '../../../src/protocol/codec.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../../src/protocol/messages/22-init-producer-id.js';
import { RawConnection, parseProduceV7Response, produceRequest, requestFrame } from '../../helpers/raw-kafka.js';
import { scrape, value } from '../../helpers/prometheus-text.js';
import { waitUntil } from '../../helpers/groups.js';
import { uniqueName } from '../../helpers/records.js';

const MAX_TIMEOUT_MS = 1_500;

async function start(abort: boolean): Promise<{ broker: RunningBroker; bootstrap: string; metricsUrl: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trib-hanging-'));
  const config = parseBrokerConfig({
    listeners: 'PLAINTEXT://127.0.0.1:0',
    'log.dirs': dataDir,
    'metrics.listeners': 'http://127.0.0.1:0',
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.num.partitions': '1',
    'transaction.partition.verification.enable': 'false',
    'transaction.max.timeout.ms': String(MAX_TIMEOUT_MS),
    'transaction.hanging.check.interval.ms': '200',
    'transaction.hanging.abort.enable': String(abort),
    // The coordinator's own timeout scan stays out of the way: the live transaction below must outlast the maximum.
    'transaction.abort.timed.out.transaction.cleanup.interval.ms': '600000',
  });
  const broker = await startBroker(config, { logger: pino({ level: process.env['TRIBUTARY_TEST_LOGS'] === '1' ? 'debug' : 'silent' }) });
  const port = (broker.boundAddresses[0] as { port: number }).port;
  return {
    broker,
    bootstrap: `127.0.0.1:${port}`,
    metricsUrl: `${broker.metricsAddresses[0]?.url ?? ''}/metrics`,
    async stop() {
      await broker.stop('test done');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A transactional batch on partition 0 from a producer id no coordinator knows. */
async function ghostTransaction(bootstrap: string, topic: string): Promise<void> {
  const conn = await RawConnection.connect(Number(bootstrap.split(':')[1]));
  try {
    const init = encode(InitProducerIdRequest, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
    const pidFrame = await conn.request(requestFrame(22, 4, 1, init, { flexible: true }));
    const producerId = decode(InitProducerIdResponse, 4, pidFrame, 5).producerId;
    const batch = buildRecordBatchSync({ records: [{ key: null, value: 'ghost' }], producerId, producerEpoch: 0, baseSequence: 0, transactional: true });
    const frame = await conn.request(produceRequest(7, 2, -1, [{ name: topic, partitions: [{ index: 0, records: batch }] }], 10_000, 'ghost-tx'));
    assert.equal(parseProduceV7Response(frame).topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
  } finally {
    conn.close();
  }
}

async function offsets(admin: Admin, topic: string, partition: number): Promise<{ hw: bigint; lso: bigint }> {
  const [hw] = await admin.listOffsets([{ topic, partition, spec: 'latest' }]);
  const [lso] = await admin.listOffsets([{ topic, partition, spec: 'latest' }], { isolationLevel: 'read_committed' });
  return { hw: hw?.offset ?? -1n, lso: lso?.offset ?? -1n };
}

for (const abort of [true, false]) {
  test(`a hanging transaction is found${abort ? ' and aborted' : ' and only reported (transaction.hanging.abort.enable=false)'}; a known one is left alone`, { timeout: 60_000 }, async (t) => {
    const b = await start(abort);
    t.after(() => b.stop());
    const topic = uniqueName('hanging');
    const admin = await Admin.connect({ bootstrap: b.bootstrap });
    t.after(() => admin.close());
    await admin.createTopic({ name: topic, numPartitions: 2, replicationFactor: 1 });
    const live = await Producer.connect<string, string>({ clusterOptions: { bootstrap: b.bootstrap }, transactionalId: 'live-tx', transactionTimeoutMs: MAX_TIMEOUT_MS, keySerializer: Serializers.string, valueSerializer: Serializers.string });
    t.after(() => live.close());
    live.beginTransaction();
    await live.send({ topic, partition: 1, value: 'live' });
    await ghostTransaction(b.bootstrap, topic);
    assert.deepEqual(await offsets(admin, topic, 0), { hw: 1n, lso: 0n }, 'the ghost transaction holds the LSO back');

    if (abort) {
      await waitUntil('the hanging transaction is aborted', async () => (await offsets(admin, topic, 0)).lso === 2n, 15_000);
      const m = await scrape(b.metricsUrl);
      assert.equal(value(m, 'tributary_transactions_aborted_total', { cause: 'hanging' }), 1);
      assert.equal((await offsets(admin, topic, 0)).hw, 2n, 'an ABORT marker was appended after the ghost batch');
    } else {
      await waitUntil('the hanging transaction is reported', async () => value(await scrape(b.metricsUrl), 'tributary_transactions_hanging') === 1, 15_000);
      // The same rule from outside: `tributary txn list --hanging`.
      const found = await findHangingTransactions(admin.cluster, { maxTimeoutMs: MAX_TIMEOUT_MS });
      assert.deepEqual(found.map((h) => [h.topic, h.partition]), [[topic, 0]]);
      assert.deepEqual(await offsets(admin, topic, 0), { hw: 1n, lso: 0n }, 'left open');
    }
    const m = await scrape(b.metricsUrl);
    assert.equal(value(m, 'tributary_transactions_ongoing', { state: 'Ongoing' }), 1, 'the live transaction is open at its coordinator');
    assert.equal(value(m, 'tributary_last_stable_offset_lag', { topic, partition: 1 }), 1, 'it holds partition 1 back');
    // Open longer than the maximum, but its coordinator knows it: never touched by the leader.
    await live.commitTransaction();
    assert.equal(value(await scrape(b.metricsUrl), 'tributary_transactions_committed_total'), 1);
    assert.deepEqual(await offsets(admin, topic, 1), { hw: 2n, lso: 2n });
  });
}

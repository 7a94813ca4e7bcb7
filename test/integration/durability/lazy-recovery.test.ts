/**
 * Crash recovery on first use (src/storage/README.md, "Recovery", step 8),
 * end to end: a broker hosting PARTITIONS partitions is killed with kill -9,
 * two of its logs get a damaged tail on disk (a partial batch written after
 * the last acknowledged one, and a last batch cut short), and it starts
 * again with every log left for later. Each is recovered by its first
 * request or by the background slices, whichever comes first (the unit
 * tests, test/unit/storage/lazy-recovery.test.ts, take each path on its
 * own): the damaged tails are cut, the end offsets are right, new records
 * continue at the recovered ends, and a graceful restart then reads
 * everything back as it was.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, truncateSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Producer } from '../../../src/client/index.js';
import { fillPartitions, readValuesByPartition } from '../../helpers/read-values.js';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { partitionDir, walkPartitionLog } from '../../helpers/log-files.js';

const PARTITIONS = 40;
const ROUNDS = 5;
const RECOVERY_WAIT_MS = 60_000;
/** Partition with a partial batch after its last acknowledged one (a write torn by the kill). */
const TORN_AFTER = 0;
/** Partition whose last batch is cut short (its last record lost: the disk dropped it). */
const CUT_SHORT = 1;

function activeSegment(dataDir: string, topic: string, partition: number): string {
  const dir = partitionDir(dataDir, topic, partition);
  const logs = readdirSync(dir).filter((f) => /^\d{20}\.log$/.test(f)).sort();
  const last = logs[logs.length - 1];
  assert.ok(last !== undefined, `${dir} has a segment`);
  return join(dir, last);
}

/** The first half of the segment's first batch, written again at its end: a torn write. */
function appendTornBatch(path: string): void {
  const bytes = readFileSync(path);
  const length = bytes.readInt32BE(8) + 12;
  appendFileSync(path, bytes.subarray(0, Math.floor(length / 2)));
}

async function endOffsets(bootstrap: string, topic: string, partitions: number[]): Promise<bigint[]> {
  const admin = await Admin.connect({ bootstrap });
  try {
    const results = await admin.listOffsets(partitions.map((partition) => ({ topic, partition, spec: 'latest' as const })));
    return partitions.map((p) => {
      const r = results.find((x) => x.partition === p);
      assert.ok(r !== undefined && r.error === null, `ListOffsets for partition ${p}: ${r?.error?.message}`);
      return r.offset;
    });
  } finally {
    await admin.close();
  }
}

/** Waits for a line matching `pattern` in the output of the broker's latest start. */
async function waitForLine(broker: BrokerProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const output = broker.tail(400);
    const m = pattern.exec(output.slice(output.lastIndexOf(`----- ${broker.name} start #`)));
    if (m !== null) return m;
    assert.ok(Date.now() < deadline, `no log line ${pattern} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function expectedValues(partition: number, rounds: number): string[] {
  return Array.from({ length: rounds }, (_, r) => `p${partition}-r${r}`);
}

describe('crash recovery on first use, end to end', { timeout: 240_000 }, () => {
  test(`kill -9 with ${PARTITIONS} partitions, two damaged tails: served before recovery, each log recovered on first use or in the background`, async (t) => {
    const broker = await startBroker({ name: 'lazy-recovery' });
    t.after(() => broker.cleanup());
    await broker.explain(async () => {
      const topic = 'lazy';
      await fillPartitions(broker.bootstrap, topic, PARTITIONS, ROUNDS);
      await broker.kill9();

      appendTornBatch(activeSegment(broker.dataDir, topic, TORN_AFTER));
      const cut = activeSegment(broker.dataDir, topic, CUT_SHORT);
      truncateSync(cut, statSync(cut).size - 3);

      await broker.start();
      const loaded = await waitForLine(broker, /"awaitingRecovery":(\d+).*"msg":"logs loaded"/, 10_000);
      assert.ok(Number(loaded[1]) >= PARTITIONS, `every partition log was left for later: ${loaded[0]}`);

      // The damaged logs' ends: recovered by this request if the background slices have not reached them yet.
      assert.deepEqual(await endOffsets(broker.bootstrap, topic, [TORN_AFTER, CUT_SHORT]), [BigInt(ROUNDS), BigInt(ROUNDS - 1)]);
      const again = await Producer.connect<string, string>({ clusterOptions: { bootstrap: broker.bootstrap }, lingerMs: 0 });
      try {
        const acks = await again.sendBatch([
          { topic, partition: TORN_AFTER, key: null, value: `p${TORN_AFTER}-r${ROUNDS}` },
          { topic, partition: CUT_SHORT, key: null, value: `p${CUT_SHORT}-r${ROUNDS - 1}` },
        ]);
        assert.deepEqual(acks.map((a) => a.baseOffset), [BigInt(ROUNDS), BigInt(ROUNDS - 1)], 'new records continue at the recovered ends');
      } finally {
        await again.close();
      }
      await waitForLine(broker, /"msg":"recovered every log the crash left for later"/, RECOVERY_WAIT_MS);
      assert.equal(broker.tail(400).match(/recovered a log with a damaged tail/g)?.length, 2, 'both damaged logs reported');

      const check = (byPartition: Map<number, string[]>): void => {
        for (let p = 0; p < PARTITIONS; p++) {
          const rounds = p === TORN_AFTER ? ROUNDS + 1 : ROUNDS;
          assert.deepEqual(byPartition.get(p), expectedValues(p, rounds), `partition ${p}`);
        }
      };
      check(await readValuesByPartition(broker.bootstrap, topic, PARTITIONS, PARTITIONS * ROUNDS + 1));
      for (const p of [TORN_AFTER, CUT_SHORT]) {
        const walk = walkPartitionLog(broker.dataDir, topic, p);
        assert.ok(walk.batches.every((b) => b.crcOk), `partition ${p}: every stored batch passes its CRC`);
        assert.ok(walk.trailingBytes.every((x) => x.allZero), `partition ${p}: the damaged tail was cut`);
      }

      await broker.restart();
      await waitForLine(broker, /"cleanShutdown":true.*"msg":"logs loaded"/, 10_000);
      check(await readValuesByPartition(broker.bootstrap, topic, PARTITIONS, PARTITIONS * ROUNDS + 1));
      assert.deepEqual(broker.crashes, [], 'no crash');
    });
  });
});

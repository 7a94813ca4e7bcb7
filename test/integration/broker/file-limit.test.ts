/**
 * More partitions than file descriptors: a broker run with `ulimit -n 256`
 * hosts 400 partitions (1,200 segment files), takes a produce to every one,
 * is killed with kill -9, starts again under the same limit and serves every
 * record back. Before the file-handle pool (src/storage/file-handle-pool.ts)
 * it died with an uncaught EMFILE after about 80 partitions and then could
 * not start again.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fillPartitions, readValuesByPartition } from '../../helpers/read-values.js';
import { startBroker } from '../../helpers/broker-process.js';

const OPEN_FILES_LIMIT = 256;
const PARTITIONS = 400;
const RECORDS_PER_PARTITION = 3;

function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

describe('a broker with fewer file descriptors than segment files', { timeout: 240_000 }, () => {
  test(`hosts ${PARTITIONS} partitions under ulimit -n ${OPEN_FILES_LIMIT}, survives kill -9 and reads everything back`, async (t) => {
    const broker = await startBroker({ name: 'fd-limit', openFilesLimit: OPEN_FILES_LIMIT });
    t.after(() => broker.cleanup());
    const topic = 'many-partitions';
    await fillPartitions(broker.bootstrap, topic, PARTITIONS, RECORDS_PER_PARTITION);
    assert.ok(broker.isAlive(), 'the broker is still running');
    const pid = broker.pid as number;
    assert.ok(openDescriptors(pid) <= OPEN_FILES_LIMIT, 'within the limit (it could not be otherwise; this reads the count)');

    await broker.restart({ hard: true });
    assert.ok(broker.isAlive(), 'the broker started again after kill -9 under the same limit');

    const byPartition = await readValuesByPartition(broker.bootstrap, topic, PARTITIONS, PARTITIONS * RECORDS_PER_PARTITION);
    for (let p = 0; p < PARTITIONS; p++) {
      assert.deepEqual(byPartition.get(p), Array.from({ length: RECORDS_PER_PARTITION }, (_, r) => `p${p}-r${r}`), `partition ${p}`);
    }
    assert.deepEqual(broker.crashes, [], 'no crash');
  });
});

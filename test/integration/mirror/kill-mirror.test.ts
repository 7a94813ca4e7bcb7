/**
 * kill -9 of a `tributary mirror` child process in the middle of a stream,
 * then a restart with the same mm2.properties: every record produced on A
 * reaches B (at-least-once: duplicates only around the crash), in order per
 * partition once duplicates are set aside.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin, Producer } from '../../../src/client/index.js';
import type { EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { MM2_ONE_BROKER, endOffsetSum, recordsByPartition, startTwoClusters } from '../../helpers/mirror-clusters.js';
import { until } from '../../helpers/until.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const TOTAL = 3000;
let a: EmbeddedCluster;
let b: EmbeddedCluster;
let dir: string;
let child: ChildProcess | null = null;

before(async () => {
  ({ a, b } = await startTwoClusters());
  dir = mkdtempSync(join(tmpdir(), 'mirror-kill-'));
});
after(async () => {
  if (child !== null && child.exitCode === null) child.kill('SIGKILL');
  await Promise.all([a.stop(), b.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

function startChild(file: string): ChildProcess {
  const p = spawn(process.execPath, [MAIN, 'mirror', file], { stdio: ['ignore', 'ignore', 'ignore'] });
  child = p;
  return p;
}

const remoteCount = (): Promise<bigint> => endOffsetSum(b.bootstrap, 'A.orders', 2);

test('kill -9 of the mirror mid-stream, restart: nothing lost', { timeout: 300_000 }, async () => {
  const file = join(dir, 'mm2.properties');
  writeFileSync(file, [
    'clusters = A, B',
    `A.bootstrap.servers = ${a.bootstrap}`,
    `B.bootstrap.servers = ${b.bootstrap}`,
    'A->B.enabled = true',
    'A->B.topics = orders',
    ...Object.entries(MM2_ONE_BROKER).map(([k, v]) => `${k} = ${v}`),
    'offset.flush.interval.ms = 500',
    '',
  ].join('\n'));
  const admin = await Admin.connect({ bootstrap: a.bootstrap });
  await admin.createTopics([{ name: 'orders', numPartitions: 2, replicationFactor: 1 }]);
  await admin.close();
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: a.bootstrap } });
  let next = 0;
  const produce = async (n: number): Promise<void> => {
    const batch = Array.from({ length: n }, () => ({ topic: 'orders', partition: next % 2, value: String(next++) }));
    await producer.sendBatch(batch);
  };
  try {
    const first = startChild(file);
    await produce(500);
    await until('replication to start', async () => ((await remoteCount()) > 0n ? true : null), 120_000);
    // Keep producing while the mirror copies, then kill it in the middle.
    for (let i = 0; i < 10; i++) await produce(100);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await remoteCount();
    await produce(TOTAL - next);
    assert.ok(atKill > 0n && atKill < BigInt(TOTAL), `killed with ${atKill} of ${TOTAL} records copied`);
    startChild(file);
    await until('every record on B after the restart', async () => ((await remoteCount()) >= BigInt(TOTAL) ? true : null), 180_000);
  } finally {
    await producer.close();
  }
  const records = await recordsByPartition(b.bootstrap, 'A.orders', 2, Number(await remoteCount()));
  const seen = new Map([...records].map(([p, list]) => [p, list.map((r) => Number(String(r.value)))]));
  const all = new Set([...seen.values()].flat());
  for (let v = 0; v < TOTAL; v++) assert.ok(all.has(v), `record ${v} reached B`);
  for (const [p, list] of seen) {
    // Without the re-sent stretch, values rise: order per partition is kept.
    const firsts = list.filter((v, i) => list.indexOf(v) === i);
    assert.deepEqual(firsts, [...firsts].sort((x, y) => x - y), `partition ${p} in order`);
  }
});

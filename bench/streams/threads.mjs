/**
 * Does a second stream thread pay off? (build first: npm run build)
 *
 *   node bench/streams/threads.mjs [--count N]
 *
 * In Node.js the analogue of Kafka's num.stream.threads is more event loops,
 * each with its own consumer and producer: worker_threads or processes. This
 * measures that directly with processes (a worker thread with its own
 * clients costs the same CPU and has no shared state to gain from):
 * one embedded broker in this process, N JSON records produced once to a
 * 4-partition topic, then the stateless bench topology (threads-instance.mjs)
 * run by 1 and by 2 instances of one application, each from offset 0 with its
 * own application id and output topic. Time = spawn -> the output holds every
 * expected record (end offsets polled every 50 ms), so it includes start-up
 * and the group join (equal for both). Prints one JSON line per run, and the
 * load average, since the machine is shared.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../../dist/src/embedded/cluster.js';
import { Admin, Producer } from '../../dist/src/client/index.js';

const i = process.argv.indexOf('--count');
const COUNT = i < 0 ? 200_000 : Number(process.argv[i + 1]);
const PARTITIONS = 4;
const runner = join(dirname(fileURLToPath(import.meta.url)), 'threads-instance.mjs');

const cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 }, logLevel: 'error' });
const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
const input = `threads-in-${Date.now()}`;
await admin.createTopics([{ name: input, numPartitions: PARTITIONS }]);
const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap } });
for (let from = 0; from < COUNT; from += 5_000) {
  const batch = [];
  for (let id = from; id < Math.min(COUNT, from + 5_000); id++) batch.push({ topic: input, key: Buffer.from(`k${id}`), value: Buffer.from(JSON.stringify({ id, text: `record ${id} of the thread bench with a few words` })) });
  await producer.sendBatch(batch);
}
await producer.close();
const expected = Math.ceil(COUNT / 2);

async function endOffsets(topic) {
  const r = await admin.listOffsets(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, spec: 'latest' })));
  return r.reduce((n, x) => n + Number(x.offset), 0);
}

async function runWith(instances) {
  const tag = `${instances}-${Date.now()}`;
  const output = `threads-out-${tag}`;
  await admin.createTopics([{ name: output, numPartitions: PARTITIONS }]);
  const stateDir = mkdtempSync(join(tmpdir(), 'threads-bench-'));
  const started = performance.now();
  const children = Array.from({ length: instances }, () =>
    spawn(process.execPath, [runner], { env: { ...process.env, INPUT: input, OUTPUT: output, APP_ID: `threads-${tag}`, BOOTSTRAP: cluster.bootstrap, STATE_DIR: stateDir }, stdio: 'ignore' }),
  );
  try {
    for (;;) {
      if ((await endOffsets(output)) >= expected) break;
      if (performance.now() - started > 600_000) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
    const ms = performance.now() - started;
    return { instances, records: COUNT, ms: Math.round(ms), recordsPerSec: Math.round((COUNT * 1000) / ms), loadavg1: Number(loadavg()[0].toFixed(1)), cpus: cpus().length };
  } finally {
    await Promise.all(children.map((c) => new Promise((r) => (c.on('exit', r), c.kill('SIGTERM')))));
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const results = [];
for (const n of [1, 2, 1, 2]) {
  const r = await runWith(n);
  results.push(r);
  console.log(JSON.stringify(r));
}
await admin.close();
await cluster.stop();
const best = (n) => Math.max(...results.filter((r) => r.instances === n).map((r) => r.recordsPerSec));
console.log(`best of 2: 1 instance ${best(1)} records/s, 2 instances ${best(2)} records/s (x${(best(2) / best(1)).toFixed(2)})`);

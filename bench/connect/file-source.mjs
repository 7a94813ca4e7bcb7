// File source to topic: the standalone worker's FileStreamSource copying N small lines into a topic,
// beside `tributary produce --file` of the same file into another topic, on one broker (one partition,
// StringConverter, the worker's default acks=all). Build first (npm run build). One run; prints JSON lines.
//   node bench/connect/file-source.mjs [--records N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '../../dist/src/client/index.js';
import { startStandalone } from '../../dist/src/connect/index.js';
import { startCluster } from '../../dist/src/embedded/cluster.js';

const args = process.argv.slice(2);
const count = Number(args[args.indexOf('--records') + 1] ?? 1_000_000) || 1_000_000;
const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bench-connect-'));
const cluster = await startCluster({ config: { 'num.partitions': 1 }, isolation: 'process' });
const admin = await Admin.connect({ bootstrap: cluster.bootstrap });

async function endOffset(topic) {
  try {
    return Number((await admin.listOffsets(topic, 0, 'latest')).offset);
  } catch {
    return 0;
  }
}

async function until(topic, n, limitMs = 600_000) {
  const deadline = Date.now() + limitMs;
  while ((await endOffset(topic)) < n) {
    if (Date.now() > deadline) throw new Error(`${topic}: timed out`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

try {
  const file = join(dir, 'in.txt');
  const lines = [];
  for (let i = 0; i < count; i++) lines.push(`record-${String(i).padStart(9, '0')}`);
  writeFileSync(file, lines.join('\n') + '\n');
  const bytes = Buffer.byteLength(lines[0] ?? '');
  // Both topics exist before timing starts.
  await admin.createTopics([{ name: 'bench-connect', numPartitions: 1 }, { name: 'bench-produce', numPartitions: 1 }]);

  let t0 = performance.now();
  const worker = await startStandalone(
    { 'bootstrap.servers': cluster.bootstrap, listeners: 'http://127.0.0.1:0', 'offset.storage.file.filename': join(dir, 'offsets'), 'key.converter': 'StringConverter', 'value.converter': 'StringConverter' },
    [{ name: 'src', 'connector.class': 'FileStreamSource', file, topic: 'bench-connect', 'batch.size': '2000' }],
    () => undefined,
  );
  await until('bench-connect', count);
  const connectMs = performance.now() - t0;
  await worker.close();
  console.log(JSON.stringify({ phase: 'connect-file-source', records: count, bytes, ms: Math.round(connectMs), recordsPerSec: Math.round((count / connectMs) * 1000) }));

  t0 = performance.now();
  const r = spawnSync(process.execPath, [MAIN, 'produce', 'bench-produce', '--bootstrap', cluster.bootstrap, '--file', file], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('tributary produce failed');
  await until('bench-produce', count);
  const produceMs = performance.now() - t0;
  console.log(JSON.stringify({ phase: 'tributary-produce', records: count, bytes, ms: Math.round(produceMs), recordsPerSec: Math.round((count / produceMs) * 1000) }));
} finally {
  await admin.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

#!/usr/bin/env node
// Graceful-stop cost of many loaded partition logs (issue 17): what the broker's LogManager does
// at a clean shutdown (flush every log, a producer-state snapshot each, checkpoints, the marker),
// in this process on a NodeFileSystem, without the rest of the broker.
//
//   node bench/stop-time.mjs [--partitions N] [--records R] [--sync] [--dist DIR]
//
// Creates N logs in a fresh temp directory, appends R single-record batches of 100 B to each (so
// every log has a dirty segment and, with idempotent-free batches, an empty producer state: the
// snapshot is written anyway, as at every clean close), then times the stop: `closeAsync()` when
// the build has it (the overlapped stop), `close()` otherwise or with --sync. Prints one JSON line
// with the stop time, the event loop's longest stall during it, the load average, and checks the
// result by reopening the directory (clean shutdown seen, every end offset right). DIST (or
// --dist) picks the build, e.g. another tree's dist to compare (default ./dist).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const partitions = Number(opt('--partitions', '10000'));
const records = Number(opt('--records', '1'));
const forceSync = args.includes('--sync');
const dist = resolve(opt('--dist', process.env.DIST ?? join(here, '..', 'dist')));
if (!Number.isSafeInteger(partitions) || partitions < 1 || partitions > 200_000) throw new Error('--partitions 1..200000');
if (!Number.isSafeInteger(records) || records < 1 || records > 1000) throw new Error('--records 1..1000');

const load = (p) => import(pathToFileURL(join(dist, p)).href);
const { NodeFileSystem } = await load('src/storage/fs.js');
const { LogManager } = await load('src/storage/log-manager.js');
const { DEFAULT_LOG_CONFIG } = await load('src/storage/config.js');
const { systemClock } = await load('src/util/clock.js').catch(() => ({ systemClock: undefined }));
const { simpleBatch } = await load('test/unit/storage/batch-fixture.js');

const clock = systemClock ?? { nowMs: () => Date.now() };
const dir = mkdtempSync(join(tmpdir(), 'tributary-stop-'));
const open = () => LogManager.open({ fs: new NodeFileSystem({ openFilesMax: 1024 }), clock, dataDir: dir, defaultConfig: { ...DEFAULT_LOG_CONFIG } });
try {
  const { manager } = open();
  const t0 = performance.now();
  const ends = [];
  for (let p = 0; p < partitions; p++) {
    const log = manager.getOrCreateLog('stop', p);
    for (let r = 0; r < records; r++) log.append(simpleBatch(1, 100));
    ends.push(log.logEndOffset);
  }
  const createMs = performance.now() - t0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const async = !forceSync && typeof manager.closeAsync === 'function';
  const t1 = performance.now();
  if (async) await manager.closeAsync();
  else manager.close();
  const stopMs = performance.now() - t1;
  delay.disable();
  const again = open();
  let wrong = 0;
  for (let p = 0; p < partitions; p++) if (again.manager.getLog('stop', p)?.logEndOffset !== ends[p]) wrong++;
  again.manager.close();
  console.log(JSON.stringify({
    dist,
    partitions,
    records,
    stop: async ? 'closeAsync' : 'close',
    createMs: Math.round(createMs),
    stopMs: Math.round(stopMs),
    // Longest time the event loop could not run during the stop (a sync close is one stall).
    loopMaxStallMs: async ? Math.round(delay.max / 1e6) : Math.round(stopMs),
    cleanShutdownSeen: again.hadCleanShutdown,
    wrongEndOffsets: wrong,
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

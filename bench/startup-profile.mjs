#!/usr/bin/env node
// Profiles one broker start-up on an existing data directory (issue 17), for
// example one kept by `KEEP_DATA=1 node bench/partitions.mjs`.
//
//   node bench/startup-profile.mjs DATA_DIR [--stop] [--heap] [--recovered] [--out FILE.cpuprofile]
//   node --trace-gc bench/startup-profile.mjs DATA_DIR      # GC lines on stdout
//
// Runs the broker in this process (as `tributary start` does, log.level=warn,
// a free port) under the V8 profiler, from loading the broker module until
// startBroker resolves (the port is bound and the metadata replayed), writes
// the profile (default bench/profiles/startup-<stamp>.cpuprofile) and prints a
// JSON line: ms to start, RSS, heap, open descriptors, GC count and time.
// Then it exits at once, without a clean shutdown: the directory is left as
// after a crash, so running it twice profiles a clean start (if the directory
// was stopped cleanly) and then a recovery. With --stop it shuts the broker
// down gracefully instead (timed; leaves the directory clean).
// --heap also writes a heap snapshot after the start (FILE.heapsnapshot).
// After a crash, logs left for background recovery are counted
// (`awaitingRecovery`) and, with --recovered, it waits until none is left
// (`recoveredMs`, from startBroker resolving; RSS and heap then).
// Summarise the profile with `node bench/top-profile.mjs FILE`.
import { Session } from 'node:inspector/promises';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', process.env.BROKER_DIST ?? 'dist');
const args = process.argv.slice(2);
const dataDir = args.find((a) => !a.startsWith('--'));
if (dataDir === undefined) {
  console.error('usage: node bench/startup-profile.mjs DATA_DIR [--stop] [--heap] [--recovered] [--out FILE.cpuprofile]');
  process.exit(2);
}
const outIdx = args.indexOf('--out');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const out = outIdx >= 0 ? args[outIdx + 1] : join(here, 'profiles', `startup-${stamp}.cpuprofile`);
const overrides = (process.env.OVERRIDES ?? '').split(/\s+/).filter((s) => s !== '');

// The embedded launcher's free-port probe, from the build under test.
const { freePort } = await import(pathToFileURL(join(dist, 'src/embedded/probe.js')).href);

/** Hosted partitions, how many of their logs were loaded (older builds have no `isLoaded`: all), how many await recovery. */
function logCounts(broker) {
  let partitions = 0;
  let logsLoaded = 0;
  let awaitingRecovery = 0;
  for (const p of broker.services.replicaManager.all()) {
    partitions++;
    if (p.log.isLoaded !== false) logsLoaded++;
    if (p.log.awaitingRecovery === true) awaitingRecovery++;
  }
  return { partitions, logsLoaded, awaitingRecovery };
}

const memory = () => ({
  rssMiB: Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024),
  heapUsedMiB: Math.round(process.memoryUsage().heapUsed / 1048576),
});

const gc = { count: 0, ms: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

const port = await freePort();
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 500 });
await session.post('Profiler.start');
const t0 = performance.now();
const { loadBrokerConfig } = await import(pathToFileURL(join(dist, 'src', 'config', 'broker.js')).href);
const { createLogger } = await import(pathToFileURL(join(dist, 'src', 'util', 'log.js')).href);
const { startBroker } = await import(pathToFileURL(join(dist, 'src', 'broker', 'broker.js')).href);
const config = loadBrokerConfig({
  overrides: Object.fromEntries([
    ['listeners', `PLAINTEXT://127.0.0.1:${port}`], ['log.dirs', resolve(dataDir)], ['log.level', 'warn'],
    ...overrides.map((o) => [o.slice(0, o.indexOf('=')), o.slice(o.indexOf('=') + 1)]),
  ]),
});
const logger = createLogger(config.get('log.level'), { pretty: false });
const t1 = performance.now();
const cpu0 = process.cpuUsage();
const broker = await startBroker(config, { logger });
const startMs = performance.now() - t1;
const cpu = process.cpuUsage(cpu0);
const { profile } = await session.post('Profiler.stop');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(profile));
const line = {
  dataDir, load: loadavg()[0], importMs: Math.round(t1 - t0), startMs: Math.round(startMs), startCpuMs: Math.round((cpu.user + cpu.system) / 1000),
  ...memory(), openFds: readdirSync('/proc/self/fd').length, ...logCounts(broker), gcCount: gc.count, gcMs: Math.round(gc.ms), profile: out,
};
if (args.includes('--recovered') && line.awaitingRecovery > 0) {
  const s = performance.now();
  const cpuR = process.cpuUsage();
  while (logCounts(broker).awaitingRecovery > 0) await new Promise((r) => setTimeout(r, 50));
  const c = process.cpuUsage(cpuR);
  line.recovered = { recoveredMs: Math.round(performance.now() - s), recoveryCpuMs: Math.round((c.user + c.system) / 1000), ...memory(), gcCount: gc.count, gcMs: Math.round(gc.ms) };
}
if (args.includes('--heap')) {
  const { writeHeapSnapshot } = await import('node:v8');
  line.heapSnapshot = writeHeapSnapshot(out.replace(/\.cpuprofile$/, '') + '.heapsnapshot');
}
if (args.includes('--stop')) {
  const s = performance.now();
  await broker.stop('profile done');
  line.stopMs = Math.round(performance.now() - s);
}
console.log(JSON.stringify(line));
process.exit(0);

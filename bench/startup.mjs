#!/usr/bin/env node
// Start-up benchmark (issue 5, Performance): time from "start the broker" to
// the first accepted produce, and the idle broker's resident memory, for
//
//   worker   startCluster() (a worker thread) in a fresh node process per run
//   process  startCluster({ isolation: 'process' }) (a child process)
//   cli      `node dist/src/cli/main.js start` spawned with a fresh data dir
//   npm      `npm start -- --override ...` (prestart's up-to-date check included; not in the default MODES)
//
// "First accepted produce" = connect (ApiVersions) + CreateTopics + one
// Produce with acks=1 answered without error, through our src/client. For the
// CLI a plain TCP probe retries every 5 ms until the port accepts (the broker
// binds before it serves), then the client connects once. (Retrying the full
// client connect instead costs ~70 client set-ups that compete with the
// broker for the 2 cores: it added 100-200 ms.)
// Each run uses a new process (no warm module cache) and a new data dir.
//
// Memory: VmRSS from /proc/PID/status 1 s after the produce (the broker idle).
// With IDLE_RSS_AFTER_S=10 (CLI mode), also N s after the produce: V8's memory
// reducer shrinks the heap after about 8 s without allocation, so an idle
// broker settles lower than it is 1 s after its first request.
// For the CLI and 'process' that is the broker's own process; for 'worker' it
// is the RSS increase of the caller's process (after it loaded the client and
// the tributary entry) from before startCluster to after, i.e. what the
// broker thread costs the test process.
//
// Also reported: the broker's CPU time to the produce (utime+stime of the
// broker process; for 'worker', of the calling process from startCluster on,
// so it includes the client's few ms), which other load on the machine
// inflates far less than wall time, and where the time went inside the host
// (cluster.startupTimings: spawn to the host's entry module, module import, runBroker).
//
//   node bench/startup.mjs                 # 10 runs of each mode (build first)
//   RUNS=3 MODES=cli,worker node bench/startup.mjs
//   BROKER_DIST=bench/startup-build/dist node bench/startup.mjs   # a private build
//   CPU_PROF=1 node bench/startup.mjs      # also one CLI start under --cpu-prof (bench/profiles/)
//   BASELINE_DIST=tmp/base/dist MODES=cli node bench/startup.mjs
//        # each mode alternates run by run between the baseline build and this one (rows "mode@base")
//
// The CLI is started through the package's bin (dist/src/cli/tributary.js, which runs the start-up
// bundle when it is fresh: src/cli/README.md) when the build has it, else dist/src/cli/main.js.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { loadavg, tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const dist = resolve(repo, process.env.BROKER_DIST ?? 'dist');
const RUNS = Number(process.env.RUNS ?? 10);
const MODES = (process.env.MODES ?? 'worker,process,cli').split(',');
const IDLE_SETTLE_MS = 1000;
const IDLE_RSS_AFTER_MS = Number(process.env.IDLE_RSS_AFTER_S ?? 0) * 1000;
const baselineDist = process.env.BASELINE_DIST === undefined ? null : resolve(repo, process.env.BASELINE_DIST);
// Issue 17's aims for `tributary start`: first produce under 300 ms, idle RSS under 60 MiB.
const GOAL_MS = 300;
const GOAL_MIB = 60;
// `npm start` when nothing changed (prestart's check, npm itself, then the CLI): under 1.5 s.
const GOAL_NPM_MS = 1500;
const CONNECT_RETRY_MS = 5;
const RUN_TIMEOUT_MS = 60_000;
const TICKS_PER_S = 100; // USER_HZ on Linux

// ---------------------------------------------------------------- helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** utime+stime of a process, in ms. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolvePort(port));
    });
  });
}

async function loadClient() {
  return import(pathToFileURL(join(dist, 'src', 'client', 'index.js')).href);
}

/** The CLI entry of a build: the bin (tributary.js) when the build has one, else main.js (older builds). */
/** The node flags on a bin's first line (`#!/usr/bin/env -S node FLAGS`); none for `#!/usr/bin/env node`. */
function binFlags(file) {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0];
  const m = /^#!\/usr\/bin\/env -S node(.*)$/.exec(first);
  return m === null ? [] : m[1].trim().split(/\s+/).filter((a) => a !== '');
}

function cliEntry(distDir) {
  const bin = join(distDir, 'src', 'cli', 'tributary.js');
  return existsSync(bin) ? bin : join(distDir, 'src', 'cli', 'main.js');
}

/** Resolves once a TCP connection to host:port is accepted (a cheap probe: no client objects per try). */
function tcpAccepts(host, port) {
  return new Promise((resolveProbe) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolveProbe(true);
    });
    socket.once('error', () => resolveProbe(false));
  });
}

/**
 * Wait until the port accepts (probing every 5 ms), then connect, create a
 * topic and produce one record with acks=1. The broker binds before it
 * serves; a connection made in between waits in the accept queue, so the
 * client's first request is answered as soon as the broker serves.
 */
async function firstProduce(client, bootstrap, deadlineMs) {
  const [host, port] = bootstrap.split(':');
  while (!(await tcpAccepts(host, Number(port)))) {
    if (performance.now() > deadlineMs) throw new Error(`${bootstrap} never accepted a connection`);
    await sleep(CONNECT_RETRY_MS);
  }
  const admin = await client.Admin.connect({ bootstrap, retries: 0, connectTimeoutMs: 10_000 });
  try {
    const [created] = await admin.createTopics([{ name: 'startup', numPartitions: 1 }]);
    if (created?.error) throw created.error;
    const result = await client.produce(admin.cluster, 'startup', 0, [{ value: Buffer.from('hello') }], { acks: 1 });
    if (result.baseOffset !== 0n) throw new Error(`unexpected base offset ${result.baseOffset}`);
  } finally {
    await admin.cluster.close();
  }
}

function median(xs) {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// ---------------------------------------------------------------- one run in a fresh process (worker, process)

/** Child mode: `node startup.mjs --child worker|process` prints one JSON line. */
async function childRun(isolation) {
  // BROKER_DIST is set per run by runChild (this build or the baseline).
  const client = await loadClient();
  const { startCluster } = await import(pathToFileURL(join(dist, 'src', 'index.js')).href);
  const rssBeforeKiB = rssKiB(process.pid);
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  const cluster = await startCluster({ isolation, logLevel: 'warn' });
  const readyMs = performance.now() - t0;
  await firstProduce(client, cluster.bootstrap, t0 + RUN_TIMEOUT_MS);
  const produceMs = performance.now() - t0;
  // A worker shares this process: its CPU is this process's, client included (a few ms).
  const cpu = process.cpuUsage(cpuBefore);
  const brokerCpuMs = cluster.pid === null ? (cpu.user + cpu.system) / 1000 : cpuMs(cluster.pid);
  await sleep(IDLE_SETTLE_MS);
  const rssAfterKiB = rssKiB(process.pid);
  const brokerRssKiB = cluster.pid === null ? rssAfterKiB - rssBeforeKiB : rssKiB(cluster.pid);
  const timings = cluster.startupTimings;
  await cluster.stop();
  process.stdout.write(`${JSON.stringify({ readyMs, produceMs, brokerCpuMs, brokerRssKiB, callerRssKiB: rssAfterKiB, timings })}\n`);
}

function runChild(isolation, distDir) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', isolation], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BROKER_DIST: distDir } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${isolation} run exited with ${code}: ${out}`));
      resolveRun(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

// ---------------------------------------------------------------- one CLI run

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function cliRun(client, options = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-startup-'));
  const port = await freePort();
  const overrides = ['--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dataDir}`, '--override', 'log.level=warn'];
  const entry = cliEntry(options.dist ?? dist);
  // The node flags of the bin's first line, as `tributary start` runs (the code cache is made under them).
  const args = [...binFlags(entry), ...(options.execArgv ?? []), entry, 'start', ...overrides];
  const t0 = performance.now();
  // npm mode: `npm start` as a user runs it (prestart's up-to-date check, then the broker), in its own
  // process group so SIGTERM reaches the broker under npm and sh; its CPU and RSS are not read.
  const child = options.npm === true
    ? spawn('npm', ['start', '--silent', '--', ...overrides], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'], detached: true })
    : spawn(process.execPath, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    await firstProduce(client, `127.0.0.1:${port}`, t0 + RUN_TIMEOUT_MS);
    const produceMs = performance.now() - t0;
    if (options.npm === true) return { readyMs: NaN, produceMs, brokerCpuMs: NaN, brokerRssKiB: NaN, timings: null };
    const brokerCpuMs = cpuMs(child.pid);
    await sleep(IDLE_SETTLE_MS);
    const brokerRssKiB = rssKiB(child.pid);
    let settledRssKiB = NaN;
    if (IDLE_RSS_AFTER_MS > IDLE_SETTLE_MS) {
      await sleep(IDLE_RSS_AFTER_MS - IDLE_SETTLE_MS);
      settledRssKiB = rssKiB(child.pid);
    }
    return { readyMs: NaN, produceMs, brokerCpuMs, brokerRssKiB, settledRssKiB, timings: null };
  } finally {
    if (options.npm === true) process.kill(-child.pid, 'SIGTERM');
    else child.kill('SIGTERM');
    await exited;
    // npm may exit before the broker under it: wait (bounded) for the whole process group.
    for (let i = 0; options.npm === true && i < 300 && groupAlive(child.pid); i++) await sleep(50);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main

function fmt(x, digits = 0) {
  return Number.isFinite(x) ? x.toFixed(digits) : '-';
}

async function main() {
  if (!existsSync(join(dist, 'src', 'index.js'))) {
    console.error(`${join(dist, 'src', 'index.js')} missing: build first (npx tsc -p tsconfig.build.json)`);
    process.exit(1);
  }
  const client = await loadClient();
  console.log(`start-up benchmark: ${RUNS} runs per mode, node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (before)`);
  if (baselineDist !== null) console.log(`baseline build: ${baselineDist} (runs alternate: baseline, this build)`);
  const builds = baselineDist === null ? [{ tag: '', dist }] : [{ tag: '@base', dist: baselineDist }, { tag: '', dist }];
  const rows = [];
  for (const mode of MODES) {
    const runsOf = builds.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      for (const [b, build] of builds.entries()) {
        if (mode === 'npm' && build.dist !== dist) continue; // npm start runs this checkout only
        runsOf[b].push(mode === 'cli' || mode === 'npm' ? await cliRun(client, { npm: mode === 'npm', dist: build.dist }) : await runChild(mode, build.dist));
        process.stderr.write('.');
      }
    }
    process.stderr.write('\n');
    for (const [b, build] of builds.entries()) {
      const runs = runsOf[b];
      if (runs.length === 0) continue;
      const pick = (f) => median(runs.map(f));
      rows.push({
        mode: `${mode}${build.tag}`,
        produceMs: pick((r) => r.produceMs),
        minMs: Math.min(...runs.map((r) => r.produceMs)),
        maxMs: Math.max(...runs.map((r) => r.produceMs)),
        readyMs: pick((r) => r.readyMs),
        cpuMs: pick((r) => r.brokerCpuMs),
        rssMB: pick((r) => r.brokerRssKiB) / 1024,
        settledRssMB: pick((r) => r.settledRssKiB ?? NaN) / 1024,
        spawnMs: pick((r) => r.timings?.spawnMs ?? NaN),
        importMs: pick((r) => r.timings?.importMs ?? NaN),
        runBrokerMs: pick((r) => r.timings?.runBrokerMs ?? NaN),
      });
    }
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (after)\n`);
  const settledColumn = IDLE_RSS_AFTER_MS > IDLE_SETTLE_MS ? ` RSS after ${IDLE_RSS_AFTER_MS / 1000} s idle, MiB |` : '';
  console.log(`| mode | first produce, median ms (min–max) | ready ms | broker CPU ms | host: spawn / import / runBroker ms | idle RSS MiB (1 s) |${settledColumn} aims |`);
  console.log(`|---|---|---|---|---|---|${settledColumn === '' ? '' : '---|'}---|`);
  for (const r of rows) {
    const ok = r.mode.startsWith('npm')
      ? `${r.produceMs < GOAL_NPM_MS ? '✓' : '✗'} ${GOAL_NPM_MS} ms`
      : `${r.produceMs < GOAL_MS ? '✓' : '✗'} ${GOAL_MS} ms, ${r.rssMB < GOAL_MIB ? '✓' : '✗'} ${GOAL_MIB} MiB`;
    const host = Number.isFinite(r.importMs) ? `${fmt(r.spawnMs)} / ${fmt(r.importMs)} / ${fmt(r.runBrokerMs)}` : '-';
    const settled = settledColumn === '' ? '' : ` ${fmt(r.settledRssMB, 1)} |`;
    console.log(`| ${r.mode} | ${fmt(r.produceMs)} (${fmt(r.minMs)}–${fmt(r.maxMs)}) | ${fmt(r.readyMs)} | ${fmt(r.cpuMs)} | ${host} | ${fmt(r.rssMB, 1)} |${settled} ${ok} |`);
  }
  console.log('\nworker RSS = increase of the calling process; process/cli RSS = the broker process.');

  if (process.env.CPU_PROF === '1') {
    const dir = join(here, 'profiles');
    mkdirSync(dir, { recursive: true });
    await cliRun(client, { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-name=startup-cli.cpuprofile'] });
    console.log(`\nCPU profile of one CLI start: ${join(dir, 'startup-cli.cpuprofile')} (node bench/top-profile.mjs it)`);
  }
}

if (process.argv[2] === '--child') {
  await childRun(process.argv[3]);
} else {
  await main();
}

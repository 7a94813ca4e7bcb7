// The end-to-end latency floor of this machine (issue 17, "tail latency"): the e2e phase of
// bench/run.sh without Kafka. A Node relay process does the least a broker must do for a record at
// linger 0 (read the producer's frames, append them to a file with one write, acknowledge them with
// one socket write, forward them to the waiting consumer with another) and nothing else: no
// protocol, no log structure, no fetch sessions, no metrics. bench/e2e_floor.py drives it with the
// e2e phase's structure (one Python process, a paced producer loop, a consumer thread). Whatever
// p99 this reaches is what the scheduler, the loopback and the clients cost here; a broker cannot
// go below it on the same machine at the same moment. Run it right after `PHASES=e2e bash bench/run.sh`
// (or alternating with it) so both see the same load.
//   node bench/e2e-floor.mjs [--rate 10000] [--seconds 10] [--size 100] [--rounds 1]
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};

if (process.argv[2] === '--relay') runRelay();
else await runBench();

/** The relay: first byte of a connection says its role, P (producer) or C (consumer); frames are a 4-byte length and a body. */
function runRelay() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-floor-'));
  const fd = openSync(join(dir, 'log'), 'a');
  let consumer = null;
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let role = null;
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      if (role === null) {
        role = chunk[0] === 0x43 ? 'C' : 'P';
        if (role === 'C') consumer = socket;
        chunk = chunk.subarray(1);
      }
      if (role === 'C') return;
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let end = 0;
      let frames = 0;
      while (pending.length - end >= 4 && pending.length - end >= 4 + pending.readUInt32BE(end)) {
        end += 4 + pending.readUInt32BE(end);
        frames++;
      }
      if (frames === 0) return;
      const complete = pending.subarray(0, end);
      pending = pending.subarray(end);
      writeSync(fd, complete); // the append
      const ack = Buffer.allocUnsafe(4 * frames).fill(0);
      socket.write(ack); // the produce response
      consumer?.write(complete); // the fetch response of a waiting long poll
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  process.on('SIGTERM', () => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** utime + stime of a process, in ms (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function runBench() {
  const rate = arg('rate', 10_000);
  const seconds = arg('seconds', 10);
  const size = arg('size', 100);
  const rounds = arg('rounds', 1);
  const here = dirname(fileURLToPath(import.meta.url));
  for (let round = 1; round <= rounds; round++) {
    const relay = spawn(process.execPath, [fileURLToPath(import.meta.url), '--relay'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise((resolve, reject) => {
      relay.stdout.once('data', (d) => resolve(Number(String(d).trim())));
      relay.once('exit', (code) => reject(new Error(`relay exited (${code})`)));
    });
    const load1 = loadavg()[0];
    const cpu0 = cpuMs(relay.pid);
    const driver = spawn(process.env.PYTHON ?? 'python3', [join(here, 'e2e_floor.py'), String(port), String(rate), String(seconds), String(size)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    driver.stdout.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => driver.once('exit', resolve));
    const relayCpuMs = cpuMs(relay.pid) - cpu0;
    relay.kill('SIGTERM');
    if (code !== 0) throw new Error(`e2e_floor.py exited with ${code}`);
    const result = JSON.parse(out.trim().split('\n').pop());
    const rec = {
      bench: 'e2e-floor', round, rate, seconds, size, load1: Number(load1.toFixed(2)),
      relay_us_per_record: Number(((relayCpuMs * 1000) / Math.max(1, result.received)).toFixed(1)),
      ...result,
    };
    console.log(JSON.stringify(rec));
    if (process.env.BENCH_RESULTS) appendFileSync(process.env.BENCH_RESULTS, `${JSON.stringify(rec)}\n`);
  }
}

// The cost floor of the broker's per-request system calls on this machine (issue 17, "per-request
// cost"): one small socket write (a response), one small file write (an append) and one socket read,
// each timed alone in a tight loop, µs per call. At linger 0 every record costs the broker at least
// one of each for the produce (request read, append, response) and one socket write and read for the
// consumer's fetch, so these set how low "broker µs per record" can go whatever the JavaScript does.
//   node bench/syscall-floor.mjs [--count N]
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 200_000);
const payload = Buffer.alloc(120, 0x61);

function fileWrites() {
  const dir = mkdtempSync(join(tmpdir(), 'syscall-floor-'));
  const fd = openSync(join(dir, 'log'), 'a');
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) writeSync(fd, payload);
  const ns = Number(process.hrtime.bigint() - t0);
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
  return ns / COUNT / 1000;
}

/** Socket writes of `payload`, one syscall each (the socket is drained between bursts so none queue in Node). */
async function socketWrites() {
  let received = 0;
  const server = createServer((s) => s.on('data', (c) => (received += c.length)));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const socket = createConnection({ port: server.address().port, host: '127.0.0.1' });
  await new Promise((r) => socket.once('connect', r));
  socket.setNoDelay(true);
  let busyNs = 0;
  const BURST = 100;
  for (let i = 0; i < COUNT; i += BURST) {
    const t0 = process.hrtime.bigint();
    for (let j = 0; j < BURST; j++) socket.write(payload);
    busyNs += Number(process.hrtime.bigint() - t0);
    if (socket.writableLength > 0) await new Promise((r) => socket.once('drain', r));
    else await new Promise((r) => setImmediate(r));
  }
  while (received < COUNT * payload.length) await new Promise((r) => setTimeout(r, 5));
  socket.destroy();
  server.close();
  return busyNs / COUNT / 1000;
}

const file = fileWrites();
const sock = await socketWrites();
console.log(JSON.stringify({ bench: 'syscall-floor', count: COUNT, bytes: payload.length, file_write_us: Number(file.toFixed(2)), socket_write_us: Number(sock.toFixed(2)), load1: loadavg()[0] }));

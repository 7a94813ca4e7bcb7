#!/usr/bin/env node
// Results of bench/clients.sh: normalises each phase's JSON into one line, and prints the table.
//
//   node bench/clients-table.mjs add FILE RUN CLIENT PHASE ACKS < phase-output   # appends one line to FILE
//   node bench/clients-table.mjs table FILE...                                     # markdown table, medians
//
// A phase's output is whatever the client printed: `tributary bench --json` and clients-node.mjs print
// one JSON object; librdkafka_bench.py prints one JSON line (then a '# ...' line); peer-bench prints
// JSON lines among text (the one with "bench":"peer-throughput" is used). Normalised fields:
// { run, client, phase, acks, recordsPerSec, mbPerSec, p99Ms, ok }.
import { appendFileSync, readFileSync } from 'node:fs';

const [cmd, ...args] = process.argv.slice(2);

function jsonLines(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      out.push(JSON.parse(t));
    } catch {
      // not JSON after all
    }
  }
  return out;
}

function normalise(objs, phase) {
  const peer = objs.find((o) => o.bench === 'peer-throughput');
  if (peer !== undefined) {
    return phase === 'produce'
      ? { recordsPerSec: peer.produce_msg_s, mbPerSec: peer.produce_MB_s, p99Ms: null }
      : { recordsPerSec: peer.consume_msg_s, mbPerSec: peer.consume_MB_s, p99Ms: null };
  }
  const o = objs[objs.length - 1];
  if (o === undefined) return null;
  if ('records_per_s' in o) return { recordsPerSec: o.records_per_s, mbPerSec: o.mb_per_s, p99Ms: o.ack_p99_ms ?? null };
  return { recordsPerSec: o.recordsPerSec, mbPerSec: o.mbPerSec, p99Ms: o.latencyMs?.p99 ?? null };
}

function median(xs) {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 === 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

function fmtInt(x) {
  return x === null ? '—' : Math.round(x).toLocaleString('en-US');
}
function fmtNum(x, d) {
  return x === null ? '—' : x.toFixed(d);
}
function range(xs) {
  const v = xs.filter((x) => typeof x === 'number');
  if (v.length < 2) return '';
  return ` (${fmtInt(Math.min(...v))}–${fmtInt(Math.max(...v))})`;
}

if (cmd === 'add') {
  const [file, run, client, phase, acks] = args;
  const text = readFileSync(0, 'utf8');
  const n = normalise(jsonLines(text), phase);
  const line = { ts: new Date().toISOString(), run: Number(run), client, phase, acks, ...(n ?? { recordsPerSec: null, mbPerSec: null, p99Ms: null }), ok: n !== null && typeof n.recordsPerSec === 'number' };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
  process.stdout.write(`${client} ${phase} acks=${acks}: ${fmtInt(line.recordsPerSec)} records/s, ${fmtNum(line.mbPerSec, 2)} MB/s${line.p99Ms === null ? '' : `, p99 ${line.p99Ms} ms`}\n`);
  process.exit(line.ok ? 0 : 1);
} else if (cmd === 'table') {
  const rows = args.flatMap((f) => jsonLines(readFileSync(f, 'utf8'))).filter((r) => r.ok);
  const order = ['tributary', 'kafkajs', 'platformatic', 'librdkafka', 'nats'];
  const clients = [...new Set(rows.map((r) => r.client))].sort((a, b) => (order.indexOf(a) + 99) % 99 - (order.indexOf(b) + 99) % 99);
  const runs = new Set(rows.map((r) => `${r.run}`)).size;
  console.log(`| client | acks | produce records/s (min–max) | produce MB/s | produce p99 ms | consume records/s (min–max) | consume MB/s |`);
  console.log(`|---|---|---|---|---|---|---|`);
  for (const client of clients) {
    const mine = rows.filter((r) => r.client === client);
    const ackses = [...new Set(mine.filter((r) => r.phase === 'produce').map((r) => r.acks))];
    const consume = mine.filter((r) => r.phase === 'consume');
    (ackses.length > 0 ? ackses : ['-']).forEach((acks, i) => {
      const prod = mine.filter((r) => r.phase === 'produce' && r.acks === acks);
      const pr = prod.map((r) => r.recordsPerSec);
      const cons = i === 0 ? consume : [];
      const cr = cons.map((r) => r.recordsPerSec);
      console.log(
        `| ${client} | ${acks} | ${fmtInt(median(pr))}${range(pr)} | ${fmtNum(median(prod.map((r) => r.mbPerSec)), 1)} | ${fmtNum(median(prod.map((r) => r.p99Ms)), 1)} | ` +
          `${cons.length ? fmtInt(median(cr)) + range(cr) : '—'} | ${cons.length ? fmtNum(median(cons.map((r) => r.mbPerSec)), 1) : '—'} |`,
      );
    });
  }
  console.log(`\n${runs} run(s); medians (min–max over runs). Failed phases are left out.`);
} else {
  process.stderr.write('usage: clients-table.mjs add FILE RUN CLIENT PHASE ACKS < output | table FILE...\n');
  process.exit(2);
}

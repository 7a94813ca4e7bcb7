#!/usr/bin/env node
// Top self-time functions of a V8 .cpuprofile (node --cpu-prof).
//
//   node bench/top-profile.mjs FILE.cpuprofile [--top 25] [--by function|file] [--json]
//        [--callers REGEX]   also: for functions matching REGEX, their self time split by the 4 calling frames
//        [--split SECONDS]   also: a timeline, busy share and top 3 functions per window of SECONDS
//        [--from S --to S]   only samples between these offsets (seconds of sampled time, as in --split)
//
// Self time per sample = the sample's timeDelta, attributed to the sampled (leaf) node; summed per
// "function url:line" (line 1-based, of the emitted JS in dist/). "(idle)" is the event loop waiting;
// percentages are of busy time (everything but idle), and of the whole profile in brackets.
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const top = Number(opt('top', 25));
const by = opt('by', 'function');
if (!file) { console.error('usage: node bench/top-profile.mjs FILE.cpuprofile [--top N] [--by function|file] [--json]'); process.exit(2); }

const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const root = process.cwd();
const shortUrl = (u) => {
  if (!u) return '';
  let s = u.replace(/^file:\/\//, '');
  if (s.startsWith(root + '/')) s = s.slice(root.length + 1);
  s = s.replace(/^.*?\/node_modules\//, 'node_modules/');
  return s;
};
const keyOf = (n) => {
  const cf = n.callFrame;
  const fn = cf.functionName || (cf.url ? '(anonymous)' : '');
  if (!cf.url) return fn || '(unknown)';
  if (by === 'file') return shortUrl(cf.url);
  return `${fn} ${shortUrl(cf.url)}:${cf.lineNumber + 1}`;
};

const parentOf = new Map();
for (const n of prof.nodes) for (const c of n.children || []) parentOf.set(c, n.id);
const frameName = (n) => `${n.callFrame.functionName || '(anonymous)'}${n.callFrame.url ? ' ' + shortUrl(n.callFrame.url).replace(/^.*\//, '') + ':' + (n.callFrame.lineNumber + 1) : ''}`;
const callersRe = opt('callers') ? new RegExp(opt('callers')) : null;
const callers = new Map();
const split = Number(opt('split', 0)) * 1000; // ms
const windows = [];
let clock = 0;
const fromMs = Number(opt('from', 0)) * 1000;
const toMs = Number(opt('to', Infinity)) * 1000;

const self = new Map();
let total = 0;
let idle = 0;
const samples = prof.samples || [];
const deltas = prof.timeDeltas || [];
for (let i = 0; i < samples.length; i++) {
  // timeDeltas[i] is the time since the previous sample; attribute the gap after sample i to it
  // (the next delta), as Chrome DevTools does.
  const dt = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000; // ms
  const n = nodes.get(samples[i]);
  if (!n || dt < 0) continue;
  if (clock < fromMs || clock >= toMs) { clock += dt; continue; }
  const k = keyOf(n);
  self.set(k, (self.get(k) || 0) + dt);
  total += dt;
  if (n.callFrame.functionName === '(idle)') idle += dt;
  if (callersRe && callersRe.test(k)) {
    const chain = [];
    for (let id = parentOf.get(n.id), d = 0; id !== undefined && d < 4; id = parentOf.get(id), d++) chain.push(frameName(nodes.get(id)));
    const ck = `${k}  <-  ${chain.join('  <-  ')}`;
    callers.set(ck, (callers.get(ck) || 0) + dt);
  }
  if (split > 0) {
    const w = Math.floor(clock / split);
    while (windows.length <= w) windows.push({ total: 0, idle: 0, fns: new Map() });
    const W = windows[w];
    W.total += dt;
    if (n.callFrame.functionName === '(idle)') W.idle += dt; else W.fns.set(k, (W.fns.get(k) || 0) + dt);
  }
  clock += dt;
}
const busy = total - idle;
const rows = [...self.entries()].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]);
if (args.includes('--json')) {
  console.log(JSON.stringify({ file: path.basename(file), totalMs: total, idleMs: idle, busyMs: busy,
    top: rows.slice(0, top).map(([k, ms]) => ({ key: k, ms: +ms.toFixed(1), pctBusy: +(100 * ms / busy).toFixed(2) })) }));
  process.exit(0);
}
console.log(`profile ${path.basename(file)}: ${(total / 1000).toFixed(2)} s sampled, ${(busy / 1000).toFixed(2)} s busy, ` +
  `${(idle / 1000).toFixed(2)} s idle, ${samples.length} samples`);
console.log();
console.log(`| # | self ms | % busy (% all) | ${by === 'file' ? 'file' : 'function  url:line (dist JS)'} |`);
console.log('|---|---|---|---|');
rows.slice(0, top).forEach(([k, ms], i) => {
  console.log(`| ${i + 1} | ${ms.toFixed(0)} | ${(100 * ms / busy).toFixed(1)} (${(100 * ms / total).toFixed(1)}) | \`${k.replace(/\|/g, '\\|')}\` |`);
});

if (callersRe) {
  console.log();
  console.log(`callers of /${opt('callers')}/ (self ms, 4 frames up):`);
  for (const [k, ms] of [...callers.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms.toFixed(0).padStart(7)}  ${k}`);
}
if (split > 0) {
  console.log();
  console.log(`timeline (${split / 1000} s windows of sampled time): busy%, top 3 self-time functions`);
  windows.forEach((W, i) => {
    const busyW = W.total - W.idle;
    const t3 = [...W.fns.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3)
      .map(([k, ms]) => `${k.replace(/ .*\//, ' ')} ${(100 * ms / (busyW || 1)).toFixed(0)}%`).join(', ');
    console.log(`  ${String(i * split / 1000).padStart(4)}s  busy ${(100 * busyW / (W.total || 1)).toFixed(0).padStart(3)}%  ${t3}`);
  });
}

// Event-loop delay and GC pauses of a broker under a benchmark (issue 17, tail latency).
//
// Loaded into the broker process with `node --import <this file>` (run.sh does it when
// LOOP_DELAY=1), so it measures any build (BROKER_DIST) without code in src/. It samples the
// event loop with perf_hooks.monitorEventLoopDelay (1 ms resolution: how late a 1 ms timer
// fires, i.e. how long the loop was blocked) and records every GC pause.
//
// One JSON line per interval goes to $LOOP_DELAY_OUT: on SIGUSR2 the histogram since the last
// one is written and reset; the label of the interval that starts then is read from
// `$LOOP_DELAY_OUT.label` (run.sh writes the phase name there before signalling). The last
// interval is written at exit.
import { appendFileSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const out = process.env.LOOP_DELAY_OUT;
if (out !== undefined && out !== '') {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // Per GC kind too (perf_hooks' detail.kind): scavenges (minor), mark-compacts (major),
  // incremental marking steps and weak callbacks cost differently and have different cures.
  const KINDS = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };
  const newGcStats = () => ({ count: 0, totalMs: 0, maxMs: 0, over1Ms: 0, byKind: {} });
  let gc = newGcStats();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      if (e.duration > gc.maxMs) gc.maxMs = e.duration;
      if (e.duration > 1) gc.over1Ms++;
      const kind = KINDS[e.detail?.kind] ?? `kind${e.detail?.kind}`;
      const k = (gc.byKind[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      k.count++;
      k.totalMs = Math.round((k.totalMs + e.duration) * 10) / 10;
      if (e.duration > k.maxMs) k.maxMs = Math.round(e.duration * 100) / 100;
    }
  }).observe({ entryTypes: ['gc'] });
  let label = 'start-up';
  let since = Date.now();
  // The histogram holds the time between ticks; the delay is what exceeds the 1 ms period.
  const ms = (ns) => Math.max(0, Math.round((ns - 1e6) / 1e3) / 1e3);
  const dump = () => {
    const now = Date.now();
    const line = {
      label,
      seconds: (now - since) / 1000,
      samples: histogram.count,
      // Delay beyond the 1 ms timer period, in ms.
      p50Ms: ms(histogram.percentile(50)),
      p99Ms: ms(histogram.percentile(99)),
      p999Ms: ms(histogram.percentile(99.9)),
      maxMs: ms(histogram.max),
      meanMs: ms(histogram.mean),
      gcCount: gc.count,
      gcTotalMs: Math.round(gc.totalMs * 10) / 10,
      gcMaxMs: Math.round(gc.maxMs * 100) / 100,
      gcOver1Ms: gc.over1Ms,
      gcByKind: gc.byKind,
      heapUsedMiB: Math.round(process.memoryUsage().heapUsed / 104857.6) / 10,
      // A scavenge runs when the semi-space (half of new space) fills: scavenges x this is about what the interval allocated.
      newSpaceMiB: Math.round((getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.space_size ?? 0) / 104857.6) / 10,
      loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    histogram.reset();
    gc = newGcStats();
    since = now;
  };
  process.on('SIGUSR2', () => {
    dump();
    try {
      label = readFileSync(`${out}.label`, 'utf8').trim() || 'unlabelled';
    } catch {
      label = 'unlabelled';
    }
  });
  process.on('exit', () => {
    label = `${label} (to exit)`;
    dump();
  });
}

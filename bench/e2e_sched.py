#!/usr/bin/env python3
"""Where the e2e phase's latency tail is spent: the scheduler's view (bench/README.md, "The e2e tail
and the scheduler").

Input: the e2e phase's per-record latencies (librdkafka_bench.py e2e --dump-latencies: send stamp and
latency, CLOCK_MONOTONIC ns) and `perf sched timehist` of a `perf sched record -k CLOCK_MONOTONIC -a`
taken during the phase (same clock). Every line of timehist is one run of one thread; its
"sch delay" is how long the thread had been runnable, woken and waiting for a CPU, before that run.

Output (text, and one JSON line with --json):
  - how busy the cores were, and who ran, during the steady part of the phase (after its first second);
  - per process (broker, client, others): wake-ups and their wait for a CPU, p50 / p99 / p99.9 / max;
  - for the records above the steady p99 (and, as the baseline, the records at or below the median):
    the share whose path had a broker or client thread waiting at least 1 ms for a CPU while the
    record was in flight, how much of its latency the longest such wait covers, and the broker main
    thread's longest run while it was in flight (long runs: the broker busy, GC or a burst).

  python3 bench/e2e_sched.py --timehist FILE --latencies FILE --broker-pid PID [--json]
"""
import argparse
import bisect
import json
import re
import statistics

LINE = re.compile(r'^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.*?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$')


def pct(sorted_values, q):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, max(0, int(round(q / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[i]


def load_latencies(path):
    client_pid, recs = None, []
    with open(path) as f:
        for line in f:
            if line.startswith('# pid '):
                client_pid = int(line.split()[2])
                continue
            st, lat = line.split()
            recs.append((int(st) / 1e9, int(lat) / 1e9))
    recs.sort()
    return client_pid, recs


def load_runs(path):
    """Each run: (start of its wait, start of the run, end of the run, cpu, name, tid, pid)."""
    runs = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m is None:
                continue
            end = float(m.group(1))
            tid = int(m.group(4))
            pid = int(m.group(5)) if m.group(5) is not None else tid
            sch, run = float(m.group(7)) / 1e3, float(m.group(8)) / 1e3
            start = end - run
            runs.append((start - sch, start, end, int(m.group(2)), m.group(3).strip(), tid, pid))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--timehist', required=True)
    ap.add_argument('--latencies', required=True)
    ap.add_argument('--broker-pid', type=int, required=True)
    ap.add_argument('--client-pid', type=int, default=None, help='default: the pid in the latencies file')
    ap.add_argument('--wait-ms', type=float, default=1.0, help='a wait for a CPU at least this long counts (default 1 ms)')
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()

    client_pid, recs = load_latencies(a.latencies)
    client_pid = a.client_pid or client_pid
    runs = load_runs(a.timehist)
    if not recs or not runs:
        raise SystemExit(f'e2e_sched: {len(recs)} records, {len(runs)} scheduler runs: nothing to compare')
    # The steady part: records sent after the phase's first second (as the e2e phase's "after 1 s").
    t0 = recs[0][0] + 1.0
    steady = [r for r in recs if r[0] >= t0]
    t1 = max(st + lat for st, lat in steady)
    window = t1 - t0

    def group(pid):
        return 'broker' if pid == a.broker_pid else 'client' if pid == client_pid else 'other'

    # CPU use in the window, by group and by task name (others: who else ran).
    busy = {'broker': 0.0, 'client': 0.0, 'other': 0.0}
    others = {}
    waits = {'broker main thread': [], 'broker other threads': [], 'client': [], 'other': []}
    for w0, s, e, cpu, name, tid, pid in runs:
        if e < t0 or s > t1:
            continue
        g = group(pid)
        if name == 'swapper' or pid == 0:
            continue
        busy[g] += min(e, t1) - max(s, t0)
        if g == 'other':
            others[name] = others.get(name, 0.0) + (min(e, t1) - max(s, t0))
        key = g if g != 'broker' else ('broker main thread' if tid == pid else 'broker other threads')
        waits[key].append(s - w0)
    cores = len({cpu for _, _, _, cpu, _, _, _ in runs})  # the CPUs the trace saw

    def longest_inside(intervals):
        """For intervals (start, end) sorted by start: a function giving the longest part of one of them inside [st, st + lat]."""
        starts = [b for b, _ in intervals]

        def longest(st, lat):
            end = st + lat
            best = 0.0
            # An interval starting up to 1 s before the record can still overlap it.
            i = bisect.bisect_left(starts, st - 1.0)
            while i < len(intervals) and intervals[i][0] <= end:
                b, e = intervals[i]
                best = max(best, min(e, end) - max(b, st))
                i += 1
            return best
        return longest

    # Waits (>= wait-ms) of broker and client threads, to find those inside a record's flight.
    longest_wait_inside = longest_inside(sorted((w0, s) for w0, s, e, cpu, name, tid, pid in runs
                                                if group(pid) in ('broker', 'client') and s - w0 >= a.wait_ms / 1e3))
    # The broker main thread's runs, to see whether it was busy (a long run: GC, a burst of requests)
    # rather than waiting while a record was in flight.
    longest_broker_run_inside = longest_inside(sorted((s, e) for w0, s, e, cpu, name, tid, pid in runs
                                                      if pid == a.broker_pid and tid == pid))

    lats = sorted(lat for _, lat in steady)
    p50, p99, p999 = pct(lats, 50), pct(lats, 99), pct(lats, 99.9)
    tail = [(st, lat) for st, lat in steady if lat > p99]
    base = [(st, lat) for st, lat in steady if lat <= p50]

    def share(recs_):
        covered = [longest_wait_inside(st, lat) for st, lat in recs_]
        hit = [(c, lat) for c, (st, lat) in zip(covered, recs_) if c > 0]
        frac = [c / lat for c, lat in hit]
        busy_runs = [longest_broker_run_inside(st, lat) for st, lat in recs_]
        return {'records': len(recs_), 'with_wait': len(hit),
                'share_with_wait': round(len(hit) / len(recs_), 3) if recs_ else None,
                'median_latency_covered': round(statistics.median(frac), 3) if frac else None,
                'broker_run_ms_p50': round(pct(sorted(busy_runs), 50) * 1e3, 3),
                'broker_run_ms_p90': round(pct(sorted(busy_runs), 90) * 1e3, 3)}

    out = {
        'bench': 'e2e-sched', 'window_s': round(window, 2), 'records': len(steady),
        'latency_ms': {'p50': round(p50 * 1e3, 3), 'p99': round(p99 * 1e3, 3), 'p999': round(p999 * 1e3, 3)},
        'cpu_busy_cores': {g: round(v / window, 3) for g, v in busy.items()},
        'others_top': sorted(((n, round(v / window, 3)) for n, v in others.items()), key=lambda x: -x[1])[:5],
        'wait_for_cpu_ms': {k: {'wakeups': len(v), 'p50': round(pct(sorted(v), 50) * 1e3, 3), 'p99': round(pct(sorted(v), 99) * 1e3, 3),
                                'p999': round(pct(sorted(v), 99.9) * 1e3, 3), 'max': round(max(v) * 1e3, 3)}
                            for k, v in waits.items() if v},
        'wait_threshold_ms': a.wait_ms,
        'above_p99': share(tail),
        'at_or_below_p50': share(base),
    }
    # Who had the CPUs during the longest waits of broker and client threads (what kept them waiting).
    longest = sorted(((s - w0, w0, s, name, tid) for w0, s, e, cpu, name, tid, pid in runs
                      if group(pid) in ('broker', 'client') and t0 <= s <= t1), reverse=True)
    stalls, seen = [], []
    for wait, w0, s, name, tid in longest:
        if len(stalls) == 3 or wait < a.wait_ms / 1e3:
            break
        if any(w0 < e and s > b for b, e in seen):
            continue  # the same stall seen from another thread
        seen.append((w0, s))
        ran = {}
        for r0, rs, re_, cpu, rname, rtid, rpid in runs:
            if rs < s and re_ > w0 and rpid != 0:
                k = f'{rname}[{group(rpid)}]'
                ran[k] = ran.get(k, 0.0) + min(re_, s) - max(rs, w0)
        idle = cores * (s - w0) - sum(ran.values())
        stalls.append({'thread': f'{name}[{tid}]', 'wait_ms': round(wait * 1e3, 3), 'at_s': round(w0 - recs[0][0], 3),
                       'idle_cpu_ms': round(idle * 1e3, 3),
                       'ran_ms': sorted(((k, round(v * 1e3, 3)) for k, v in ran.items()), key=lambda x: -x[1])[:5]})
    out['longest_waits'] = stalls
    if a.json:
        print(json.dumps(out))
        return
    print(f"steady window {out['window_s']} s, {len(steady):,} records: latency p50 {out['latency_ms']['p50']} ms, "
          f"p99 {out['latency_ms']['p99']}, p99.9 {out['latency_ms']['p999']}")
    print(f"cores busy (of {cores}): " + ', '.join(f'{g} {v}' for g, v in out['cpu_busy_cores'].items())
          + '; others: ' + ', '.join(f'{n} {v}' for n, v in out['others_top']))
    print('wait for a CPU after a wake-up (ms):')
    for k, v in out['wait_for_cpu_ms'].items():
        print(f"  {k:22s} {v['wakeups']:>8,} wake-ups  p50 {v['p50']:>7}  p99 {v['p99']:>7}  p99.9 {v['p999']:>7}  max {v['max']:>7}")
    for st in out['longest_waits']:
        print(f"  wait of {st['wait_ms']} ms by {st['thread']} at {st['at_s']} s into the phase: the CPUs ran "
              + ', '.join(f'{k} {v} ms' for k, v in st['ran_ms']) + f"; idle {st['idle_cpu_ms']} ms (of {cores} CPUs)")
    for label, key in (('above the p99', 'above_p99'), ('at or below the median', 'at_or_below_p50')):
        s = out[key]
        print(f"records {label}: {s['records']:,}, of which {s['with_wait']:,} ({s['share_with_wait']}) had a broker or client "
              f"thread waiting >= {a.wait_ms} ms for a CPU in flight; the longest such wait covers a median "
              f"{s['median_latency_covered']} of their latency; the broker main thread's longest run in flight: "
              f"p50 {s['broker_run_ms_p50']} ms, p90 {s['broker_run_ms_p90']} ms")


if __name__ == '__main__':
    main()

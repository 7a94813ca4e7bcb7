#!/usr/bin/python3
"""Consumer-group rebalance benchmark of the Tributary broker, driven by librdkafka (confluent-kafka-python).

Run with /usr/bin/python3 (the Debian python3-confluent-kafka 1.7.0 on librdkafka 2.0.2); rebalance.sh
starts the broker, creates the topic and runs the producer. See bench/README.md, section "Rebalance".

Modes:
  produce   paced producer: RATE records/s round-robin over every partition of the topic, for at most
            SECONDS or until SIGTERM/SIGINT. Each payload starts with time.monotonic_ns() (CLOCK_MONOTONIC
            is one clock for every process on the machine), big-endian int64.
  bench     for each strategy and run: a fresh group of MEMBERS consumer processes (multiprocessing,
            spawn, one librdkafka consumer each, subscribe()); wait until the group is stable and every
            partition is being consumed; one member leaves cleanly (close()); measure the time from the
            leave to every partition having delivered a record to a remaining member again.
  summarize read JSON lines (files) and print the table.

Members report every record they receive (partition, offset, produce stamp, receive time) in batches
through a multiprocessing queue, plus their rebalance callbacks and assignment. The main process only
coordinates: it never opens a Kafka client. Every wait has a deadline.

Definitions (all times CLOCK_MONOTONIC):
  t0          the leaving member's clock just before it calls close()
  barrier(p)  max(t0, the latest on_revoke/on_lost of p in a *remaining* member after t0). Eager
              (range) members revoke everything when they learn of the rebalance (next heartbeat), and
              a record they deliver between t0 and that revoke does not count as "consumed again".
  resume(p)   the first delivery of p to a remaining member after barrier(p)
  recovery    max over p of resume(p) - t0          (the headline figure)
  gap(p)      the longest interval between two consecutive deliveries of p (any member) that ends
              after t0 and starts before resume(p): how long p was not consumed around the rebalance
  paused      partitions whose consumption the protocol stopped: the leaver's, plus those a remaining
              member revoked (or lost) after t0. Eager (range): all of them; cooperative: the leaver's.
  group stall the longest interval after t0 with no delivery on any partition (eager's stop-the-world)
  baseline    the same two measures in the BASELINE s before t0, with no rebalance: the longest gap(p) over
              every partition (records arrive every P/RATE = 50 ms per partition) and the longest
              interval with no delivery at all. On a busy 2-core machine both are far from 0.
"""
import argparse
import json
import multiprocessing as mp
import os
import queue as queue_mod
import random
import signal
import statistics
import struct
import sys
import time
import traceback

try:
    from confluent_kafka import Consumer, KafkaError, Producer, libversion, version
except ImportError:  # summarize does not need the client
    Consumer = None

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf('SC_CLK_TCK')
NS = 1_000_000_000


def die(msg, code=2):
    print(f'rebalance: {msg}', file=sys.stderr, flush=True)
    sys.exit(code)


def log(msg):
    print(f'[rebalance {time.strftime("%H:%M:%S")}] {msg}', file=sys.stderr, flush=True)


def extra_conf(pairs):
    out = {}
    for p in pairs or []:
        k, _, v = p.partition('=')
        out[k] = v
    return out


# ----------------------------------------------------------------------------------- CPU (as librdkafka_bench.py)
def _proc_stat(pid):
    try:
        with open(f'/proc/{pid}/stat') as f:
            s = f.read()
        fields = s[s.rindex(')') + 2:].split(' ')
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, ValueError, IndexError):
        return float('nan')


def machine_busy_seconds():
    try:
        with open('/proc/stat') as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return (sum(v[:8]) - v[3] - v[4]) / TICK
    except (OSError, ValueError):
        return float('nan')


# ----------------------------------------------------------------------------------- produce
def cmd_produce(a):
    stop = [False]

    def on_signal(_sig, _frm):
        stop[0] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    delivered, failed, first_err = [0], [0], []

    def on_delivery(err, _msg):
        if err is None:
            delivered[0] += 1
        else:
            failed[0] += 1
            if len(first_err) < 3:
                first_err.append(str(err))
    errors = []
    p = Producer({'bootstrap.servers': a.bootstrap, 'acks': '1', 'linger.ms': a.linger_ms,
                  'enable.idempotence': False, 'on_delivery': on_delivery,
                  'error_cb': lambda e: errors.append(str(e)), **extra_conf(a.X)})
    md = p.list_topics(a.topic, timeout=10)
    t = md.topics.get(a.topic)
    if t is None or t.error is not None:
        die(f'topic {a.topic}: {t.error if t is not None else "not in metadata"}')
    parts = sorted(t.partitions)
    pad = b'r' * max(0, a.size - 8)
    rate, topic, produce, poll = a.rate, a.topic, p.produce, p.poll
    start = time.monotonic()
    deadline = start + a.seconds
    n = 0
    max_lag = 0.0
    full = 0
    print(f'# producer: {rate:,} records/s over {len(parts)} partitions of {topic}, {a.size} B, '
          f'for at most {a.seconds:g} s', flush=True)
    while not stop[0]:
        now = time.monotonic()
        if now >= deadline:
            break
        due = start + n / rate
        if due > now:
            poll(min(due - now, 0.02))  # sleeps in librdkafka (serves delivery reports), never spins
            continue
        max_lag = max(max_lag, now - due)
        burst = 0
        while start + n / rate <= now and burst < 1000:  # catch up after a stall, on the schedule
            try:
                produce(topic, struct.pack('>q', time.monotonic_ns()) + pad, partition=parts[n % len(parts)])
            except BufferError:
                full += 1
                poll(0.01)
                break
            n += 1
            burst += 1
        poll(0)
    wall = time.monotonic() - start
    left = p.flush(10)
    rec = {'bench': 'rebalance-producer', 'topic': topic, 'partitions': len(parts), 'target_rate': rate,
           'sent': n, 'delivered': delivered[0], 'failed': failed[0], 'undelivered_at_exit': left,
           'seconds': round(wall, 1), 'achieved_rate': round(n / wall, 1) if wall > 0 else None,
           'max_send_lag_ms': round(max_lag * 1000, 1), 'queue_full': full,
           'ok': failed[0] == 0 and left == 0}
    if first_err:
        rec['first_errors'] = first_err
    if errors:
        rec['client_errors'] = errors[:5]
    print(json.dumps(rec), flush=True)
    sys.exit(0 if rec['ok'] else 1)


# ----------------------------------------------------------------------------------- member process
def member_main(idx, conf, topic, q, leave_evt, stop_evt, flush_ms, deadline_mono, debug_file=None):
    """One group member: subscribe(), poll() one record at a time (the receive time is taken when
    poll() returns it), report records in batches and every callback / assignment change."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        state = {'changed': True}

        def cb(kind):
            def f(_c, parts):
                q.put(('cb', idx, time.monotonic_ns(), kind, sorted(tp.partition for tp in parts)))
                state['changed'] = True
            return f

        def on_error(err):
            q.put(('client_error', idx, time.monotonic_ns(), str(err)))
        conf = {**conf, 'client.id': f'rebalance-m{idx}', 'error_cb': on_error}
        if debug_file:  # --debug-leaver: librdkafka cgrp/protocol debug of this member, wall-clock stamped
            import logging
            lg = logging.getLogger(f'rdkafka-m{idx}')
            h = logging.FileHandler(debug_file)
            h.setFormatter(logging.Formatter('%(created).3f %(message)s'))
            lg.addHandler(h)
            lg.setLevel(logging.DEBUG)
            conf.update({'debug': 'cgrp,protocol', 'logger': lg})
        c = Consumer(conf)
        c.subscribe([topic], on_assign=cb('assign'), on_revoke=cb('revoke'), on_lost=cb('lost'))
        q.put(('started', idx, time.monotonic_ns(), os.getpid()))
        batch = []
        last_flush = last_check = time.monotonic()
        cur = None
        unpack = struct.unpack_from
        while not stop_evt.is_set() and not leave_evt.is_set() and time.monotonic() < deadline_mono:
            msg = c.poll(0.05)
            now_ns = time.monotonic_ns()
            if msg is not None:
                err = msg.error()
                if err is None:
                    v = msg.value()
                    ts = unpack('>q', v)[0] if v is not None and len(v) >= 8 else 0
                    batch.append((msg.partition(), msg.offset(), ts, now_ns))
                elif err.code() != KafkaError._PARTITION_EOF:
                    q.put(('client_error', idx, now_ns, f'poll: {err}'))
            now = time.monotonic()
            if state['changed'] or now - last_check >= 0.5:
                state['changed'] = False
                last_check = now
                a = sorted(tp.partition for tp in c.assignment())
                if a != cur:
                    cur = a
                    q.put(('assignment', idx, now_ns, a))
            if batch and (len(batch) >= 500 or (now - last_flush) * 1000 >= flush_ms):
                q.put(('recs', idx, batch))
                batch = []
                last_flush = now
        if batch:
            q.put(('recs', idx, batch))
        leaving = leave_evt.is_set()
        t0 = time.monotonic_ns()
        q.put(('leave' if leaving else 'closing', idx, t0))
        if debug_file:
            with open(debug_file, 'a') as f:
                f.write(f'{time.time():.3f} ==== close() starts ({"leave" if leaving else "stop"})\n')
        c.close()  # revokes (callback), commits (auto-commit), LeaveGroup
        q.put(('left' if leaving else 'closed', idx, time.monotonic_ns()))
    except Exception:  # noqa: BLE001
        q.put(('fatal', idx, time.monotonic_ns(), traceback.format_exc()))


# ----------------------------------------------------------------------------------- one run
class Group:
    """What the main process knows, from the members' reports."""

    def __init__(self, n, parts):
        self.n, self.parts = n, parts
        self.deliveries = {p: [] for p in parts}    # p -> [(recv_ns, member, offset, produced_ns)]
        self.last = {}                               # (p, member) -> last recv_ns
        self.assignment = {}                         # member -> set
        self.assigned_at = {}                        # (member, p) -> ns the member first reported p
        self.cbs = []                                # (ns, member, kind, parts)
        self.events = {}                             # (kind, member) -> ns
        self.errors = []
        self.fatal = []
        self.last_change = time.monotonic_ns()
        self.pids = {}

    def handle(self, m):
        kind = m[0]
        if kind == 'recs':
            idx = m[1]
            for p, off, ts, recv in m[2]:
                self.deliveries[p].append((recv, idx, off, ts))
                self.last[(p, idx)] = recv
        elif kind == 'assignment':
            _, idx, t, a = m
            new = set(a)
            for p in new - self.assignment.get(idx, set()):
                self.assigned_at[(idx, p)] = t
            self.assignment[idx] = new
            self.last_change = max(self.last_change, t)
        elif kind == 'cb':
            _, idx, t, what, parts = m
            self.cbs.append((t, idx, what, parts))
            self.last_change = max(self.last_change, t)
        elif kind == 'started':
            self.events[('started', m[1])] = m[2]
            self.pids[m[1]] = m[3]
        elif kind in ('leave', 'left', 'closing', 'closed'):
            self.events[(kind, m[1])] = m[2]
        elif kind == 'client_error':
            self.errors.append((m[1], m[2], m[3]))
        elif kind == 'fatal':
            self.fatal.append((m[1], m[3]))

    def cover(self, members):
        """(complete, disjoint) of the members' current assignments over every partition."""
        seen = {}
        dup = 0
        for i in members:
            for p in self.assignment.get(i, ()):
                if p in seen:
                    dup += 1
                seen[p] = i
        return len(seen) == len(self.parts), dup == 0, seen

    def all_consumed(self, members):
        """Every partition has delivered to its current owner since that owner got it."""
        complete, disjoint, owner = self.cover(members)
        if not (complete and disjoint):
            return False
        return all(self.last.get((p, i), -1) > self.assigned_at.get((i, p), 0) for p, i in owner.items())


def drain(q, g, until_ns):
    """Feed queued reports to g until the monotonic deadline (ns)."""
    while True:
        left = (until_ns - time.monotonic_ns()) / NS
        if left <= 0:
            return
        try:
            g.handle(q.get(timeout=min(left, 0.05)))
        except queue_mod.Empty:
            pass


def analyze(g, t0, leaver, remaining, gap_threshold_ms, baseline_s, t_end):
    leaver_parts = set(getattr(g, 'assignment_at_leave', ()))
    resume, gaps, stopped = {}, {}, set()
    base_gap = 0
    redelivered = 0
    interleaved = []
    for p in g.parts:
        barrier = t0
        for t, i, what, parts in g.cbs:
            if i in remaining and what in ('revoke', 'lost') and t0 <= t <= t_end and p in parts:
                barrier = max(barrier, t)
                stopped.add(p)
        if p in leaver_parts:
            stopped.add(p)
        ds = sorted(d for d in g.deliveries[p] if d[0] <= t_end)
        r = next((d[0] for d in ds if d[0] > barrier and d[1] in remaining), None)
        resume[p] = r
        # longest gap between consecutive deliveries that ends after t0 and starts before resume
        prev = None
        longest = 0
        max_off_before = -1
        for recv, _i, off, _ts in ds:
            if recv <= t0:
                max_off_before = max(max_off_before, off)
                if prev is not None and recv >= t0 - baseline_s * NS:
                    base_gap = max(base_gap, recv - prev)
            else:
                if off <= max_off_before:
                    redelivered += 1
                if prev is not None and (r is None or prev < r):
                    longest = max(longest, recv - prev)
            prev = recv
        if r is None and prev is not None:
            longest = max(longest, t_end - prev)  # still paused at the end
        gaps[p] = longest
        # ownership check: after the leave, p's deliveries must come from one member, then another,
        # never back and forth (two members consuming p at once)
        seq = []
        for recv, i, _off, _ts in ds:
            if recv > t0 and (not seq or seq[-1] != i):
                seq.append(i)
        if len(seq) != len(set(seq)):
            interleaved.append(p)
    missing = [p for p in g.parts if resume[p] is None]
    ms = lambda ns: round(ns / 1e6, 1) if ns is not None else None  # noqa: E731
    others = [p for p in g.parts if p not in leaver_parts]
    revokes = [t for t, i, what, _ in g.cbs if i in remaining and what in ('revoke', 'lost') and t0 <= t <= t_end]
    assigns = [t for t, i, what, _ in g.cbs if i in remaining and what == 'assign' and t0 <= t <= t_end]
    # group-wide stall: the longest interval after t0 (until every partition resumed) with no delivery at all
    done = max(resume.values()) if not missing else t_end
    allt = sorted(d[0] for p in g.parts for d in g.deliveries[p] if t0 - NS <= d[0] <= done)
    stall = 0
    for x, y in zip(allt, allt[1:]):
        if y > t0:
            stall = max(stall, y - max(x, t0))
    # the same over the BASELINE s before the leave: what a stall looks like with no rebalance
    pre = sorted(d[0] for p in g.parts for d in g.deliveries[p] if t0 - baseline_s * NS <= d[0] <= t0)
    base_stall = max((y - x for x, y in zip(pre, pre[1:])), default=0)

    def worst(ps, f):
        v = [f(p) for p in ps]
        return max(v) if v and all(x is not None for x in v) else None
    return {
        'recovered': not missing, 'not_recovered': missing[:20],
        'recovery_ms': ms(worst(g.parts, lambda p: resume[p] and resume[p] - t0)),
        'recovery_leaver_parts_ms': ms(worst(leaver_parts, lambda p: resume[p] and resume[p] - t0)),
        'recovery_other_parts_ms': ms(worst(others, lambda p: resume[p] and resume[p] - t0)),
        # paused = consumption of p was stopped by the protocol: p was the leaver's, or a remaining
        # member revoked (or lost) it after the leave (eager: every partition)
        'paused_partitions': len(stopped),
        'paused_leaver_parts': len(stopped & leaver_parts),
        'longest_gap_ms': ms(max(gaps.values())),
        'longest_gap_partition': max(gaps, key=gaps.get),
        'longest_gap_other_parts_ms': ms(max(gaps[p] for p in others)) if others else None,
        'median_gap_of_paused_ms': ms(statistics.median(gaps[p] for p in stopped)) if stopped else None,
        f'gaps_over_{gap_threshold_ms:g}ms': len([p for p in g.parts if gaps[p] > gap_threshold_ms * 1e6]),
        'group_stall_ms': ms(stall),
        'baseline_group_stall_ms': ms(base_stall),
        'baseline_max_gap_ms': ms(base_gap),
        'first_revoke_ms': ms(min(revokes) - t0) if revokes else None,
        'last_revoke_ms': ms(max(revokes) - t0) if revokes else None,
        'revoke_callbacks': len(revokes),
        'first_assign_ms': ms(min(assigns) - t0) if assigns else None,
        'last_assign_ms': ms(max(assigns) - t0) if assigns else None,
        'assign_callbacks': len(assigns),
        # the parts the heartbeat schedule does not decide: eager's JoinGroup+SyncGroup round (first revoke ->
        # last new assignment), and new assignment -> every partition consumed again
        'join_sync_ms': ms(max(assigns) - min(revokes)) if revokes and assigns else None,
        'assign_to_consumed_ms': ms(max(resume.values()) - max(assigns)) if assigns and not missing else None,
        'redelivered_records': redelivered,
        'interleaved_owner_partitions': interleaved[:20],
    }


def run_once(a, strategy, run_no, stamp):
    ctx = mp.get_context('spawn')
    q = ctx.Queue()
    stop = ctx.Event()
    leaves = [ctx.Event() for _ in range(a.members)]
    group_id = f'rebalance-{stamp}-{strategy}-{run_no}'
    conf = {'bootstrap.servers': a.bootstrap, 'group.id': group_id,
            'partition.assignment.strategy': strategy,
            'session.timeout.ms': a.session_timeout_ms, 'heartbeat.interval.ms': a.heartbeat_ms,
            'auto.offset.reset': 'latest', 'enable.auto.commit': True, 'enable.partition.eof': False,
            **extra_conf(a.X)}
    parts = list(range(a.partitions))
    g = Group(a.members, parts)
    hard_deadline = time.monotonic() + a.stable_timeout + a.recover_timeout + a.tail + 60
    procs = [ctx.Process(target=member_main, name=f'member-{i}', daemon=True,
                         args=(i, conf, a.topic, q, leaves[i], stop, a.flush_ms, hard_deadline,
                               f'{a.debug_leaver}-{strategy}-{run_no}.log' if a.debug_leaver and
                               i == a.leaver % a.members else None))
             for i in range(a.members)]
    rec = {'bench': 'rebalance', 'strategy': strategy, 'run': run_no, 'group': group_id, 'members': a.members,
           'partitions': a.partitions, 'rate': a.rate, 'session_timeout_ms': a.session_timeout_ms,
           'heartbeat_ms': a.heartbeat_ms, 'gap_threshold_ms': a.gap_threshold_ms, 'ok': False}
    t_spawn = time.monotonic_ns()
    for pr in procs:
        pr.start()
    all_members = set(range(a.members))
    leaver = a.leaver % a.members
    remaining = all_members - {leaver}
    try:
        # 1. stable: every member has partitions, they cover every partition once, each partition has
        #    delivered to its owner since it was assigned, and nothing changed for SETTLE seconds.
        deadline = time.monotonic_ns() + int(a.stable_timeout * NS)
        stable_since = None
        while True:
            drain(q, g, time.monotonic_ns() + 100_000_000)
            if g.fatal:
                raise RuntimeError(f'member {g.fatal[0][0]} died: {g.fatal[0][1][-600:]}')
            now = time.monotonic_ns()
            ok = len(g.assignment) == a.members and all(g.assignment[i] for i in all_members) and \
                g.all_consumed(all_members)
            if ok:
                stable_since = stable_since or now
                if now - max(stable_since, g.last_change) >= a.settle * NS:
                    break
            else:
                stable_since = None
            if now > deadline:
                c, d, owner = g.cover(all_members)
                raise RuntimeError(f'group not stable after {a.stable_timeout:g} s: {len(g.assignment)} members '
                                   f'with assignments, cover complete={c} disjoint={d} ({len(owner)} partitions)')
        rec['stable_after_s'] = round((time.monotonic_ns() - t_spawn) / NS, 2)
        rec['assign_callbacks_to_stable'] = len([1 for _, _, w, _ in g.cbs if w == 'assign'])
        rec['sizes_before'] = sorted(len(s) for s in g.assignment.values())
        g.assignment_at_leave = sorted(g.assignment[leaver])
        rec['leaver_partitions'] = g.assignment_at_leave
        # 2. leave, at a random phase of the heartbeat schedule: the members' heartbeats are aligned to the
        #    last SyncGroup, and the stability wait above is too, so without this the leave always fell
        #    ~3.3 s after the sync and the next heartbeat (which tells the members) ~0.6-0.9 s later
        delay = random.uniform(0, a.heartbeat_ms / 1000)
        rec['leave_phase_delay_ms'] = round(delay * 1000, 1)
        drain(q, g, time.monotonic_ns() + int(delay * NS))
        b0 = _proc_stat(a.broker_pid) if a.broker_pid else float('nan')
        m0 = machine_busy_seconds()
        client_pids = list(g.pids.values()) + ([a.producer_pid] if a.producer_pid else [])
        c0 = {pid: _proc_stat(pid) for pid in client_pids}
        w0 = time.monotonic()
        leaves[leaver].set()
        deadline = time.monotonic_ns() + int(a.recover_timeout * NS)
        while ('leave', leaver) not in g.events:
            drain(q, g, time.monotonic_ns() + 50_000_000)
            if time.monotonic_ns() > deadline:
                raise RuntimeError('leaver did not report its leave')
        t0 = g.events[('leave', leaver)]
        # 3. wait until every partition was consumed again by a remaining member and the remaining
        #    members' assignments cover every partition once
        done_at = None
        while True:
            drain(q, g, time.monotonic_ns() + 100_000_000)
            now = time.monotonic_ns()
            if g.fatal:
                raise RuntimeError(f'member {g.fatal[0][0]} died: {g.fatal[0][1][-600:]}')
            if done_at is None:
                c, d, _ = g.cover(remaining)
                if c and d and analyze(g, t0, leaver, remaining, a.gap_threshold_ms, a.baseline, now)['recovered']:
                    done_at = now
            elif now - done_at >= a.tail * NS and now - g.last_change >= a.tail * NS:
                break  # TAIL s with no further callback / assignment change: the rebalance is over
            if now > deadline:
                break
        t_end = time.monotonic_ns()
        w1 = time.monotonic()
        b1 = _proc_stat(a.broker_pid) if a.broker_pid else float('nan')
        m1 = machine_busy_seconds()
        client_s = sum(_proc_stat(pid) - c0[pid] for pid in client_pids if pid != g.pids.get(leaver))
        res = analyze(g, t0, leaver, remaining, a.gap_threshold_ms, a.baseline, t_end)
        c, d, _ = g.cover(remaining)
        rec.update(res)
        rec['final_cover_complete'], rec['final_cover_disjoint'] = c, d
        rec['sizes_after'] = sorted(len(g.assignment.get(i, ())) for i in remaining)
        if ('left', leaver) in g.events:
            rec['leaver_close_ms'] = round((g.events[('left', leaver)] - t0) / 1e6, 1)
        wall = w1 - w0
        rec['window_s'] = round(wall, 2)
        rec['broker_cores'] = round((b1 - b0) / wall, 2) if a.broker_pid else None
        rec['machine_cores'] = round((m1 - m0) / wall, 2)
        rec['client_cores'] = round(client_s / wall, 2)  # the remaining members and the producer
        rec['other_cores'] = round(max(0.0, (m1 - m0) - client_s - ((b1 - b0) if a.broker_pid else 0)) / wall, 2)
        rec['loadavg_1m'] = round(os.getloadavg()[0], 2)
        rec['ok'] = bool(res['recovered'] and c and d and not res['interleaved_owner_partitions'])
        if res['interleaved_owner_partitions']:
            rec['failure'] = f'partitions consumed by two members at once: {res["interleaved_owner_partitions"]}'
        if not res['recovered']:
            rec['failure'] = f'{len(res["not_recovered"])} partition(s) not consumed again within {a.recover_timeout:g} s'
    except RuntimeError as e:
        rec['failure'] = str(e)
    finally:
        # 4. stop every member; bounded, drain the queue meanwhile so no member blocks on it
        stop.set()
        deadline = time.monotonic() + a.close_timeout
        while any(pr.is_alive() for pr in procs) and time.monotonic() < deadline:
            drain(q, g, time.monotonic_ns() + 100_000_000)
        for pr in procs:
            if pr.is_alive():
                rec.setdefault('killed_members', []).append(pr.name)
                pr.kill()
            pr.join(5)
        drain(q, g, time.monotonic_ns() + 200_000_000)
        rec['client_errors'] = len(g.errors)
        if g.errors:
            rec['client_error_samples'] = sorted({e[2] for e in g.errors})[:8]
        if g.fatal:
            rec['fatal'] = [f[1][-400:] for f in g.fatal[:2]]
        rec['records_seen'] = sum(len(v) for v in g.deliveries.values())
        q.close()
    return rec


def fmt_rec(r):
    if not r.get('ok'):
        return f'{r["strategy"]} run {r["run"]}: FAILED: {r.get("failure", "?")}'
    return (f'{r["strategy"]} run {r["run"]}: recovery {r["recovery_ms"]} ms (leaver\'s {len(r["leaver_partitions"])} '
            f'partitions {r["recovery_leaver_parts_ms"]} ms, others {r["recovery_other_parts_ms"]} ms); paused '
            f'{r["paused_partitions"]}/{r["partitions"]}; longest gap {r["longest_gap_ms"]} ms (others '
            f'{r["longest_gap_other_parts_ms"]} ms, baseline {r["baseline_max_gap_ms"]} ms); group stall '
            f'{r["group_stall_ms"]} ms; revokes +{r["first_revoke_ms"]}..+{r["last_revoke_ms"]} ms, assigns '
            f'+{r["first_assign_ms"]}..+{r["last_assign_ms"]} ms; leaver close() {r.get("leaver_close_ms")} ms; '
            f'redelivered {r["redelivered_records"]}; stable after {r["stable_after_s"]} s; cores: machine '
            f'{r["machine_cores"]}, broker {r["broker_cores"]}, clients {r.get("client_cores")}, other {r.get("other_cores")}')


def emit(rec, results):
    rec.setdefault('ts', time.strftime('%Y-%m-%dT%H:%M:%S'))
    if Consumer is not None:
        rec.setdefault('client', f'confluent-kafka {version()[0]} / librdkafka {libversion()[0]}')
    line = json.dumps(rec)
    print(line, flush=True)
    print('# ' + fmt_rec(rec), flush=True)
    if results:
        with open(results, 'a') as f:
            f.write(line + '\n')


def cmd_bench(a):
    stamp = time.strftime('%H%M%S')
    strategies = a.strategy or ['range', 'cooperative-sticky']
    rows = []
    for run_no in range(1, a.runs + 1):
        for s in strategies:  # interleaved, so slow drifts in machine load hit both strategies
            log(f'{s} run {run_no}: {a.members} members over {a.partitions} partitions')
            rec = run_once(a, s, run_no, stamp)
            emit(rec, a.results)
            rows.append(rec)
    print()
    print(table(rows))
    sys.exit(0 if all(r.get('ok') for r in rows) else 1)


# ----------------------------------------------------------------------------------- summary
def table(rows):
    def mm(rs, k, d=0):
        v = [r[k] for r in rs if isinstance(r.get(k), (int, float))]
        if not v:
            return '—'
        f = (lambda x: f'{x:,.{d}f}')  # noqa: E731
        med = statistics.median(v)
        return f'**{f(med)}** ({f(min(v))}–{f(max(v))})' if len(v) > 1 else f(med)

    out = ['| assignor | runs ok | recovery ms | leaver\'s partitions ms | other partitions ms | '
           'paused partitions | longest gap ms | longest gap, other partitions ms | group stall ms | '
           'steady-state max gap ms | steady-state group stall ms | revoke seen ms | last assign ms | revoke → assign ms | assign → consumed ms | '
           'other cores |',
           '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for s in dict.fromkeys(r['strategy'] for r in rows):
        rs = [r for r in rows if r['strategy'] == s]
        ok = [r for r in rs if r.get('ok')]
        out.append(f'| {s} | {len(ok)}/{len(rs)} | {mm(ok, "recovery_ms")} | {mm(ok, "recovery_leaver_parts_ms")} | '
                   f'{mm(ok, "recovery_other_parts_ms")} | {mm(ok, "paused_partitions")} | {mm(ok, "longest_gap_ms")} | '
                   f'{mm(ok, "longest_gap_other_parts_ms")} | {mm(ok, "group_stall_ms")} | '
                   f'{mm(ok, "baseline_max_gap_ms")} | {mm(ok, "baseline_group_stall_ms")} | {mm(ok, "first_revoke_ms")} | {mm(ok, "last_assign_ms")} | '
                   f'{mm(ok, "join_sync_ms")} | {mm(ok, "assign_to_consumed_ms")} | {mm(ok, "other_cores", 2)} |')
    out.append('')
    out.append('(median, (min–max) over the runs; ms after the leave unless a gap)')
    fails = [r for r in rows if not r.get('ok')]
    for r in fails:
        out.append(f'\nFAILED: {r["strategy"]} run {r["run"]}: {r.get("failure")}')
    return '\n'.join(out)


def cmd_summarize(a):
    rows = []
    for path in a.files:
        with open(path) as f:
            for line in f:
                if line.startswith('{'):
                    r = json.loads(line)
                    if r.get('bench') == 'rebalance':
                        rows.append(r)
    if a.detail:
        for r in rows:
            print('# ' + fmt_rec(r))
        print()
    print(table(rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['produce', 'bench', 'summarize'])
    ap.add_argument('files', nargs='*', help='summarize: JSON-lines files')
    ap.add_argument('-b', '--bootstrap', default=os.environ.get('BOOTSTRAP', '127.0.0.1:9092'))
    ap.add_argument('-t', '--topic', default='rebalance')
    ap.add_argument('--partitions', type=int, default=100, help='bench: partitions of the topic')
    ap.add_argument('--rate', type=int, default=2000, help='produce: records/s over all partitions')
    ap.add_argument('--size', type=int, default=100, help='produce: record size (>= 8)')
    ap.add_argument('--linger-ms', type=float, default=5)
    ap.add_argument('--seconds', type=float, default=1800, help='produce: upper bound on the duration')
    ap.add_argument('--members', type=int, default=10)
    ap.add_argument('--leaver', type=int, default=0, help='index of the member that leaves')
    ap.add_argument('--strategy', action='append', help='repeatable; default range and cooperative-sticky')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--session-timeout-ms', type=int, default=10000)
    ap.add_argument('--heartbeat-ms', type=int, default=1000)
    ap.add_argument('--settle', type=float, default=3.0, help='s of stability required before the leave')
    ap.add_argument('--tail', type=float, default=2.0, help='s with no change after recovery before stopping')
    ap.add_argument('--baseline', type=float, default=3.0, help='s before the leave for the steady-state gap')
    ap.add_argument('--gap-threshold-ms', type=float, default=500.0,
                    help='also count partitions whose gap exceeds this (gaps_over_<N>ms)')
    ap.add_argument('--debug-leaver', metavar='PREFIX',
                    help="write the leaver's librdkafka cgrp,protocol debug log to PREFIX-<strategy>-<run>.log")
    ap.add_argument('--producer-pid', type=int, default=0, help='for client CPU')
    ap.add_argument('--flush-ms', type=float, default=50.0, help='members report records at least this often')
    ap.add_argument('--stable-timeout', type=float, default=120.0)
    ap.add_argument('--recover-timeout', type=float, default=60.0)
    ap.add_argument('--close-timeout', type=float, default=30.0)
    ap.add_argument('--broker-pid', type=int, default=int(os.environ.get('BROKER_PID', '0') or 0))
    ap.add_argument('--results', default=os.environ.get('BENCH_RESULTS'))
    ap.add_argument('--detail', action='store_true', help='summarize: one line per run too')
    ap.add_argument('-X', action='append', help='extra librdkafka property key=value (repeatable)')
    a = ap.parse_intermixed_args()
    if a.mode == 'summarize':
        return cmd_summarize(a)
    if Consumer is None:
        die('confluent_kafka is not importable: run with /usr/bin/python3')
    if a.mode == 'produce':
        return cmd_produce(a)
    return cmd_bench(a)


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""Tributary throughput / latency benchmark driven by librdkafka (confluent-kafka-python).

Run with /usr/bin/python3 (the Debian python3-confluent-kafka package; the python3 on
PATH may lack it). librdkafka is a C client, so the figures measure the broker rather
than a JavaScript client, apart from the Python per-record call overhead, which is
reported as client CPU per record so it can be told apart.

Modes (see bench/README.md):
  create    create topics (CreateTopics) and wait until Metadata shows their leaders
  produce   N records of S bytes, acks configurable, time = first produce() -> last delivery report
  consume   assign() every partition at offset 0, time = assign() -> N-th record received
  e2e       consumer thread assigned at the end offsets, producer paced at R records/s for T s,
            payload carries time.monotonic_ns() (CLOCK_MONOTONIC); latency = receive - stamp
  kcat-produce / kcat-consume
            the same produce / consume through kcat (librdkafka with no Python in the loop): shows
            what the broker does when the client costs ~nothing per record. Time includes kcat's
            start-up and, for produce, reading the input file (generated under $TMPDIR once)
  summarize read JSON lines (files or stdin) and print a markdown table of medians

Each run prints one JSON line (prefix-free, starts with '{') and one readable line (starts with '#').
Every loop is bounded by a count and a deadline.
"""
import argparse
import json
import os
import resource
import statistics
import struct
import sys
import threading
import time

try:
    from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
    from confluent_kafka import OFFSET_BEGINNING, OFFSET_END  # noqa: F401
    from confluent_kafka import libversion, version
    from confluent_kafka.admin import AdminClient, NewTopic
except ImportError:  # summarize does not need the client
    Consumer = None

TICK = os.sysconf('SC_CLK_TCK') if hasattr(os, 'sysconf') else 100


# ----------------------------------------------------------------------------------- /proc CPU
def _proc_stat(pid):
    try:
        with open(f'/proc/{pid}/stat') as f:
            s = f.read()
        fields = s[s.rindex(')') + 2:].split(' ')
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK  # ppid, utime+stime (s)
    except (OSError, ValueError, IndexError):
        return None


def tree_cpu_seconds(root):
    """CPU seconds (user+system, all threads) of a process and its descendants, like
    peer-bench's lib/proccpu.mjs. NaN if the pid is unknown."""
    if not root:
        return float('nan')
    children = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        st = _proc_stat(d)
        if st:
            children.setdefault(st[0], []).append(int(d))
    total, stack, seen = 0.0, [int(root)], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        st = _proc_stat(p)
        if st:
            total += st[1]
        stack.extend(children.get(p, []))
    return total


def machine_busy_seconds():
    """Busy CPU seconds of the whole machine (all cores) from /proc/stat: everything but idle+iowait."""
    try:
        with open('/proc/stat') as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return (sum(v[:8]) - v[3] - v[4]) / TICK  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return float('nan')


def self_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class CpuMeter:
    """Broker (tree) CPU and this client's CPU over a phase."""

    def __init__(self, broker_pid):
        self.pid = broker_pid

    def start(self):
        self.load0 = os.getloadavg()[0]
        self.m0 = machine_busy_seconds()
        self.b0 = tree_cpu_seconds(self.pid)
        self.c0 = self_cpu_seconds()

    def stop(self):
        self.broker_s = tree_cpu_seconds(self.pid) - self.b0
        self.client_s = self_cpu_seconds() - self.c0
        self.machine_s = machine_busy_seconds() - self.m0
        self.load1 = os.getloadavg()[0]

    def fields(self, n, wall):
        per = lambda s: round(s / n * 1e6, 3) if n else None  # noqa: E731
        out = {'client_cpu_s': round(self.client_s, 3), 'client_us_per_rec': per(self.client_s),
               'client_cores': round(self.client_s / wall, 2) if wall > 0 else None}
        if self.pid:
            out.update({'broker_cpu_s': round(self.broker_s, 3), 'broker_us_per_rec': per(self.broker_s),
                        'broker_cores': round(self.broker_s / wall, 2) if wall > 0 else None})
        # CPU used by everything else on the machine during the phase (other engineers' builds and
        # tests share these 2 cores): if this is well above 0, the run was disturbed.
        other = self.machine_s - self.client_s - (self.broker_s if self.pid else 0)
        out['other_cores'] = round(max(0.0, other) / wall, 2) if wall > 0 else None
        out['loadavg_1m'] = [round(self.load0, 2), round(self.load1, 2)]
        return out


# ----------------------------------------------------------------------------------- helpers
def emit(rec, text):
    rec.setdefault('ts', time.strftime('%Y-%m-%dT%H:%M:%S'))
    if Consumer is not None:
        rec.setdefault('client', f'confluent-kafka {version()[0]} / librdkafka {libversion()[0]}')
    line = json.dumps(rec, sort_keys=False)
    print(line, flush=True)
    print('# ' + text, flush=True)
    if os.environ.get('BENCH_RESULTS'):
        with open(os.environ['BENCH_RESULTS'], 'a') as f:
            f.write(line + '\n')


def die(msg, code=2):
    print(f'librdkafka_bench: {msg}', file=sys.stderr, flush=True)
    sys.exit(code)


def extra_conf(pairs):
    out = {}
    for p in pairs or []:
        k, _, v = p.partition('=')
        out[k] = v
    return out


def partitions_of(consumer_or_admin, topic, timeout):
    md = consumer_or_admin.list_topics(topic, timeout=timeout)
    t = md.topics.get(topic)
    if t is None or t.error is not None:
        die(f'topic {topic}: {t.error if t is not None else "not in metadata"}')
    return sorted(t.partitions.keys())


def err_cb_factory(label, errors):
    def cb(err):
        errors.append(str(err))
        if len(errors) <= 5:
            print(f'librdkafka_bench [{label}] client error: {err}', file=sys.stderr, flush=True)
    return cb


# ----------------------------------------------------------------------------------- create
def cmd_create(a):
    admin = AdminClient({'bootstrap.servers': a.bootstrap, **extra_conf(a.X)})
    topics = a.topic
    futs = admin.create_topics([NewTopic(t, num_partitions=a.partitions, replication_factor=1) for t in topics],
                               operation_timeout=a.timeout, request_timeout=a.timeout)
    for t, f in futs.items():
        try:
            f.result(timeout=a.timeout)
        except Exception as e:  # noqa: BLE001
            if 'TOPIC_ALREADY_EXISTS' in str(e) and a.exist_ok:
                continue
            die(f'create {t}: {e}')
    deadline = time.monotonic() + a.timeout
    for t in topics:
        while True:
            md = admin.list_topics(t, timeout=max(0.5, deadline - time.monotonic()))
            tm = md.topics.get(t)
            if tm is not None and tm.error is None and len(tm.partitions) == a.partitions and \
                    all(p.leader >= 0 for p in tm.partitions.values()):
                break
            if time.monotonic() > deadline:
                die(f'topic {t} has no leaders after {a.timeout}s: {tm.error if tm else "missing"}')
            time.sleep(0.05)
    print(f'# created {", ".join(topics)} ({a.partitions} partition(s))', flush=True)


# ----------------------------------------------------------------------------------- produce
def producer_conf(a, linger_ms):
    conf = {
        'bootstrap.servers': a.bootstrap,
        'acks': str(a.acks),
        'linger.ms': linger_ms,
        'batch.num.messages': a.batch_messages,
        'batch.size': a.batch_size,
        'queue.buffering.max.messages': a.queue_messages,
        'queue.buffering.max.kbytes': a.queue_kbytes,
        'message.max.bytes': max(1_000_000, a.batch_size),
        'compression.codec': a.compression,
        'enable.idempotence': False,
        'socket.send.buffer.bytes': 4 << 20,
        'socket.receive.buffer.bytes': 1 << 20,
    }
    conf.update(extra_conf(a.X))
    return conf


def cmd_produce(a):
    n, size = a.count, a.size
    delivered = [0]
    failed = [0]
    first_err = []
    t_last = [0.0]
    ack_lat = [] if a.latency else None  # --latency: librdkafka's produce() -> delivery report, seconds

    def on_delivery(err, msg):
        if err is None:
            delivered[0] += 1
            if ack_lat is not None:
                ack_lat.append(msg.latency())
        else:
            failed[0] += 1
            if not first_err:
                first_err.append(str(err))
        if delivered[0] + failed[0] == n:
            t_last[0] = time.perf_counter()

    errors = []
    p = Producer({**producer_conf(a, a.linger_ms), 'on_delivery': on_delivery,
                  'error_cb': err_cb_factory('produce', errors)})
    parts = partitions_of(p, a.topic, 10)
    payload = os.urandom(size)  # incompressible; one object reused for every record
    topic = a.topic
    produce = p.produce
    poll = p.poll
    meter = CpuMeter(a.broker_pid)
    deadline = time.monotonic() + a.timeout
    queue_full = 0
    meter.start()
    t0 = time.perf_counter()
    i = 0
    while i < n:
        try:
            produce(topic, payload)
            i += 1
            if (i & 0x3fff) == 0:
                poll(0)
                if time.monotonic() > deadline:
                    break
        except BufferError:
            queue_full += 1
            poll(0.001)
            if time.monotonic() > deadline:
                break
    t_sent = time.perf_counter()
    while delivered[0] + failed[0] < i and time.monotonic() < deadline:
        poll(0.05)
    if not t_last[0]:
        t_last[0] = time.perf_counter()
    meter.stop()
    wall = t_last[0] - t0
    ok = delivered[0] == n and failed[0] == 0
    rec = {'bench': 'produce', 'topic': topic, 'partitions': len(parts), 'count': n, 'size': size,
           'acks': a.acks, 'linger_ms': a.linger_ms, 'compression': a.compression,
           'delivered': delivered[0], 'failed': failed[0], 'ok': ok,
           'seconds': round(wall, 4), 'send_loop_seconds': round(t_sent - t0, 4),
           'records_per_s': round(delivered[0] / wall) if wall > 0 else None,
           'mb_per_s': round(delivered[0] * size / wall / 1e6, 2) if wall > 0 else None,
           'queue_full_retries': queue_full, **meter.fields(delivered[0], wall)}
    if first_err:
        rec['first_error'] = first_err[0]
    if errors:
        rec['client_errors'] = errors[:5]
    if a.label:
        rec['label'] = a.label
    if ack_lat:
        ack_lat.sort()
        for q, key in ((50, 'ack_p50_ms'), (95, 'ack_p95_ms'), (99, 'ack_p99_ms'), (99.9, 'ack_p999_ms')):
            rec[key] = round(pct(ack_lat, q) * 1000, 3)
        rec['ack_max_ms'] = round(ack_lat[-1] * 1000, 3)
    emit(rec, f'produce {n:,} x {size} B acks={a.acks} P={len(parts)}: {rec["records_per_s"]:,} rec/s, '
              f'{rec["mb_per_s"]} MB/s in {wall:.2f}s (delivered {delivered[0]:,}, failed {failed[0]}); '
              f'broker {rec.get("broker_us_per_rec")} us/rec, client {rec["client_us_per_rec"]} us/rec')
    p.flush(5)
    if not ok:
        sys.exit(1)


# ----------------------------------------------------------------------------------- consume
def consumer_conf(a, group_suffix):
    conf = {
        'bootstrap.servers': a.bootstrap,
        # confluent-kafka-python insists on a group.id even for assign(); we never commit or
        # subscribe, so the broker's missing group coordinator should not be contacted for offsets.
        'group.id': f'tributary-bench-{group_suffix}-{os.getpid()}',
        'enable.auto.commit': False,
        'enable.auto.offset.store': False,
        'auto.offset.reset': 'earliest',
        'fetch.min.bytes': a.fetch_min_bytes,
        'fetch.wait.max.ms': a.fetch_wait_ms,
        'fetch.max.bytes': a.fetch_max_bytes,
        'max.partition.fetch.bytes': a.partition_fetch_bytes,
        'receive.message.max.bytes': a.fetch_max_bytes + (1 << 20),
        'queued.min.messages': 1_000_000,
        'queued.max.messages.kbytes': a.queued_kbytes,
        'enable.partition.eof': False,
        'socket.receive.buffer.bytes': 4 << 20,
    }
    conf.update(extra_conf(a.X))
    return conf


def cmd_consume(a):
    n = a.count
    errors = []
    c = Consumer({**consumer_conf(a, 'consume'), 'error_cb': err_cb_factory('consume', errors)})
    parts = partitions_of(c, a.topic, 10)
    meter = CpuMeter(a.broker_pid)
    got = 0
    nbytes = 0
    msg_errors = 0
    first_msg_err = None
    t_first = None
    deadline = time.monotonic() + a.timeout
    consume = c.consume
    meter.start()
    t0 = time.perf_counter()
    c.assign([TopicPartition(a.topic, p, 0) for p in parts])
    while got < n and time.monotonic() < deadline:
        # never ask for more than remain: consume() waits for a full batch or the timeout
        batch = consume(num_messages=min(a.batch, n - got), timeout=0.5)
        if not batch:
            continue
        if t_first is None:
            t_first = time.perf_counter()
        for m in batch:
            e = m.error()
            if e is None:
                got += 1
                nbytes += len(m)
            else:
                msg_errors += 1
                if first_msg_err is None:
                    first_msg_err = str(e)
    t1 = time.perf_counter()
    meter.stop()
    wall = t1 - t0
    ok = got >= n
    rec = {'bench': 'consume', 'topic': a.topic, 'partitions': len(parts), 'count': n, 'size': a.size,
           'received': got, 'bytes': nbytes, 'ok': ok, 'seconds': round(wall, 4),
           'first_record_after_s': round(t_first - t0, 4) if t_first else None,
           'records_per_s': round(got / wall) if wall > 0 else None,
           'mb_per_s': round(got * a.size / wall / 1e6, 2) if wall > 0 else None,
           'msg_errors': msg_errors, **meter.fields(got, wall)}
    if first_msg_err:
        rec['first_msg_error'] = first_msg_err
    if errors:
        rec['client_errors'] = errors[:5]
    if a.label:
        rec['label'] = a.label
    if a.size and got and nbytes != got * a.size:
        rec['size_mismatch'] = True
    emit(rec, f'consume {got:,}/{n:,} x {a.size} B P={len(parts)}: {rec["records_per_s"]:,} rec/s, '
              f'{rec["mb_per_s"]} MB/s in {wall:.2f}s (first record after {rec["first_record_after_s"]}s); '
              f'broker {rec.get("broker_us_per_rec")} us/rec, client {rec["client_us_per_rec"]} us/rec')
    c.close()
    if not ok:
        sys.exit(1)


# ----------------------------------------------------------------------------------- e2e
def stats_collector():
    """librdkafka statistics (statistics.interval.ms): keep the latest JSON document."""
    box = {}

    def cb(js):
        box['last'] = js
    return box, cb


def broker_stats(box):
    """Request count and round-trip times to the broker (librdkafka's own, microseconds), from the
    last statistics document: separates time in the broker + socket from time in the clients."""
    try:
        st = json.loads(box['last'])
    except (KeyError, ValueError):
        return None
    out = {}
    for b in st.get('brokers', {}).values():
        if b.get('nodeid', -1) < 0:
            continue
        rtt, outbuf = b.get('rtt', {}), b.get('outbuf_latency', {})
        out = {'requests': b.get('tx'), 'rtt_avg_us': rtt.get('avg'), 'rtt_p50_us': rtt.get('p50'),
               'rtt_p99_us': rtt.get('p99'), 'rtt_max_us': rtt.get('max'),
               'outbuf_p99_us': outbuf.get('p99'), 'req_by_type': {k: v for k, v in b.get('req', {}).items() if v}}
    return out


def pct(sorted_vals, q):
    if not sorted_vals:
        return None
    k = min(len(sorted_vals) - 1, max(0, int(round(q / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[k]


class _Box:
    value = 0


def e2e_consumer(a, n, ready, warm, stop, recv, conn=None):
    """The e2e consumer: in a thread of the producer's process (default) or in a forked child
    process (--consumer-process; no GIL shared with the producer). Creates its own Consumer,
    assigned at the end offsets (ListOffsets latest), so nothing produced later is skipped.
    Records stamped -1 are the producer's warm-up: they set `warm` and are not measured."""
    errors = []
    cstats, ccb = stats_collector()
    c = Consumer({**consumer_conf(a, 'e2e'), 'error_cb': err_cb_factory('e2e-consumer', errors),
                  'statistics.interval.ms': 1000, 'stats_cb': ccb})
    parts = partitions_of(c, a.topic, 10)
    c.assign([TopicPartition(a.topic, p, c.get_watermark_offsets(TopicPartition(a.topic, p), timeout=10)[1])
              for p in parts])
    lat_ns, stamps = [], []
    bad = got = 0
    # poll(), not consume(num_messages=K): librdkafka's batch consume waits until K records
    # or the timeout, which would add up to the timeout to every latency.
    poll = c.poll
    mono = time.monotonic_ns
    unpack = struct.unpack_from
    deadline = time.monotonic() + a.seconds + a.timeout
    while not stop.is_set() and got < n and time.monotonic() < deadline:
        m = poll(0.05)
        now = mono()  # receive time: when the application got the record
        ready.set()   # the first poll() has fetched once
        if m is None:
            continue
        v = m.value() if m.error() is None else None
        if v is None or len(v) < 8:
            bad += 1
            continue
        st = unpack('>q', v, 0)[0]
        if st == -1:
            warm.set()
            continue
        lat_ns.append(now - st)
        stamps.append(st)
        got += 1
        recv.value = got
    c.close()
    out = {'lat_ns': lat_ns, 'stamps': stamps, 'bad': bad, 'recv': got, 'stats': broker_stats(cstats),
           'errors': errors, 'partitions': len(parts)}
    if conn is None:
        return out
    conn.send(out)
    conn.close()


def cmd_e2e(a):
    sys.setswitchinterval(0.0005)  # two Python threads: keep GIL hand-over from inflating latency
    rate, secs, size = a.rate, a.seconds, max(a.size, 16)
    n = int(rate * secs)
    errors = []
    pstats, pcb = stats_collector()
    result = {}
    if a.consumer_process:
        import multiprocessing as mp
        ctx = mp.get_context('fork')  # before any librdkafka handle exists in this process
        ready, warm, stop = ctx.Event(), ctx.Event(), ctx.Event()
        recv = ctx.Value('q', 0, lock=False)
        parent_conn, child_conn = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=e2e_consumer, args=(a, n, ready, warm, stop, recv, child_conn), daemon=True)
        proc.start()

        def finish_consumer():
            stop.set()
            if parent_conn.poll(15):
                result.update(parent_conn.recv())
            proc.join(5)
            if proc.is_alive():
                proc.kill()
    else:
        ready, warm, stop, recv = threading.Event(), threading.Event(), threading.Event(), _Box()
        th = threading.Thread(target=lambda: result.update(e2e_consumer(a, n, ready, warm, stop, recv)), daemon=True)
        th.start()

        def finish_consumer():
            stop.set()
            th.join(10)
    if not ready.wait(15):
        die('e2e consumer did not start within 15 s')
    time.sleep(0.5)

    delivered = [0]
    failed = [0]

    ack_lat = []

    def on_delivery(err, msg):
        if err is None:
            delivered[0] += 1
            ack_lat.append(msg.latency())  # produce() -> delivery report, seconds (librdkafka's own)
        else:
            failed[0] += 1

    p = Producer({**producer_conf(a, a.linger_ms), 'on_delivery': on_delivery,
                  'error_cb': err_cb_factory('e2e-producer', errors),
                  'statistics.interval.ms': 1000, 'stats_cb': pcb})
    partitions_of(p, a.topic, 10)
    # warm the producer's connection (not measured, not counted: goes to a different topic? no:
    # we only poll metadata above, which opens the connection to the leader)
    pad = b'\0' * (size - 8)
    pack = struct.pack
    # Warm-up, not measured: records stamped -1 until the consumer has received one, so the measured
    # part starts with every connection open and the consumer's long poll waiting (a broker started
    # for this phase alone creates __consumer_offsets when librdkafka first looks for the group's
    # coordinator, a one-time cost of a new cluster that would otherwise land in the first seconds).
    warm_deadline = time.monotonic() + 30
    while not warm.is_set():
        if time.monotonic() > warm_deadline:
            die('e2e: the consumer received no warm-up record within 30 s')
        p.produce(a.topic, pack('>q', -1) + pad)
        p.flush(1)
        warm.wait(0.2)
    p.flush(5)
    delivered[0] = failed[0] = 0
    del ack_lat[:]
    mono = time.monotonic_ns
    produce = p.produce
    poll = p.poll
    meter = CpuMeter(a.broker_pid)
    meter.start()
    interval_ns = int(1e9 / rate)
    t0 = mono()
    deadline_ns = t0 + int((secs + a.timeout) * 1e9)
    first_send = last_send = None
    sent = 0
    behind_max_ns = 0
    for i in range(n):
        due = t0 + i * interval_ns
        while True:  # sleep (never spin: a spinning producer would steal a core from the broker)
            now = mono()
            d = due - now
            if d <= 0:
                break
            time.sleep(d / 1e9)
        if now > deadline_ns:
            break
        if now - due > behind_max_ns:
            behind_max_ns = now - due
        stamp = mono()
        try:
            produce(a.topic, pack('>q', stamp) + pad)
        except BufferError:
            poll(0.01)
            continue
        if first_send is None:
            first_send = stamp
        last_send = stamp
        sent += 1
        poll(0)  # serve delivery reports promptly (ack latency is measured at the report)
    p.flush(10)
    time.sleep(1.1)  # one more statistics interval
    p.poll(0)
    drain_deadline = time.monotonic() + 10
    while recv.value < sent and time.monotonic() < drain_deadline:
        time.sleep(0.01)
    meter.stop()
    finish_consumer()
    lat_ns, stamps = result.get('lat_ns', []), result.get('stamps', [])
    errors += result.get('errors', [])
    send_span = (last_send - first_send) / 1e9 if sent > 1 else 0
    achieved = (sent - 1) / send_span if send_span > 0 else 0
    lat = sorted(x / 1e6 for x in lat_ns)  # ms
    acks_ms = sorted(x * 1e3 for x in ack_lat if x is not None)
    # p50/max latency per second of the run: shows whether a backlog builds up
    per_sec = {}
    if stamps:
        s0 = min(stamps)
        for st, l in zip(stamps, lat_ns):
            per_sec.setdefault(int((st - s0) // 1_000_000_000), []).append(l / 1e6)
    by_second = [[round(statistics.median(v), 2), round(max(v), 2)] for _, v in sorted(per_sec.items())]
    # Steady state: the records sent after the first second. The first second is the broker's
    # (and the clients') warm-up: code not yet optimized, connections and buffers growing; its
    # median is several times the rest's, and at 10,000/s its tail alone can make the run's p99.
    steady = sorted(x for sec, v in per_sec.items() if sec >= 1 for x in v)
    r = lambda x: round(x, 3) if x is not None else None  # noqa: E731
    rec = {'bench': 'e2e', 'topic': a.topic, 'partitions': result.get('partitions'), 'size': size, 'acks': a.acks,
           'linger_ms': a.linger_ms, 'fetch_wait_ms': a.fetch_wait_ms,
           'target_rate': rate, 'seconds': secs, 'sent': sent, 'delivered': delivered[0], 'failed': failed[0],
           'received': result.get('recv', 0), 'bad': result.get('bad', 0), 'achieved_rate': round(achieved, 1),
           'consumer': 'process' if a.consumer_process else 'thread',
           'max_send_lag_ms': round(behind_max_ns / 1e6, 3),
           'p50_ms': r(pct(lat, 50)), 'p90_ms': r(pct(lat, 90)), 'p95_ms': r(pct(lat, 95)),
           'p99_ms': r(pct(lat, 99)), 'p999_ms': r(pct(lat, 99.9)), 'max_ms': r(lat[-1] if lat else None),
           'min_ms': r(lat[0] if lat else None),
           'steady_p50_ms': r(pct(steady, 50)), 'steady_p99_ms': r(pct(steady, 99)), 'steady_p999_ms': r(pct(steady, 99.9)),
           'ack_p50_ms': r(pct(acks_ms, 50)), 'ack_p99_ms': r(pct(acks_ms, 99)),
           'p50_max_by_second_ms': by_second,
           'producer_broker_stats': broker_stats(pstats), 'consumer_broker_stats': result.get('stats'),
           'ok': result.get('recv') == sent and sent == n and failed[0] == 0,
           **meter.fields(max(sent, 1), send_span or 1)}
    if errors:
        rec['client_errors'] = errors[:5]
    if a.label:
        rec['label'] = a.label
    if a.dump_latencies:
        # One line per record: its send stamp and latency (CLOCK_MONOTONIC ns), for bench/e2e_sched.py.
        with open(a.dump_latencies, 'w') as f:
            f.write(f'# pid {os.getpid()}\n')
            f.writelines(f'{st} {l}\n' for st, l in zip(stamps, lat_ns))
    emit(rec, f'e2e {rate:,}/s x {secs}s {size} B acks={a.acks} linger={a.linger_ms}ms: sent {sent:,} '
              f'(achieved {achieved:,.0f}/s), received {result.get("recv", 0):,}; latency ms p50 {rec["p50_ms"]} '
              f'p95 {rec["p95_ms"]} p99 {rec["p99_ms"]} p99.9 {rec["p999_ms"]} max {rec["max_ms"]} '
              f'(produce ack p50 {rec["ack_p50_ms"]} p99 {rec["ack_p99_ms"]}); after the first second: p50 '
              f'{rec["steady_p50_ms"]} p99 {rec["steady_p99_ms"]} p99.9 {rec["steady_p999_ms"]}; '
              f'broker {rec.get("broker_us_per_rec")} us/rec')
    if not rec['ok']:
        sys.exit(1)


# ----------------------------------------------------------------------------------- kcat
def children_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cmd_kcat(a, produce):
    import subprocess
    import tempfile
    n, size, topic = a.count, a.size, a.topic
    errors = []
    c = Consumer({'bootstrap.servers': a.bootstrap, 'group.id': 'tributary-bench-kcat',
                  'error_cb': err_cb_factory('kcat-watermarks', errors)})
    parts = partitions_of(c, topic, 10)
    if len(parts) != 1:
        die('kcat modes support one partition')

    def end_offset():
        return c.get_watermark_offsets(TopicPartition(topic, parts[0]), timeout=10)[1]
    common = ['-b', a.bootstrap, '-t', topic, '-q']
    if produce:
        path = os.path.join(tempfile.gettempdir(), f'tributary-bench-kcat-{size}x{n}.txt')
        if not os.path.exists(path) or os.path.getsize(path) != n * (size + 1):
            line = (b'k' * size) + b'\n'
            with open(path + '.tmp', 'wb') as f:
                chunk = line * max(1, min(n, (8 << 20) // (size + 1)))
                per = len(chunk) // (size + 1)
                left = n
                while left > 0:
                    k = min(per, left)
                    f.write(chunk[:k * (size + 1)])
                    left -= k
            os.replace(path + '.tmp', path)
        cmd = ['kcat', '-P', *common, '-X', f'acks={a.acks}', '-X', f'linger.ms={a.linger_ms:g}',
               '-X', f'batch.num.messages={a.batch_messages}', '-X', f'batch.size={a.batch_size}',
               '-X', f'queue.buffering.max.messages={a.queue_messages}',
               '-X', f'queue.buffering.max.kbytes={a.queue_kbytes}', '-X', f'compression.codec={a.compression}',
               '-l', path]
        before = end_offset()
    else:
        cmd = ['kcat', '-C', *common, '-o', 'beginning', '-e', '-c', str(n), '-f', '%o\n',
               '-X', f'fetch.max.bytes={a.fetch_max_bytes}', '-X', f'receive.message.max.bytes={a.fetch_max_bytes + (1 << 20)}',
               '-X', f'fetch.min.bytes={a.fetch_min_bytes}', '-X', f'fetch.wait.max.ms={a.fetch_wait_ms}',
               '-X', 'queued.min.messages=1000000', '-X', f'queued.max.messages.kbytes={a.queued_kbytes}']
    for kv in a.X or []:
        cmd += ['-X', kv]
    meter = CpuMeter(a.broker_pid)
    k0 = children_cpu_seconds()
    meter.start()
    t0 = time.perf_counter()
    got = 0
    # Consume: when the first records came out of kcat, so the steady rate leaves out kcat's start-up
    # (connect, metadata, offset lookup, first fetch), which is a large share of a 1-second phase.
    first_at, first_got = None, 0
    try:
        if produce:
            proc = subprocess.run(cmd, timeout=a.timeout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            rc, err = proc.returncode, proc.stderr.decode(errors='replace')
        else:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 20)
            deadline = time.monotonic() + a.timeout
            while time.monotonic() < deadline:
                buf = proc.stdout.read1(1 << 20)
                if not buf:
                    break
                got += buf.count(b'\n')
                if first_at is None:
                    first_at, first_got = time.perf_counter(), got
            try:
                rc = proc.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = -9
            err = proc.stderr.read().decode(errors='replace')
    except subprocess.TimeoutExpired:
        rc, err = -9, 'timeout'
    t1 = time.perf_counter()
    meter.stop()
    kcat_cpu = children_cpu_seconds() - k0
    meter.client_s = kcat_cpu  # the client is kcat, not this process
    if produce:
        got = end_offset() - before
    wall = t1 - t0
    c.close()
    ok = rc == 0 and got == n
    rec = {'bench': 'produce' if produce else 'consume', 'client_kind': 'kcat', 'topic': topic, 'partitions': 1,
           'count': n, 'size': size, 'acks': a.acks if produce else None, 'linger_ms': a.linger_ms if produce else None,
           'delivered' if produce else 'received': got, 'ok': ok, 'exit_code': rc, 'seconds': round(wall, 4),
           'records_per_s': round(got / wall) if wall > 0 else None,
           'mb_per_s': round(got * size / wall / 1e6, 2) if wall > 0 else None, **meter.fields(max(got, 1), wall)}
    if first_at is not None and t1 > first_at and got > first_got:
        rec['steady_records_per_s'] = round((got - first_got) / (t1 - first_at))
        rec['first_record_s'] = round(first_at - t0, 4)
    if err.strip():
        rec['kcat_stderr'] = err.strip()[-500:]
    if a.label:
        rec['label'] = a.label
    emit(rec, f'kcat {"produce" if produce else "consume"} {got:,}/{n:,} x {size} B: {rec["records_per_s"]:,} rec/s, '
              f'{rec["mb_per_s"]} MB/s in {wall:.2f}s (incl. kcat start-up'
              f'{"; from the first record: " + format(rec["steady_records_per_s"], ",") + " rec/s" if "steady_records_per_s" in rec else ""}); broker {rec.get("broker_us_per_rec")} '
              f'us/rec, kcat {rec["client_us_per_rec"]} us/rec')
    if not ok:
        sys.exit(1)


# ----------------------------------------------------------------------------------- summarize
def cmd_summarize(a):
    rows = []
    srcs = a.files or ['-']
    for s in srcs:
        f = sys.stdin if s == '-' else open(s)
        for line in f:
            line = line.strip()
            if line.startswith('{'):
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    if a.max_other is not None:
        kept = [r for r in rows if isinstance(r.get('other_cores'), (int, float)) and r['other_cores'] <= a.max_other]
        print(f'(only runs where other processes used <= {a.max_other} cores: {len(kept)} of {len(rows)})')
        print()
        rows = kept
    groups = {}
    for r in rows:
        if r.get('bench') in ('produce', 'consume'):
            label = r.get('label')  # a run against something other than our broker (kcat-ceiling.mjs) is its own row
            key = (r['bench'] + (' (kcat)' if r.get('client_kind') == 'kcat' else '') +
                   (f' [{label}]' if label not in (None, 'tributary') else ''), r.get('count'), r.get('size'), r.get('partitions'))
        elif r.get('bench') == 'e2e':
            key = ('e2e', r.get('target_rate'), r.get('size'), r.get('partitions'), r.get('linger_ms'))
        else:
            continue
        groups.setdefault(key, []).append(r)

    def med(rs, k):
        v = [x[k] for x in rs if isinstance(x.get(k), (int, float))]
        return statistics.median(v) if v else None

    def rng(rs, k):
        v = [x[k] for x in rs if isinstance(x.get(k), (int, float))]
        if len(v) < 2:
            return ''
        fmt = (lambda x: f'{x:,.0f}') if max(v) >= 100 else (lambda x: f'{x:.3g}')  # noqa: E731
        return f'{fmt(min(v))}–{fmt(max(v))}'

    def f(x, d=1):
        if x is None:
            return '—'
        return f'{x:,.{d}f}'

    if a.detail:
        print('| run ts | phase | records × size | records/s | MB/s | broker cores | client cores | other cores | '
              'broker µs/rec | p50 / p99 ms |')
        print('|---|---|---|---|---|---|---|---|---|---|')
        for r in rows:
            if r.get('bench') not in ('produce', 'consume', 'e2e'):
                continue
            what = f'{r.get("count", r.get("sent", 0)):,} × {r.get("size")} B' + \
                (' (kcat)' if r.get('client_kind') == 'kcat' else '')
            if r['bench'] == 'e2e':
                what = f'{r.get("target_rate"):,}/s × {r.get("seconds"):g} s, linger {r.get("linger_ms"):g}'
            lat = f'{r["p50_ms"]} / {r["p99_ms"]}' if r['bench'] == 'e2e' else ''
            rate = r.get('records_per_s') or r.get('achieved_rate')
            print(f'| {r.get("ts")} | {r["bench"]} | {what} | {rate:,.0f} | {r.get("mb_per_s", "")} | '
                  f'{r.get("broker_cores")} | {r.get("client_cores")} | {r.get("other_cores")} | '
                  f'{r.get("broker_us_per_rec")} | {lat} |')
        print()
    print('| phase | records × size | P | runs | records/s (min–max) | MB/s | broker µs/rec | '
          'client µs/rec | broker cores | other cores | failures |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    order = {'produce': 0, 'consume': 1, 'produce (kcat)': 2, 'consume (kcat)': 3, 'e2e': 4}
    for key in sorted(groups, key=lambda k: (k[2] or 0, order.get(k[0].split(' [')[0], 5), k[0], k[1] or 0)):
        rs = groups[key]
        bad = sum(1 for x in rs if not x.get('ok'))
        if key[0] == 'e2e':
            continue
        print(f'| {key[0]} | {key[1]:,} × {key[2]} B | {key[3]} | {len(rs)} | {f(med(rs, "records_per_s"), 0)} '
              f'({rng(rs, "records_per_s")}) | {f(med(rs, "mb_per_s"))} | {f(med(rs, "broker_us_per_rec"), 2)} | '
              f'{f(med(rs, "client_us_per_rec"), 2)} | {f(med(rs, "broker_cores"), 2)} | '
              f'{f(med(rs, "other_cores"), 2)} | {bad} |')
    for key in sorted(groups, key=lambda k: (k[2] or 0, k[1] or 0)):
        steady = med(groups[key], 'steady_records_per_s')
        if key[0].startswith('consume (kcat)') and steady is not None:
            print(f'\n{key[0]} {key[1]:,} × {key[2]} B from kcat\'s first record on (its start-up left out): '
                  f'{f(steady, 0)} records/s ({rng(groups[key], "steady_records_per_s")}), first record after '
                  f'{f(med(groups[key], "first_record_s"), 3)} s')
    e2e = [k for k in groups if k[0] == 'e2e']
    if e2e:
        print()
        print('| e2e | size | P | linger.ms | runs | achieved/s | p50 ms | p95 ms | p99 ms (min–max) | p99.9 ms | max ms | '
              'after 1 s: p99 / p99.9 ms | ack p50/p99 ms | broker µs/rec | other cores | failures |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
        for key in sorted(e2e):
            rs = groups[key]
            bad = sum(1 for x in rs if not x.get('ok'))
            print(f'| {key[1]:,}/s | {key[2]} B | {key[3]} | {key[4]:g} | {len(rs)} | {f(med(rs, "achieved_rate"), 0)} | '
                  f'{f(med(rs, "p50_ms"), 3)} | {f(med(rs, "p95_ms"), 3)} | {f(med(rs, "p99_ms"), 3)} '
                  f'({rng(rs, "p99_ms")}) | {f(med(rs, "p999_ms"), 3)} | {f(med(rs, "max_ms"), 3)} | '
                  f'{f(med(rs, "steady_p99_ms"), 3)} / {f(med(rs, "steady_p999_ms"), 3)} | '
                  f'{f(med(rs, "ack_p50_ms"), 2)} / {f(med(rs, "ack_p99_ms"), 2)} | '
                  f'{f(med(rs, "broker_us_per_rec"), 2)} | {f(med(rs, "other_cores"), 2)} | {bad} |')
    floor = [r for r in rows if r.get('bench') == 'e2e-floor']
    if floor:  # bench/e2e-floor.mjs: the same load through a relay that does no Kafka work
        print(f'\ne2e floor (relay without Kafka, {len(floor)} runs, medians): p50 {f(med(floor, "p50_ms"), 3)} ms, '
              f'p99 {f(med(floor, "p99_ms"), 3)} ms ({rng(floor, "p99_ms")}), p99.9 {f(med(floor, "p999_ms"), 3)} ms '
              f'(after 1 s: p99 {f(med(floor, "steady_p99_ms"), 3)}, p99.9 {f(med(floor, "steady_p999_ms"), 3)}), '
              f'relay {f(med(floor, "relay_us_per_record"), 1)} µs/rec')


# ----------------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['create', 'produce', 'consume', 'e2e', 'kcat-produce', 'kcat-consume', 'summarize'])
    ap.add_argument('files', nargs='*', help='summarize: JSON-lines files (default stdin)')
    ap.add_argument('-b', '--bootstrap', default=os.environ.get('BOOTSTRAP', '127.0.0.1:9092'))
    ap.add_argument('-t', '--topic', action='append', help='topic (create: repeatable)')
    ap.add_argument('-n', '--count', type=int, default=1_000_000)
    ap.add_argument('-s', '--size', type=int, default=100)
    ap.add_argument('-p', '--partitions', type=int, default=1, help='create: partitions per topic')
    ap.add_argument('--exist-ok', action='store_true')
    ap.add_argument('--detail', action='store_true', help='summarize: also one row per run')
    ap.add_argument('--max-other', type=float, default=None,
                    help='summarize: only runs during which other processes used at most this many cores')
    ap.add_argument('--acks', default='1')
    ap.add_argument('--linger-ms', type=float, default=None, help='default 5 (produce), 0 (e2e)')
    ap.add_argument('--batch-messages', type=int, default=100_000)
    ap.add_argument('--batch-size', type=int, default=1_000_000)
    ap.add_argument('--queue-messages', type=int, default=2_000_000)
    ap.add_argument('--queue-kbytes', type=int, default=2_097_151)
    ap.add_argument('--compression', default='none')
    ap.add_argument('--fetch-min-bytes', type=int, default=None, help='default 1 MiB (consume), 1 (e2e)')
    ap.add_argument('--fetch-wait-ms', type=int, default=None, help='default 100 (consume), 500 (e2e)')
    ap.add_argument('--fetch-max-bytes', type=int, default=64 << 20)
    ap.add_argument('--partition-fetch-bytes', type=int, default=16 << 20)
    ap.add_argument('--queued-kbytes', type=int, default=1 << 20)
    ap.add_argument('--batch', type=int, default=10000, help='consume: records per consume() call')
    ap.add_argument('--rate', type=int, default=10_000, help='e2e: records/s')
    ap.add_argument('--consumer-process', action='store_true',
                    help='e2e: run the consumer in a forked process instead of a thread (no shared GIL)')
    ap.add_argument('--seconds', type=float, default=10.0, help='e2e: duration')
    ap.add_argument('--dump-latencies', default=None,
                    help='e2e: write each record\'s send stamp and latency (CLOCK_MONOTONIC ns) to this file')
    ap.add_argument('--timeout', type=float, default=300.0, help='deadline in seconds for the phase')
    ap.add_argument('--broker-pid', type=int, default=int(os.environ.get('BROKER_PID', '0') or 0))
    ap.add_argument('--label', default=os.environ.get('BENCH_LABEL'))
    ap.add_argument('--latency', action='store_true',
                    help='produce: also report the acknowledgement latency percentiles (msg.latency(), costs a little per record)')
    ap.add_argument('-X', action='append', help='extra librdkafka property key=value (repeatable)')
    a = ap.parse_intermixed_args()
    if a.mode == 'summarize':
        return cmd_summarize(a)
    if Consumer is None:
        die('confluent_kafka is not importable: run with /usr/bin/python3')
    if not a.topic:
        die('--topic is required')
    e2e = a.mode == 'e2e'
    if a.linger_ms is None:
        a.linger_ms = float(os.environ.get('E2E_LINGER_MS', '0')) if e2e else 5
    if a.fetch_min_bytes is None:
        a.fetch_min_bytes = 1 if e2e else 1 << 20
    if a.fetch_wait_ms is None:
        a.fetch_wait_ms = 500 if e2e else 100
    if a.mode == 'create':
        return cmd_create(a)
    a.topic = a.topic[0]
    return {'produce': cmd_produce, 'consume': cmd_consume, 'e2e': cmd_e2e,
            'kcat-produce': lambda a: cmd_kcat(a, True), 'kcat-consume': lambda a: cmd_kcat(a, False)}[a.mode](a)


if __name__ == '__main__':
    main()

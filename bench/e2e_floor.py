"""The e2e latency floor's clients (bench/e2e-floor.mjs starts the relay and runs this).

Mirrors the structure of librdkafka_bench.py's e2e phase with nothing Kafka in it: one process, a
producer loop paced at RATE records/s of SIZE bytes (sleeping, never spinning) on the main thread,
and a consumer thread blocked in recv. Each record is a length-prefixed frame carrying its send time
(time.monotonic_ns); the relay appends it to a file, acknowledges it to the producer and forwards it
to the consumer, which records the latency. Prints one JSON line: percentiles in ms.

  python3 bench/e2e_floor.py PORT RATE SECONDS SIZE
"""
import json
import socket
import statistics
import struct
import sys
import threading
import time


def pct(sorted_vals, q):
    if not sorted_vals:
        return None
    k = min(len(sorted_vals) - 1, max(0, int(round(q / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[k]


def connect(port, role):
    s = socket.create_connection(('127.0.0.1', port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(role)
    return s


def consume(port, n, ready, lat_ns):
    s = connect(port, b'C')
    ready.set()
    buf = b''
    mono = time.monotonic_ns
    while len(lat_ns) < n:
        chunk = s.recv(65536)
        if not chunk:
            break
        now = mono()
        buf += chunk
        while len(buf) >= 4:
            size = struct.unpack_from('>I', buf, 0)[0]
            if len(buf) < 4 + size:
                break
            lat_ns.append(now - struct.unpack_from('>q', buf, 4)[0])
            buf = buf[4 + size:]
    s.close()


def main():
    port, rate, secs, size = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    sys.setswitchinterval(0.0005)  # as the e2e phase: two Python threads
    n = int(rate * secs)
    lat_ns = []
    ready = threading.Event()
    th = threading.Thread(target=consume, args=(port, n, ready, lat_ns), daemon=True)
    th.start()
    if not ready.wait(10):
        sys.exit('consumer did not connect')
    time.sleep(0.5)
    p = connect(port, b'P')
    p.setblocking(False)
    pad = b'\0' * (size - 8)
    head = struct.pack('>I', size)
    mono = time.monotonic_ns
    interval_ns = int(1e9 / rate)
    acked_bytes = 0
    t0 = mono()
    behind_max_ns = 0
    for i in range(n):
        due = t0 + i * interval_ns
        while True:
            now = mono()
            d = due - now
            if d <= 0:
                break
            time.sleep(d / 1e9)
        behind_max_ns = max(behind_max_ns, now - due)
        frame = head + struct.pack('>q', mono()) + pad
        view = memoryview(frame)
        while view:
            try:
                view = view[p.send(view):]
            except BlockingIOError:
                time.sleep(0.0001)
        try:
            while True:
                got = p.recv(65536)
                if not got:
                    break
                acked_bytes += len(got)
        except BlockingIOError:
            pass
    th.join(secs + 10)
    p.close()
    lat = sorted(x / 1e6 for x in lat_ns)
    # After the first second (records arrive in the order they were sent), as the e2e phase reports it.
    steady = sorted(x / 1e6 for x in lat_ns[int(rate):])
    r = lambda x: round(x, 3) if x is not None else None  # noqa: E731
    print(json.dumps({'sent': n, 'received': len(lat), 'acks': acked_bytes // 4,
                      'max_send_lag_ms': round(behind_max_ns / 1e6, 3),
                      'p50_ms': r(pct(lat, 50)), 'p99_ms': r(pct(lat, 99)), 'p999_ms': r(pct(lat, 99.9)),
                      'max_ms': r(lat[-1] if lat else None), 'mean_ms': r(statistics.mean(lat) if lat else None),
                      'steady_p50_ms': r(pct(steady, 50)), 'steady_p99_ms': r(pct(steady, 99)), 'steady_p999_ms': r(pct(steady, 99.9))}))


if __name__ == '__main__':
    main()

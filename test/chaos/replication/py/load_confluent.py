#!/usr/bin/python3
"""librdkafka (confluent-kafka-python) load for the replication chaos suite.

Usage: /usr/bin/python3 load_confluent.py  (JSON args on stdin)
  {bootstrap, topic, producer, partitions, count, rate, duration_s, size, acks?, extra?}

An idempotent producer (enable.idempotence=true, acks=all unless `acks` says
otherwise) sends record seq = 0..count-1 to partition seq % partitions, with
the value "<producer>|<seq>|" padded to `size` bytes (the checker's
recordValue), paced at `rate` records/s, and stops sending after `count`
records, `duration_s` seconds or a SIGTERM, whichever comes first; then
flushes for at most FLUSH_S. Prints one JSON line per delivery report, as it arrives:
  {"s": seq, "p": partition, "o": offset, "t": wall-clock ms}   acknowledged
  {"s": seq, "p": partition, "e": "ERROR_NAME", "t": ms}         failed
and a last line {"done": true, "sent": n, "left": unflushed, "fatal": name or null, "fatal_reason": text or null}.
"""
import json
import signal
import sys
import time

from confluent_kafka import KafkaException, Producer

FLUSH_S = 20


def main():
    args = json.loads(sys.stdin.read())
    out = sys.stdout
    fatal = []

    def on_error(err):
        if err.fatal():
            fatal.append((err.name(), err.str()))

    config = {
        "bootstrap.servers": args["bootstrap"],
        "enable.idempotence": args.get("acks", "all") == "all",
        "acks": args.get("acks", "all"),
        "linger.ms": 5,
        "retry.backoff.ms": 100,
        "socket.timeout.ms": 10000,
        "message.timeout.ms": int(args.get("message_timeout_ms", 30000)),
        "topic.metadata.refresh.interval.ms": 1000,
        "error_cb": on_error,
    }
    config.update(args.get("extra", {}))
    p = Producer(config)
    producer, size, partitions = args["producer"], int(args["size"]), int(args["partitions"])

    def report(err, msg):
        seq = int(msg.value().split(b"|", 2)[1])
        line = {"s": seq, "p": msg.partition(), "t": time.time() * 1000}
        if err is None:
            line["o"] = msg.offset()
        else:
            line["e"] = err.name()
        out.write(json.dumps(line) + "\n")

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    count, rate = int(args["count"]), float(args["rate"])
    start = time.monotonic()
    deadline = start + float(args["duration_s"])
    sent = 0
    left = 0
    try:
        while sent < count and time.monotonic() < deadline and not fatal and not stopping:
            due = start + sent / rate
            now = time.monotonic()
            if due > now:
                p.poll(min(due - now, 0.05))
                continue
            head = f"{producer}|{sent}|"
            value = head + "x" * max(0, size - len(head))
            try:
                p.produce(args["topic"], value=value.encode(), partition=sent % partitions, on_delivery=report)
                sent += 1
            except BufferError:
                p.poll(0.05)
            p.poll(0)
        left = p.flush(FLUSH_S)
    except KafkaException as e:
        # A fatal error (idempotence broken, e.g. a sequence gap the broker caused) raised from
        # produce(), poll() or flush(): stop sending; the acknowledgements so far were printed.
        fatal.append((e.args[0].name(), e.args[0].str()))
        left = len(p)
    out.write(json.dumps({"done": True, "sent": sent, "left": left, "fatal": fatal[0][0] if fatal else None, "fatal_reason": fatal[0][1] if fatal else None}) + "\n")
    out.flush()


if __name__ == "__main__":
    main()

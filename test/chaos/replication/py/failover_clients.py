#!/usr/bin/python3
"""Python clients across a partition leader's kill -9 (clients-leader-kill.test.ts).

Usage: /usr/bin/python3 failover_clients.py <library> <command>  (JSON args on stdin)
  library: confluent (confluent-kafka on librdkafka 2.0.2) | kafka-python (2.0.2)
  produce {bootstrap, topic, name, count, rate, duration_s}
      acks=all, retries for up to 30 s per record, values "<name>|<seq>|" to partition 0, paced;
      one JSON line per acknowledgement {"s": seq, "o": offset}, then {"done": true, "sent": n, "errors": [...]}
  consume {bootstrap, topic, count, timeout_s}
      partition 0 from offset 0 until `count` records or the timeout; one JSON line per record
      {"o": offset, "v": value}, then {"done": true}
Every loop is bounded by its count and a deadline.
"""
import json
import sys
import time

DELIVERY_S = 30


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def paced(args):
    start = time.monotonic()
    deadline = start + float(args["duration_s"])
    for seq in range(int(args["count"])):
        due = start + seq / float(args["rate"])
        if due > deadline:
            return
        if due > time.monotonic():
            time.sleep(due - time.monotonic())
        yield seq, f'{args["name"]}|{seq}|'.encode()


def confluent_produce(args):
    from confluent_kafka import Producer
    errors = []
    p = Producer({"bootstrap.servers": args["bootstrap"], "acks": "all", "enable.idempotence": True,
                  "message.timeout.ms": DELIVERY_S * 1000, "retry.backoff.ms": 100,
                  "topic.metadata.refresh.interval.ms": 1000, "linger.ms": 5})

    def report(err, msg):
        if err is not None:
            errors.append(err.name())
        else:
            emit({"s": int(msg.value().split(b"|")[1]), "o": msg.offset()})
    sent = 0
    for _, value in paced(args):
        p.produce(args["topic"], value=value, partition=0, on_delivery=report)
        sent += 1
        p.poll(0)
    p.flush(DELIVERY_S + 5)
    emit({"done": True, "sent": sent, "errors": errors})


def confluent_consume(args):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": args["bootstrap"], "group.id": f'{args["topic"]}-confluent',
                  "enable.auto.commit": False, "topic.metadata.refresh.interval.ms": 1000})
    c.assign([TopicPartition(args["topic"], 0, 0)])
    got = 0
    deadline = time.monotonic() + float(args["timeout_s"])
    while got < int(args["count"]) and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is None or m.error() is not None:
            continue
        emit({"o": m.offset(), "v": m.value().decode()})
        got += 1
    c.close()
    emit({"done": True})


def kafka_python_produce(args):
    from kafka import KafkaProducer
    errors = []
    p = KafkaProducer(bootstrap_servers=args["bootstrap"], acks="all", retries=1000, retry_backoff_ms=100,
                      request_timeout_ms=10000, metadata_max_age_ms=1000, max_in_flight_requests_per_connection=1,
                      linger_ms=5)
    futures = []
    for seq, value in paced(args):
        futures.append((seq, p.send(args["topic"], value=value, partition=0)))
        while futures and futures[0][1].is_done:
            done_seq, f = futures.pop(0)
            report(done_seq, f, errors)
    sent = len(futures)
    for seq, f in futures:
        try:
            f.get(timeout=DELIVERY_S)
        except Exception:  # noqa: BLE001 - reported by report()
            pass
        report(seq, f, errors)
    p.close(timeout=10)
    emit({"done": True, "sent": sent, "errors": errors})


def report(seq, future, errors):
    if future.succeeded():
        emit({"s": seq, "o": future.value.offset})
    else:
        errors.append(type(future.exception).__name__ if future.is_done else "unanswered")


def kafka_python_consume(args):
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=args["bootstrap"], enable_auto_commit=False, metadata_max_age_ms=1000)
    tp = TopicPartition(args["topic"], 0)
    c.assign([tp])
    c.seek(tp, 0)
    got = 0
    deadline = time.monotonic() + float(args["timeout_s"])
    while got < int(args["count"]) and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=500).values():
            for m in records:
                emit({"o": m.offset, "v": m.value.decode()})
                got += 1
    c.close()
    emit({"done": True})


COMMANDS = {
    ("confluent", "produce"): confluent_produce,
    ("confluent", "consume"): confluent_consume,
    ("kafka-python", "produce"): kafka_python_produce,
    ("kafka-python", "consume"): kafka_python_consume,
}

if __name__ == "__main__":
    COMMANDS[(sys.argv[1], sys.argv[2])](json.loads(sys.stdin.read()))

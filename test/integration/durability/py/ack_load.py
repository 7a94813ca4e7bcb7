#!/usr/bin/python3
"""Produce load and log dump for test/integration/durability/kill9.test.ts
(confluent-kafka-python on librdkafka 2.0.2, run with /usr/bin/python3).

  load  {bootstrap, topic, partitions, max_records, max_seconds, value_bytes, first_seq}
        acks=all, records sent round-robin to explicit partitions. Prints one line
        per *acknowledged* record as soon as its delivery report arrives:
            A <partition> <offset> <seq>
        and per failed record:  F <partition> <seq> <error name>
        then "DONE <sent> <acked> <failed>" if it finishes by itself.
  dump  {bootstrap, topic, partitions}
        reads every partition from offset 0 to its high watermark (assign, no group)
        and prints  R <partition> <offset> <value>  per record, then
            END <partition> <low> <high>   per partition, and "ERR <name>" for errors.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

out = sys.stdout


def load(args):
    producer = Producer(
        {
            "bootstrap.servers": args["bootstrap"],
            "acks": "all",
            "linger.ms": 5,
            "batch.num.messages": 1000,
            "message.timeout.ms": 30000,
            "queue.buffering.max.messages": 50000,
            # The test kills the broker; keep reconnect attempts quiet and quick.
            "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 500,
        }
    )
    lines = []
    counts = {"acked": 0, "failed": 0}

    def report(seq):
        def on_delivery(err, msg):
            if err is None:
                counts["acked"] += 1
                lines.append("A %d %d %d\n" % (msg.partition(), msg.offset(), seq))
            else:
                counts["failed"] += 1
                lines.append("F %d %d %s\n" % (msg.partition(), seq, err.name()))

        return on_delivery

    def drain():
        if lines:
            out.write("".join(lines))
            out.flush()
            del lines[:]

    partitions = args["partitions"]
    pad = "x" * max(0, args.get("value_bytes", 100) - 24)
    first = args.get("first_seq", 0)
    deadline = time.time() + args["max_seconds"]
    sent = 0
    while sent < args["max_records"] and time.time() < deadline:
        seq = first + sent
        try:
            producer.produce(args["topic"], value=("seq-%d-%s" % (seq, pad)).encode(), partition=seq % partitions, on_delivery=report(seq))
            sent += 1
        except BufferError:
            producer.poll(0.05)
            drain()
            continue
        if sent % 500 == 0:
            producer.poll(0)
            drain()
    remaining = producer.flush(35)
    producer.poll(0)
    drain()
    out.write("DONE %d %d %d %d\n" % (sent, counts["acked"], counts["failed"], remaining))
    out.flush()


def dump(args):
    consumer = Consumer(
        {
            "bootstrap.servers": args["bootstrap"],
            "group.id": "tributary-durability-unused",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "fetch.max.bytes": 8 * 1024 * 1024,
        }
    )
    topic = args["topic"]
    ends = {}
    for p in range(args["partitions"]):
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=20)
        ends[p] = (low, high)
    consumer.assign([TopicPartition(topic, p, 0) for p in range(args["partitions"])])
    done = {p for p, (low, high) in ends.items() if high == 0}
    buf = []
    deadline = time.time() + args.get("timeout_s", 120)
    while len(done) < len(ends) and time.time() < deadline:
        for msg in consumer.consume(10000, 0.5):
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    if msg.offset() >= ends[msg.partition()][1]:
                        done.add(msg.partition())
                else:
                    buf.append("ERR %s\n" % msg.error().name())
                continue
            buf.append("R %d %d %s\n" % (msg.partition(), msg.offset(), msg.value().decode()))
            if msg.offset() + 1 >= ends[msg.partition()][1]:
                done.add(msg.partition())
        if len(buf) > 5000:
            out.write("".join(buf))
            del buf[:]
    out.write("".join(buf))
    for p, (low, high) in sorted(ends.items()):
        out.write("END %d %d %d\n" % (p, low, high))
    out.write("COMPLETE %d\n" % (1 if len(done) == len(ends) else 0))
    out.flush()
    consumer.close()


if __name__ == "__main__":
    {"load": load, "dump": dump}[sys.argv[1]](json.loads(sys.argv[2]) if len(sys.argv) > 2 else json.load(sys.stdin))

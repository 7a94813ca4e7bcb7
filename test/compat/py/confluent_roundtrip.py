#!/usr/bin/python3
"""confluent-kafka-python (librdkafka 2.0.2) driver for test/compat/confluent-kafka.test.ts.

Usage: /usr/bin/python3 confluent_roundtrip.py <command> '<json args>'
Prints one JSON object on its last stdout line. Keys, values and header values
travel as hex (None for null) so bytes compare exactly. No consumer groups:
consumption is by assign() with explicit offsets.

Commands:
  create_topics      {bootstrap, topics: [{name, partitions, config?}]}
  create_partitions  {bootstrap, topic, total}
  delete_topics      {bootstrap, topics}
  metadata           {bootstrap, topic?}
  produce            {bootstrap, topic, acks, compression, records: [{k, v, h: [[name, hex|None]], p?, ts?}]}
  consume            {bootstrap, topic, start: {partition: offset}, timeout_s?}
  offsets            {bootstrap, topic, partitions, times: [ms]}
"""
import json
import os
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

TIMEOUT_S = 20


def unhex(value):
    return None if value is None else bytes.fromhex(value)


def tohex(value):
    return None if value is None else value.hex()


def error_name(err):
    if err is None:
        return None
    if isinstance(err, KafkaException):
        err = err.args[0]
    if isinstance(err, KafkaError):
        return {"code": err.code(), "name": err.name(), "str": err.str()}
    return {"code": None, "name": type(err).__name__, "str": str(err)}


_ADMIN = []


def admin(args):
    # Keep a reference: a collected AdminClient fails its pending futures with _DESTROY.
    client = AdminClient({"bootstrap.servers": args["bootstrap"], "socket.timeout.ms": 10000})
    _ADMIN.append(client)
    return client


def wait_futures(futures):
    out = {}
    for name, future in futures.items():
        try:
            future.result(timeout=TIMEOUT_S)
            out[name] = None
        except Exception as err:  # noqa: BLE001 - reported to the test as data
            out[name] = error_name(err)
    return out


def create_topics(args):
    topics = [
        NewTopic(t["name"], num_partitions=t["partitions"], replication_factor=1, config=t.get("config", {}))
        for t in args["topics"]
    ]
    return {"results": wait_futures(admin(args).create_topics(topics, operation_timeout=10, request_timeout=15))}


def create_partitions(args):
    futures = admin(args).create_partitions([NewPartitions(args["topic"], args["total"])], request_timeout=15)
    return {"results": wait_futures(futures)}


def delete_topics(args):
    return {"results": wait_futures(admin(args).delete_topics(args["topics"], operation_timeout=10, request_timeout=15))}


def metadata(args):
    md = admin(args).list_topics(topic=args.get("topic"), timeout=TIMEOUT_S)
    topics = {}
    for name, t in md.topics.items():
        topics[name] = {
            "error": error_name(t.error),
            "partitions": {
                str(p.id): {"leader": p.leader, "replicas": list(p.replicas), "isrs": list(p.isrs), "error": error_name(p.error)}
                for p in t.partitions.values()
            },
        }
    return {
        "brokers": {str(b.id): {"host": b.host, "port": b.port} for b in md.brokers.values()},
        "controller_id": md.controller_id,
        "topics": topics,
    }


def produce(args):
    producer = Producer(
        {
            "bootstrap.servers": args["bootstrap"],
            "acks": str(args.get("acks", "all")),
            "compression.codec": args.get("compression", "none"),
            "linger.ms": 20,
            "message.timeout.ms": 20000,
        }
    )
    reports = [None] * len(args["records"])

    def on_delivery(index):
        def report(err, msg):
            reports[index] = {
                "error": error_name(err),
                "partition": msg.partition(),
                "offset": msg.offset(),
            }

        return report

    for index, r in enumerate(args["records"]):
        kwargs = {
            "key": unhex(r.get("k")),
            "value": unhex(r.get("v")),
            "headers": [(name, unhex(value)) for name, value in r.get("h", [])],
            "on_delivery": on_delivery(index),
        }
        if r.get("p") is not None:
            kwargs["partition"] = r["p"]
        if r.get("ts") is not None:
            kwargs["timestamp"] = r["ts"]
        while True:
            try:
                producer.produce(args["topic"], **kwargs)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    left = producer.flush(TIMEOUT_S)
    return {"not_flushed": left, "reports": reports}


def consume(args):
    consumer = Consumer(
        {
            "bootstrap.servers": args["bootstrap"],
            # assign() needs no group, but the Python binding insists on a group.id; nothing is committed.
            "group.id": "tributary-compat-unused",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "enable.partition.eof": True,
            "isolation.level": args.get("isolation", "read_committed"),
        }
    )
    topic = args["topic"]
    start = {int(p): o for p, o in args["start"].items()}
    ends = {}
    for p in start:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT_S)
        ends[p] = high
    consumer.assign([TopicPartition(topic, p, o) for p, o in start.items()])
    records = []
    errors = []
    done = {p for p in start if start[p] >= ends[p]}
    deadline = time.time() + args.get("timeout_s", TIMEOUT_S)
    while len(done) < len(start) and time.time() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() == KafkaError._PARTITION_EOF:
                if msg.offset() >= ends[msg.partition()]:
                    done.add(msg.partition())
                continue
            errors.append(error_name(msg.error()))
            continue
        ts_type, ts = msg.timestamp()
        records.append(
            {
                "p": msg.partition(),
                "o": msg.offset(),
                "k": tohex(msg.key()),
                "v": tohex(msg.value()),
                "h": [[name, tohex(value)] for name, value in (msg.headers() or [])],
                "ts": ts,
                "ts_type": ts_type,
            }
        )
        if msg.offset() + 1 >= ends[msg.partition()]:
            done.add(msg.partition())
    consumer.close()
    return {"ends": {str(p): e for p, e in ends.items()}, "records": records, "errors": errors, "complete": len(done) == len(start)}


def offsets(args):
    consumer = Consumer({"bootstrap.servers": args["bootstrap"], "group.id": "tributary-compat-unused", "enable.auto.commit": False})
    topic = args["topic"]
    watermarks = {}
    for p in args["partitions"]:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT_S, cached=False)
        watermarks[str(p)] = [low, high]
    by_time = {}
    for t in args["times"]:
        found = consumer.offsets_for_times([TopicPartition(topic, p, t) for p in args["partitions"]], timeout=TIMEOUT_S)
        by_time[str(t)] = {str(tp.partition): {"offset": tp.offset, "error": error_name(tp.error)} for tp in found}
    consumer.close()
    # AdminClient.list_offsets arrived in confluent-kafka 2.3; the Debian binding is 1.7.
    has_list_offsets = hasattr(AdminClient, "list_offsets")
    return {"watermarks": watermarks, "by_time": by_time, "admin_list_offsets_available": has_list_offsets}


COMMANDS = {
    "create_topics": create_topics,
    "create_partitions": create_partitions,
    "delete_topics": delete_topics,
    "metadata": metadata,
    "produce": produce,
    "consume": consume,
    "offsets": offsets,
}


def main():
    command = sys.argv[1]
    args = json.loads(sys.argv[2]) if len(sys.argv) > 2 else json.load(sys.stdin)
    result = COMMANDS[command](args)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    # confluent-kafka 1.7 decrefs None once per null header value it hands out
    # (c_headers_to_py), which aborts the interpreter at finalization
    # ("none_dealloc: deallocating None"). Everything is printed; skip finalization.
    os._exit(0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""kafka-python 2.0.2 driver for test/compat/kafka-python.test.ts.

Usage: /usr/bin/python3 kafka_python_roundtrip.py <command> < json-args
Prints one JSON object on its last stdout line; bytes travel as hex.
kafka-python guesses the broker version from ApiVersions v0 and then uses
fixed request versions (see docs/compatibility.md); the guess is reported.

Commands:
  create_topics  {bootstrap, topics: [{name, partitions}]}
  produce        {bootstrap, topic, acks, compression, records: [{k, v, h, p?}]}
  consume        {bootstrap, topic, partitions, timeout_s?}   assign() + seek_to_beginning, up to end_offsets
  end_offsets    {bootstrap, topic, partitions}
"""
import json
import logging
import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

TIMEOUT_S = 20
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)


def unhex(value):
    return None if value is None else bytes.fromhex(value)


def tohex(value):
    return None if value is None else bytes(value).hex()


def create_topics(args):
    client = KafkaAdminClient(bootstrap_servers=args["bootstrap"], request_timeout_ms=15000)
    try:
        version = client.config.get("api_version")
        try:
            result = client.create_topics(
                [NewTopic(name=t["name"], num_partitions=t["partitions"], replication_factor=1) for t in args["topics"]],
                timeout_ms=10000,
            )
        except Exception as err:  # noqa: BLE001 - kafka-python raises the first topic error; reported as data
            return {"api_version": list(version) if version else None, "exception": type(err).__name__, "message": str(err)}
        errors = [list(t) for t in getattr(result, "topic_errors", [])]
        return {
            "api_version": list(version) if version else None,
            "request_version": result.API_VERSION,
            "exception": None,
            "topic_errors": errors,
        }
    finally:
        client.close()


def produce(args):
    producer = KafkaProducer(
        bootstrap_servers=args["bootstrap"],
        acks=args["acks"] if args["acks"] != "all" else "all",
        compression_type=args.get("compression"),
        linger_ms=10,
        request_timeout_ms=15000,
        retries=0,
    )
    try:
        futures = []
        for r in args["records"]:
            futures.append(
                producer.send(
                    args["topic"],
                    key=unhex(r.get("k")),
                    value=unhex(r.get("v")),
                    headers=[(name, unhex(value)) for name, value in r.get("h", [])],
                    partition=r.get("p"),
                )
            )
        producer.flush(TIMEOUT_S)
        reports = []
        for f in futures:
            try:
                md = f.get(timeout=TIMEOUT_S)
                reports.append({"partition": md.partition, "offset": md.offset, "error": None})
            except Exception as err:  # noqa: BLE001 - reported as data
                reports.append({"partition": None, "offset": None, "error": repr(err)})
        return {"api_version": list(producer.config["api_version"]), "reports": reports}
    finally:
        producer.close(timeout=5)


def consume(args):
    consumer = KafkaConsumer(
        bootstrap_servers=args["bootstrap"],
        group_id=None,
        enable_auto_commit=False,
        consumer_timeout_ms=1000,
        request_timeout_ms=15000,
    )
    try:
        tps = [TopicPartition(args["topic"], p) for p in args["partitions"]]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        records = []
        deadline = time.time() + args.get("timeout_s", TIMEOUT_S)
        positions = {tp.partition: 0 for tp in tps}
        while time.time() < deadline and any(positions[tp.partition] < ends[tp] for tp in tps):
            batch = consumer.poll(timeout_ms=500)
            for tp, messages in batch.items():
                for m in messages:
                    records.append(
                        {
                            "p": m.partition,
                            "o": m.offset,
                            "k": tohex(m.key),
                            "v": tohex(m.value),
                            "h": [[name, tohex(value)] for name, value in (m.headers or [])],
                            "ts": m.timestamp,
                        }
                    )
                    positions[m.partition] = m.offset + 1
        return {
            "api_version": list(consumer.config["api_version"]),
            "ends": {str(tp.partition): o for tp, o in ends.items()},
            "records": records,
        }
    finally:
        consumer.close()


def end_offsets(args):
    consumer = KafkaConsumer(bootstrap_servers=args["bootstrap"], group_id=None, request_timeout_ms=15000)
    try:
        tps = [TopicPartition(args["topic"], p) for p in args["partitions"]]
        ends = consumer.end_offsets(tps)
        begins = consumer.beginning_offsets(tps)
        return {
            "end": {str(tp.partition): o for tp, o in ends.items()},
            "beginning": {str(tp.partition): o for tp, o in begins.items()},
            "partitions_for_topic": sorted(consumer.partitions_for_topic(args["topic"]) or []),
        }
    finally:
        consumer.close()


COMMANDS = {"create_topics": create_topics, "produce": produce, "consume": consume, "end_offsets": end_offsets}


def main():
    command = sys.argv[1]
    args = json.loads(sys.argv[2]) if len(sys.argv) > 2 else json.load(sys.stdin)
    result = COMMANDS[command](args)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

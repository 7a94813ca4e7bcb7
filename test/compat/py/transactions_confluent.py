#!/usr/bin/python3
"""confluent-kafka-python (librdkafka 2.0.2) transactions driver for
test/compat/transactions/librdkafka-transactions.test.ts.

Usage: /usr/bin/python3 transactions_confluent.py <command>, JSON args on stdin.
Prints one JSON object on its last stdout line.

Commands:
  run        {bootstrap, topic, group, transactional_id}
             init_transactions; a committed transaction with
             send_offsets_to_transaction (offset 3 of partition 0 for the
             group); an aborted one (offset 9); then reads the topic
             read_committed and read_uncommitted, and the group's offsets.
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

TIMEOUT_S = 30


def read_all(bootstrap, topic, isolation, expected):
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "reader-" + isolation + "-" + str(time.time()),
        "isolation.level": isolation,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    })
    c.assign([TopicPartition(topic, 0, 0)])
    values = []
    deadline = time.time() + TIMEOUT_S
    quiet_until = None
    while time.time() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            if len(values) >= expected:
                quiet_until = quiet_until or time.time() + 1.0
                if time.time() > quiet_until:
                    break
            continue
        values.append(m.value().decode())
    c.close()
    return sorted(values)


def group_offset(bootstrap, group, topic):
    # OffsetFetch with RequireStable (librdkafka asks for stable offsets when isolation.level=read_committed).
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "isolation.level": "read_committed"})
    committed = c.committed([TopicPartition(topic, 0)], timeout=TIMEOUT_S)
    c.close()
    return committed[0].offset


def run(args):
    bootstrap, topic, group = args["bootstrap"], args["topic"], args["group"]
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": args["transactional_id"], "linger.ms": 5})
    p.init_transactions(TIMEOUT_S)
    consumer_meta = Consumer({"bootstrap.servers": bootstrap, "group.id": group}).consumer_group_metadata()

    p.begin_transaction()
    p.produce(topic, value=b"c1", partition=0)
    p.produce(topic, value=b"c2", partition=0)
    p.send_offsets_to_transaction([TopicPartition(topic, 0, 3)], consumer_meta, TIMEOUT_S)
    p.commit_transaction(TIMEOUT_S)

    p.begin_transaction()
    p.produce(topic, value=b"x1", partition=0)
    p.send_offsets_to_transaction([TopicPartition(topic, 0, 9)], consumer_meta, TIMEOUT_S)
    p.flush(TIMEOUT_S)
    p.abort_transaction(TIMEOUT_S)

    return {
        "committed": read_all(bootstrap, topic, "read_committed", 2),
        "uncommitted": read_all(bootstrap, topic, "read_uncommitted", 3),
        "group_offset": group_offset(bootstrap, group, topic),
    }


def main():
    command = sys.argv[1]
    args = json.loads(sys.stdin.read())
    result = {"run": run}[command](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

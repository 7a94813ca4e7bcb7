#!/usr/bin/python3
"""confluent-kafka-python (librdkafka 2.0.2) idempotent producer for test/compat/idempotent-clients.test.ts.

Usage: /usr/bin/python3 idempotent_confluent.py produce  (JSON args on stdin)
  produce {bootstrap, topic, count, prefix}
Produces values "<prefix>-<i>" (i = 0..count-1, null keys) to partition 0 with
enable.idempotence=true, in several flushes, and prints one JSON object last:
{delivered, failed: [error names], fatal: error name or null, offsets: [int]}.
"""
import json
import sys

from confluent_kafka import KafkaError, Producer

TIMEOUT_S = 60


def main():
    command = sys.argv[1]
    args = json.loads(sys.stdin.read())
    if command != "produce":
        raise SystemExit(f"unknown command {command}")
    fatal = []

    def on_error(err):
        if err.fatal():
            fatal.append(err.name())

    p = Producer({
        "bootstrap.servers": args["bootstrap"],
        "enable.idempotence": True,
        "linger.ms": 5,
        "batch.num.messages": 20,
        "retry.backoff.ms": 50,
        "socket.timeout.ms": 10000,
        "message.timeout.ms": 45000,
        "error_cb": on_error,
    })
    delivered = []
    failed = []

    def on_delivery(err, msg):
        if err is not None:
            failed.append(err.name())
        else:
            delivered.append(msg.offset())

    count = args["count"]
    for i in range(count):
        p.produce(args["topic"], value=f'{args["prefix"]}-{i}'.encode(), partition=0, on_delivery=on_delivery)
        if i % 50 == 49:
            p.poll(0)
            if p.flush(TIMEOUT_S) != 0:
                break
    left = p.flush(TIMEOUT_S)
    print(json.dumps({"delivered": len(delivered), "failed": failed, "left": left, "fatal": fatal[0] if fatal else None, "offsets": delivered}))


if __name__ == "__main__":
    main()

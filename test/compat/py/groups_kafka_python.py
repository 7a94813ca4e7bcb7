#!/usr/bin/python3
"""kafka-python 2.0.2 group member for test/compat/groups/kafka-python-group.test.ts.

Usage: /usr/bin/python3 groups_kafka_python.py member '<json args>'
  args: {bootstrap, topic, group, name?, session_timeout_ms?, max_runtime_s?, exit_when_idle_s?}

KafkaConsumer(group_id=...) subscribe/poll/commit. kafka-python guesses the
broker version from ApiVersions v0 and then pins JoinGroup v2, SyncGroup v1,
Heartbeat v1, LeaveGroup v1, OffsetCommit v2, OffsetFetch v1 (docs/compatibility.md).
Prints one JSON object per line:
  {"ev": "start", "api_version": [..]}
  {"ev": "assign", "partitions": [..], "generation": n}
  {"ev": "revoke", "partitions": [..]}
  {"ev": "rec", "p": partition, "o": offset, "v": "value"}
  {"ev": "commit", "reason": "..", "offsets": {p: o}, "error": null|".."}
  {"ev": "error", "name": "..", "str": ".."}
  {"ev": "closed", "committed": {p: o}}
Auto-commit is on (kafka-python commits synchronously before it rejoins on a
rebalance); it also commits after every poll that returned records and on
SIGTERM, then closes (LeaveGroup) and exits 0.
"""
import json
import logging
import signal
import sys
import time

from kafka import KafkaConsumer, TopicPartition
from kafka.consumer.subscription_state import ConsumerRebalanceListener
from kafka.structs import OffsetAndMetadata

STOP = {"flag": False}
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)


def emit(obj):
    obj["t"] = round(time.time(), 3)
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Listener(ConsumerRebalanceListener):
    def __init__(self):
        self.consumer = None

    def on_partitions_revoked(self, revoked):
        emit({"ev": "revoke", "partitions": sorted(tp.partition for tp in revoked)})

    def on_partitions_assigned(self, assigned):
        generation = None
        try:
            generation = self.consumer._coordinator._generation.generation_id  # noqa: SLF001 - diagnostics only
        except Exception:  # noqa: BLE001
            pass
        emit({"ev": "assign", "partitions": sorted(tp.partition for tp in assigned), "generation": generation})


def member(args):
    topic = args["topic"]
    consumer = KafkaConsumer(
        bootstrap_servers=args["bootstrap"],
        group_id=args["group"],
        client_id=args.get("name", "kafka-python-member"),
        auto_offset_reset="earliest",
        enable_auto_commit=True,
        auto_commit_interval_ms=200,
        session_timeout_ms=args.get("session_timeout_ms", 6000),
        heartbeat_interval_ms=500,
        max_poll_interval_ms=30000,
        request_timeout_ms=31000,
        fetch_max_wait_ms=100,
        metadata_max_age_ms=2000,
    )
    listener = Listener()
    listener.consumer = consumer
    consumer.subscribe([topic], listener=listener)
    emit({"ev": "start", "api_version": list(consumer.config["api_version"])})

    def commit(reason):
        offsets = {}
        for tp in consumer.assignment():
            try:
                offsets[tp] = OffsetAndMetadata(consumer.position(tp), "")
            except Exception:  # noqa: BLE001 - no position yet
                pass
        if not offsets:
            return
        try:
            consumer.commit(offsets)
            emit({"ev": "commit", "reason": reason, "offsets": {str(tp.partition): om.offset for tp, om in offsets.items()}, "error": None})
        except Exception as err:  # noqa: BLE001 - CommitFailedError during a rebalance; reported
            emit({"ev": "commit", "reason": reason, "offsets": {}, "error": "%s: %s" % (type(err).__name__, err)})

    deadline = time.time() + args.get("max_runtime_s", 120)
    idle_s = args.get("exit_when_idle_s")
    last_activity = time.time()
    while not STOP["flag"] and time.time() < deadline:
        try:
            batch = consumer.poll(timeout_ms=100)
        except Exception as err:  # noqa: BLE001 - reported to the test
            emit({"ev": "error", "name": type(err).__name__, "str": str(err)})
            time.sleep(0.2)
            continue
        if not batch:
            if idle_s is not None and consumer.assignment() and time.time() - last_activity > idle_s:
                break
            continue
        last_activity = time.time()
        for tp, messages in batch.items():
            for m in messages:
                emit({"ev": "rec", "p": m.partition, "o": m.offset, "v": None if m.value is None else bytes(m.value).decode("utf-8", "replace")})
        commit("poll")
    commit("stop")
    committed = {}
    for tp in consumer.assignment():
        try:
            committed[str(tp.partition)] = consumer.committed(tp)
        except Exception as err:  # noqa: BLE001
            emit({"ev": "error", "name": type(err).__name__, "str": str(err)})
    consumer.close(autocommit=True)
    emit({"ev": "closed", "committed": committed})


def on_term(signum, frame):
    STOP["flag"] = True


def main():
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    command = sys.argv[1]
    args = json.loads(sys.argv[2]) if len(sys.argv) > 2 else json.load(sys.stdin)
    if command != "member":
        raise SystemExit("unknown command " + command)
    member(args)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""confluent-kafka-python (librdkafka 2.0.2) group member for test/compat/groups/.

Usage: /usr/bin/python3 groups_confluent.py member '<json args>'
  args: {bootstrap, topic, group, strategy, name?, session_timeout_ms?,
         auto_commit?, max_runtime_s?, exit_when_idle_s?, instance_id?, debug?}

Subscribes to `topic` in `group` with partition.assignment.strategy =
`strategy` and prints one JSON object per line, flushed at once:
  {"ev": "start"}
  {"ev": "assign", "partitions": [..], "protocol": "EAGER"|"COOPERATIVE"|null}
  {"ev": "revoke", "partitions": [..]}      (for cooperative: only the partitions taken away)
  {"ev": "lost", "partitions": [..]}
  {"ev": "rec", "p": partition, "o": offset, "v": "value (utf-8)"}
  {"ev": "commit", "reason": "..", "offsets": {p: o}, "error": null|{..}}
  {"ev": "error", "code": n, "name": "..", "str": "..", "fatal": bool, "source": "poll"|"error_cb"}
  {"ev": "closed", "committed": {p: o}}
It commits synchronously on every revoke (so a rebalance re-delivers nothing)
and on SIGTERM, then closes (leaving the group) and exits 0. With
exit_when_idle_s it stops by itself after that long with no record once it
has an assignment (a bounded "resume" run).
"""
import json
import os
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

STOP = {"flag": False}


def emit(obj):
    obj["t"] = round(time.time(), 3)
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def err_obj(err, source):
    if isinstance(err, KafkaException):
        err = err.args[0]
    if isinstance(err, KafkaError):
        return {"code": err.code(), "name": err.name(), "str": err.str(), "fatal": err.fatal(), "source": source}
    return {"code": None, "name": type(err).__name__, "str": str(err), "fatal": False, "source": source}


def member(args):
    topic = args["topic"]

    def on_error(err):
        emit(dict(ev="error", **err_obj(err, "error_cb")))

    conf = {
        "bootstrap.servers": args["bootstrap"],
        "group.id": args["group"],
        "client.id": args.get("name", "confluent-member"),
        "partition.assignment.strategy": args["strategy"],
        "session.timeout.ms": args.get("session_timeout_ms", 6000),
        "heartbeat.interval.ms": 500,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": args.get("auto_commit", True),
        "auto.commit.interval.ms": 200,
        "enable.auto.offset.store": True,
        "fetch.wait.max.ms": 100,
        "topic.metadata.refresh.interval.ms": 2000,
        "error_cb": on_error,
    }
    if args.get("instance_id"):
        # Static membership (KIP-345): JoinGroup v5 group_instance_id; close() sends no LeaveGroup.
        conf["group.instance.id"] = args["instance_id"]
    if args.get("debug"):
        conf["debug"] = args["debug"]
    consumer = Consumer(conf)

    def protocol():
        try:
            return consumer.rebalance_protocol()
        except Exception:  # noqa: BLE001 - not in every binding version
            return None

    def commit(reason, partitions=None):
        try:
            if partitions is None:
                result = consumer.commit(asynchronous=False)
            else:
                result = consumer.commit(offsets=partitions, asynchronous=False)
            offsets = {str(tp.partition): tp.offset for tp in (result or []) if tp.topic == topic}
            emit({"ev": "commit", "reason": reason, "offsets": offsets, "error": None})
        except KafkaException as err:
            e = err_obj(err, "commit")
            # _NO_OFFSET: nothing consumed since the last commit; not a failure.
            emit({"ev": "commit", "reason": reason, "offsets": {}, "error": e})

    def on_assign(c, partitions):
        emit({"ev": "assign", "partitions": sorted(tp.partition for tp in partitions), "protocol": protocol()})

    def on_revoke(c, partitions):
        # Commit what was consumed from the partitions going away before they move.
        positions = [tp for tp in c.position(partitions) if tp.offset >= 0]
        if positions:
            commit("revoke", positions)
        emit({"ev": "revoke", "partitions": sorted(tp.partition for tp in partitions)})

    def on_lost(c, partitions):
        emit({"ev": "lost", "partitions": sorted(tp.partition for tp in partitions)})

    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    emit({"ev": "start"})
    deadline = time.time() + args.get("max_runtime_s", 120)
    idle_s = args.get("exit_when_idle_s")
    last_activity = time.time()
    while not STOP["flag"] and time.time() < deadline:
        msg = consumer.poll(0.1)
        if msg is None:
            if idle_s is not None and consumer.assignment() and time.time() - last_activity > idle_s:
                break
            continue
        if msg.error():
            emit(dict(ev="error", **err_obj(msg.error(), "poll")))
            continue
        last_activity = time.time()
        value = msg.value()
        emit({"ev": "rec", "p": msg.partition(), "o": msg.offset(), "v": None if value is None else value.decode("utf-8", "replace")})
    assigned = consumer.assignment()
    if assigned:
        positions = [tp for tp in consumer.position(assigned) if tp.offset >= 0]
        if positions:
            commit("stop", positions)
    committed = {}
    if assigned:
        try:
            committed = {str(tp.partition): tp.offset for tp in consumer.committed(assigned, timeout=10)}
        except KafkaException as err:
            emit(dict(ev="error", **err_obj(err, "committed")))
    consumer.close()
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
    sys.stdout.flush()
    # confluent-kafka 1.7 can abort at interpreter finalization (see confluent_roundtrip.py); skip it.
    os._exit(0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""TLS and SASL connections of confluent-kafka-python (librdkafka) and
kafka-python, for test/compat/tls.test.ts and test/compat/sasl.test.ts.

Usage: /usr/bin/python3 secure_clients.py <command> (JSON args on stdin)
Prints one JSON object on its last stdout line.

Commands (args: {bootstrap, config, topic, value}; `config` is the client's own
security settings, librdkafka names for confluent, kafka-python keyword
arguments for kafka_python):
  confluent     produce `value` to partition 0 of `topic`, read it back; or the error
  kafka_python  the same with kafka-python
"""
import json
import sys

TIMEOUT_S = 20


def confluent(args):
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
    common = {"bootstrap.servers": args["bootstrap"], **args["config"]}
    errors = []
    producer = Producer({**common, "error_cb": lambda e: errors.append(e), "message.timeout.ms": 10000})
    reports = []
    producer.produce(args["topic"], value=args["value"].encode(), partition=0, on_delivery=lambda err, msg: reports.append(err))
    producer.flush(TIMEOUT_S)
    # A failed SASL login shows as an _AUTHENTICATION error, not as a delivery report.
    auth = [e for e in errors if e.name() == "_AUTHENTICATION"]
    if auth:
        return {"error": {"name": auth[0].name(), "str": auth[0].str()}}
    if not reports or reports[0] is not None:
        return {"error": {"name": "delivery", "str": str(reports[0] if reports else "no report"), "errors": [e.str() for e in errors]}}
    consumer = Consumer({**common, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([TopicPartition(args["topic"], 0, 0)])
    try:
        msg = consumer.poll(TIMEOUT_S)
        if msg is None:
            return {"error": {"name": "timeout", "str": "no message"}}
        if msg.error():
            return {"error": {"name": msg.error().name(), "str": msg.error().str()}}
        return {"value": msg.value().decode()}
    except KafkaException as e:
        return {"error": {"name": e.args[0].name(), "str": e.args[0].str()}}
    finally:
        consumer.close()


def kafka_python(args):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.errors import KafkaError
    common = {"bootstrap_servers": args["bootstrap"], "request_timeout_ms": 10000, "api_version_auto_timeout_ms": 10000, **args["config"]}
    try:
        producer = KafkaProducer(**common, max_block_ms=10000)
        producer.send(args["topic"], value=args["value"].encode(), partition=0).get(timeout=TIMEOUT_S)
        producer.close()
        consumer = KafkaConsumer(**common, enable_auto_commit=False, consumer_timeout_ms=TIMEOUT_S * 1000)
        tp = TopicPartition(args["topic"], 0)
        consumer.assign([tp])
        consumer.seek(tp, 0)
        for msg in consumer:
            consumer.close()
            return {"value": msg.value.decode()}
        return {"error": {"name": "timeout", "str": "no message"}}
    except KafkaError as e:
        return {"error": {"name": type(e).__name__, "str": str(e)}}


def main():
    command = sys.argv[1]
    args = json.loads(sys.stdin.read())
    result = {"confluent": confluent, "kafka_python": kafka_python}[command](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""confluent-kafka-python 1.7 (librdkafka 2.0.2) driver for test/integration/admin/admin-clients.test.ts.

Its AdminClient has no delete_records or describe_cluster (1.7 has create/delete
topics, partitions, configs, list_topics, list_groups), so DeleteRecords comes from
another client; this script checks what librdkafka sees afterwards.

Usage: /usr/bin/python3 admin_confluent.py <command> (JSON args on stdin)
Prints one JSON object on its last stdout line.

Commands:
  admin_methods  {}  -> the public AdminClient methods of this binding
  consume_from   {bootstrap, topic, partition, offset, expect, reset, timeout_s?}
                 assign() at `offset` (below the log start), consume up to `expect`
                 records; reports their offsets, the watermarks, and any errors.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient


def admin_methods(_args):
    return {'methods': sorted(m for m in dir(AdminClient) if not m.startswith('_'))}


def consume_from(args):
    errors = []

    def on_error(err):
        errors.append(str(err))

    consumer = Consumer({
        'bootstrap.servers': args['bootstrap'],
        'group.id': 'tributary-admin-unused',
        'enable.auto.commit': False,
        'auto.offset.reset': args['reset'],
        'error_cb': on_error,
    })
    try:
        consumer.assign([TopicPartition(args['topic'], args['partition'], args['offset'])])
        offsets = []
        deadline = time.time() + args.get('timeout_s', 20)
        while len(offsets) < args['expect'] and time.time() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error() is not None:
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    errors.append(str(msg.error()))
                continue
            offsets.append(msg.offset())
        low, high = consumer.get_watermark_offsets(TopicPartition(args['topic'], args['partition']), timeout=10)
        return {'offsets': offsets, 'low': low, 'high': high, 'errors': errors}
    finally:
        consumer.close()


def main():
    command = sys.argv[1]
    args = json.load(sys.stdin)
    result = {'admin_methods': admin_methods, 'consume_from': consume_from}[command](args)
    print(json.dumps(result))


if __name__ == '__main__':
    main()

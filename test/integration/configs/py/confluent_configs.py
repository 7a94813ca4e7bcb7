#!/usr/bin/python3
"""confluent-kafka-python (librdkafka 2.0.2) admin configs driver for
test/integration/configs/clients.test.ts.

Usage: /usr/bin/python3 confluent_configs.py <command>   (JSON args on stdin)
Prints one JSON object on its last stdout line.

Commands:
  create_topic  {bootstrap, topic, config?}
  describe      {bootstrap, resources: [[type, name]]}        type: "topic" | "broker"
  alter         {bootstrap, resources: [[type, name, {k: v}]], validate_only?}
"""
import json
import sys

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

ResourceType = ConfigResource.Type

TIMEOUT_S = 20
_ADMIN = []


def admin(args):
    client = AdminClient({"bootstrap.servers": args["bootstrap"], "socket.timeout.ms": 10000})
    _ADMIN.append(client)
    return client


def error_of(err):
    if isinstance(err, KafkaException):
        err = err.args[0]
    if isinstance(err, KafkaError):
        return {"code": err.code(), "name": err.name(), "str": err.str()}
    return {"code": None, "name": type(err).__name__, "str": str(err)}


def resource(spec):
    kind = ResourceType.TOPIC if spec[0] == "topic" else ResourceType.BROKER
    set_config = spec[2] if len(spec) > 2 else None
    return ConfigResource(kind, spec[1], set_config=set_config)


def key_of(res):
    return ("topic" if res.restype == ResourceType.TOPIC else "broker") + ":" + res.name


def entry(e):
    return {
        "value": e.value,
        "source": int(e.source.value if hasattr(e.source, "value") else e.source),
        "read_only": e.is_read_only,
        "is_default": e.is_default,
        "is_sensitive": e.is_sensitive,
        "synonyms": [[s.name, s.value, int(s.source.value if hasattr(s.source, "value") else s.source)] for s in e.synonyms.values()]
        if isinstance(e.synonyms, dict) else [[s.name, s.value, int(s.source.value)] for s in e.synonyms],
    }


def create_topic(args):
    fs = admin(args).create_topics([NewTopic(args["topic"], 1, 1, config=args.get("config", {}))], request_timeout=TIMEOUT_S)
    out = {}
    for name, f in fs.items():
        try:
            f.result(TIMEOUT_S)
            out[name] = None
        except Exception as err:  # noqa: BLE001
            out[name] = error_of(err)
    return {"results": out}


def describe(args):
    fs = admin(args).describe_configs([resource(r) for r in args["resources"]], request_timeout=TIMEOUT_S)
    out = {}
    for res, f in fs.items():
        try:
            configs = f.result(TIMEOUT_S)
            out[key_of(res)] = {"error": None, "configs": {name: entry(e) for name, e in configs.items()}}
        except Exception as err:  # noqa: BLE001
            out[key_of(res)] = {"error": error_of(err), "configs": {}}
    return {"results": out}


def alter(args):
    fs = admin(args).alter_configs([resource(r) for r in args["resources"]], request_timeout=TIMEOUT_S,
                                   validate_only=bool(args.get("validate_only", False)))
    out = {}
    for res, f in fs.items():
        try:
            f.result(TIMEOUT_S)
            out[key_of(res)] = None
        except Exception as err:  # noqa: BLE001
            out[key_of(res)] = error_of(err)
    return {"results": out}


COMMANDS = {"create_topic": create_topic, "describe": describe, "alter": alter}

if __name__ == "__main__":
    result = COMMANDS[sys.argv[1]](json.loads(sys.stdin.read()))
    print(json.dumps(result))

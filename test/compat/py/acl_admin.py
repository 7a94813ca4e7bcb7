#!/usr/bin/python3
"""ACL admin calls of kafka-python 2.0.2 (KafkaAdminClient.create_acls,
describe_acls, delete_acls) for test/compat/acls.test.ts. (Debian's
confluent-kafka-python 1.7.0 has no ACL admin API: it came in 1.9.)

Usage: /usr/bin/python3 acl_admin.py kafka_python (JSON args on stdin:
{bootstrap, username, password, topic, principal})
Prints one JSON object on its last stdout line: what each call returned.
"""
import json
import sys


def kafka_python(args):
    from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType,
                             KafkaAdminClient, ResourcePattern, ResourcePatternFilter, ResourceType)
    admin = KafkaAdminClient(bootstrap_servers=args["bootstrap"], security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                             sasl_plain_username=args["username"], sasl_plain_password=args["password"], request_timeout_ms=20000)
    try:
        acl = ACL(principal=args["principal"], host="*", operation=ACLOperation.READ, permission_type=ACLPermissionType.ALLOW,
                  resource_pattern=ResourcePattern(ResourceType.TOPIC, args["topic"], ACLResourcePatternType.LITERAL))
        created = admin.create_acls([acl])
        flt = ACLFilter(principal=args["principal"], host=None, operation=ACLOperation.ANY, permission_type=ACLPermissionType.ANY,
                        resource_pattern=ResourcePatternFilter(ResourceType.TOPIC, args["topic"], ACLResourcePatternType.MATCH))
        described, err = admin.describe_acls(flt)
        deleted = admin.delete_acls([flt])
        after, _ = admin.describe_acls(flt)
        return {
            "created": len(created["succeeded"]),
            "createFailed": [str(e) for e in created["failed"]],
            "described": [[a.principal, a.operation.name, a.permission_type.name, a.resource_pattern.resource_type.name, a.resource_pattern.resource_name] for a in described],
            "describeError": err.__name__ if isinstance(err, type) else str(err),
            "deleted": sum(len(matches) for _f, matches, _e in deleted),
            "after": len(after),
        }
    finally:
        admin.close()


if __name__ == "__main__":
    print(json.dumps({"kafka_python": kafka_python}[sys.argv[1]](json.load(sys.stdin))))

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ClientErrorCode, KafkaProtocolError, isKafkaError, throwIfKafkaError } from '../../../src/net/errors.js';

test('every client error code is documented in src/client/README.md', () => {
  // dist/test/unit/net -> repository root.
  const readme = readFileSync(new URL('../../../../src/client/README.md', import.meta.url), 'utf8');
  for (const code of Object.values(ClientErrorCode)) assert.ok(readme.includes(`\`${code}\``), `${code} is not documented`);
});

test('KafkaProtocolError carries the Kafka error name and context', () => {
  const err = new KafkaProtocolError(6, { api: 'Produce', topic: 'orders', partition: 2, serverMessage: 'moved' });
  assert.equal(err.code, 'ERR_TRIB_KAFKA');
  assert.equal(err.errorName, 'NOT_LEADER_OR_FOLLOWER');
  assert.equal(err.retriable, true);
  assert.equal(err.topic, 'orders');
  assert.equal(err.partition, 2);
  assert.match(err.message, /^Produce orders-2: NOT_LEADER_OR_FOLLOWER: .*\(moved\)$/);
  assert.ok(isKafkaError(err, 'NOT_LEADER_OR_FOLLOWER'));
  assert.ok(!isKafkaError(err, 'OFFSET_OUT_OF_RANGE'));
  assert.equal(new KafkaProtocolError(9999).errorName, 'UNKNOWN_ERROR_9999');
  assert.doesNotThrow(() => throwIfKafkaError(0));
  assert.throws(() => throwIfKafkaError(36, { topic: 't' }), (e: KafkaProtocolError) => e.errorName === 'TOPIC_ALREADY_EXISTS');
});

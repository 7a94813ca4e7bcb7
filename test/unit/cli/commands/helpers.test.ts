// Unit tests of the client commands' pure helpers (src/cli/commands); the
// commands themselves run end to end in test/integration/cli.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitLine, formatBytes } from '../../../../src/cli/commands/produce.js';
import { parseStartOffset } from '../../../../src/cli/commands/consume.js';
import { formatRecord } from '../../../../src/cli/commands/record-format.js';
import { formatError, formatTable, toJson } from '../../../../src/cli/commands/common.js';
import { ConnectionError, ClientErrorCode, KafkaProtocolError } from '../../../../src/net/errors.js';

test('splitLine: key<SEP>value, null key without the separator or without --key-separator', () => {
  assert.deepEqual(splitLine('k\tv\tw', '\t'), { key: 'k', value: 'v\tw' });
  assert.deepEqual(splitLine('no separator', '\t'), { key: null, value: 'no separator' });
  assert.deepEqual(splitLine('\tv', '\t'), { key: '', value: 'v' });
  assert.deepEqual(splitLine('a::b', '::'), { key: 'a', value: 'b' });
  assert.deepEqual(splitLine('k\tv', null), { key: null, value: 'k\tv' });
});

test('parseStartOffset', () => {
  assert.equal(parseStartOffset('earliest'), 'earliest');
  assert.equal(parseStartOffset('latest'), 'latest');
  assert.equal(parseStartOffset('12345678901234567'), 12345678901234567n);
  assert.throws(() => parseStartOffset('-1'), /--offset/);
  assert.throws(() => parseStartOffset('soon'), /--offset/);
});

test('formatRecord: plain, key/offset prefixes, JSON', () => {
  const record = { topic: 't', partition: 2, offset: 7n, timestamp: 1000n, key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ key: 'h', value: Buffer.from('x') }] };
  assert.equal(formatRecord(record, {}), 'v');
  assert.equal(formatRecord(record, { printKey: true, printOffset: true }), '2:7\tk\tv');
  assert.equal(formatRecord({ ...record, key: null, value: null }, { printKey: true }), 'null\tnull');
  assert.deepEqual(JSON.parse(formatRecord(record, { json: true })), { topic: 't', partition: 2, offset: 7, timestamp: 1000, key: 'k', value: 'v', headers: { h: 'x' } });
});

test('formatTable pads columns; toJson writes bigints', () => {
  assert.equal(formatTable(['A', 'BB'], [['xxx', 'y'], ['z', 'w']]), 'A    BB\nxxx  y\nz    w');
  assert.equal(toJson({ a: 1n, b: 2n ** 60n }), '{"a":1,"b":"1152921504606846976"}');
  assert.equal(formatBytes(10), '10 B');
  assert.equal(formatBytes(2048), '2.0 KiB');
});

test('formatError names the Kafka error and gives a hint', () => {
  const kafka = formatError(new KafkaProtocolError(36, { api: 'CreateTopics', topic: 'orders' }));
  assert.match(kafka, /^error: CreateTopics orders: TOPIC_ALREADY_EXISTS/);
  assert.match(kafka, /hint: .*topic delete/);
  const conn = formatError(new ConnectionError(ClientErrorCode.CONNECTION, 'could not connect'), { bootstrap: 'h:1' });
  assert.match(conn, /hint: is a broker running at h:1\?/);
});

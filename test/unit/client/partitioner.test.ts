import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { DefaultPartitioner, murmur2, partitionForKey, toPositive } from '../../../src/client/partitioner.js';

// Apache Kafka clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java, testMurmur2.
const JAVA_VECTORS: [string, number][] = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

test('murmur2 matches the Java client (UtilsTest.testMurmur2)', () => {
  for (const [key, expected] of JAVA_VECTORS) assert.equal(murmur2(Buffer.from(key)), expected, key);
});

test('murmur2 of the empty key and every tail length', () => {
  // Empty input: only the seed/length mixing runs.
  assert.equal(murmur2(Buffer.alloc(0)), 275646681);
  // Lengths 1..3 exercise the switch fall-through on the tail bytes. The
  // vectors for '1', '12', '123' are the ones Akka's Murmur2Spec checks
  // against Kafka's Utils.murmur2; the others were computed with a direct
  // transcription of Utils.murmur2 (32-bit wrap-around, unsigned shifts),
  // including bytes >= 0x80 (Java's signed byte & 0xff).
  const vectors: [Buffer, number][] = [
    [Buffer.from('1'), -1993445489],
    [Buffer.from('12'), 126087238],
    [Buffer.from('123'), -267702483],
    [Buffer.from('a'), -1563381124],
    [Buffer.from('ab'), 316155434],
    [Buffer.from([0xff]), -311467685],
    [Buffer.from([0x80, 0x00]), -747627646],
  ];
  for (const [key, expected] of vectors) assert.equal(murmur2(key), expected, key.toString('hex'));
});

test('murmur2 agrees with kafkajs DefaultPartitioner murmur2 on random keys', () => {
  const require = createRequire(import.meta.url);
  const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: Buffer) => number;
  for (let i = 0; i < 2000; i++) {
    const key = randomBytes(i % 67);
    assert.equal(murmur2(key), kafkajsMurmur2(key), key.toString('hex'));
  }
});

test('toPositive clears the sign bit as Java does', () => {
  assert.equal(toPositive(-1), 0x7fffffff);
  assert.equal(toPositive(-2147483648), 0);
  assert.equal(toPositive(5), 5);
  assert.equal(toPositive(-973932308), -973932308 & 0x7fffffff);
});

test('partitionForKey is toPositive(murmur2(key)) % n', () => {
  // -973932308 & 0x7fffffff = 1173551340; 1173551340 % 3 = 0, % 10 = 0, % 7 = 1173551340 % 7.
  assert.equal(partitionForKey('21', 3), 1173551340 % 3);
  assert.equal(partitionForKey('21', 7), 1173551340 % 7);
  // foobar: -790332482 & 0x7fffffff = 1357151166.
  assert.equal(partitionForKey('foobar', 10), 1357151166 % 10);
  assert.equal(partitionForKey(Buffer.from('abc'), 4), 479470107 % 4);
  assert.equal(partitionForKey('anything', 1), 0);
  assert.throws(() => partitionForKey('k', 0), { code: 'ERR_TRIB_INVALID_ARGUMENT' });
});

test('DefaultPartitioner: keys by hash, null keys round-robin', () => {
  const p = new DefaultPartitioner();
  assert.deepEqual(
    [null, null, null, null, undefined].map((k) => p.partition(k, 3)),
    [0, 1, 2, 0, 1],
  );
  assert.equal(p.partition('foobar', 10), partitionForKey('foobar', 10));
  assert.equal(p.partition('foobar', 10), p.partition(Buffer.from('foobar'), 10));
});

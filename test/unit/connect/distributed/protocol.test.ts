/**
 * Connect's group protocol (version 1, "compatible") in Kafka's struct
 * encoding: byte layout of a small metadata and assignment, round trips,
 * and truncated input rejected with an error rather than garbage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeAssignment, decodeMetadata, encodeAssignment, encodeMetadata, type ConnectAssignment } from '../../../../src/connect/distributed/protocol.js';

test('metadata bytes: version, url, config offset, then the allocation as nullable bytes', () => {
  const bytes = encodeMetadata({ url: 'http://h:1', configOffset: 7n, allocation: { connectors: ['c'], tasks: [{ connector: 'c', task: 0 }] } });
  const allocation = Buffer.from([0, 1, 0, 0, 0, 1, 0, 1, 0x63, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
  const expected = Buffer.concat([
    Buffer.from([0, 1, 0, 10]),
    Buffer.from('http://h:1'),
    Buffer.from([0, 0, 0, 0, 0, 0, 0, 7]),
    Buffer.from([0, 0, 0, allocation.length]),
    allocation,
  ]);
  assert.deepEqual(bytes, expected);
  assert.deepEqual(decodeMetadata(bytes), { url: 'http://h:1', configOffset: 7n, allocation: { connectors: ['c'], tasks: [{ connector: 'c', task: 0 }] } });
});

test('metadata without an allocation (null bytes, and version 0 members that end after the offset)', () => {
  const withNull = encodeMetadata({ url: 'u', configOffset: -1n, allocation: null });
  assert.deepEqual(decodeMetadata(withNull), { url: 'u', configOffset: -1n, allocation: null });
  const v0 = withNull.subarray(0, withNull.length - 4);
  assert.deepEqual(decodeMetadata(v0), { url: 'u', configOffset: -1n, allocation: null });
});

test('assignment round trip with assigned, revoked and a delay', () => {
  const a: ConnectAssignment = {
    error: 0,
    leader: 'worker-1',
    leaderUrl: 'http://127.0.0.1:8083',
    configOffset: 42n,
    assigned: { connectors: ['src'], tasks: [{ connector: 'src', task: 0 }, { connector: 'snk', task: 2 }] },
    revoked: { connectors: [], tasks: [{ connector: 'snk', task: 1 }] },
    delayMs: 1500,
  };
  assert.deepEqual(decodeAssignment(encodeAssignment(a)), a);
});

test('truncated messages are rejected', () => {
  const bytes = encodeAssignment({ error: 0, leader: 'l', leaderUrl: 'u', configOffset: 1n, assigned: { connectors: ['x'], tasks: [] }, revoked: { connectors: [], tasks: [] }, delayMs: 0 });
  for (let n = 0; n < bytes.length; n++) assert.throws(() => decodeAssignment(bytes.subarray(0, n)), RangeError, `length ${n}`);
});

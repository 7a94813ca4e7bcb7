/**
 * The quorum transport's peer-loss signal (src/controller/quorum/transport.ts
 * `onPeerUnreachable`, fed to RaftNode.leaderUnreachable): a refused connect
 * and a connection the peer resets are reported; nothing is reported after
 * close(). Real sockets on 127.0.0.1 (ephemeral ports); every wait is bounded.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { KafkaRaftTransport } from '../../../../src/controller/quorum/transport.js';
import type { NodeId, Outbound } from '../../../../src/controller/raft/index.js';
import { systemClock } from '../../../../src/util/clock.js';
import { freePort } from '../../../helpers/broker-process.js';

const WAIT_MS = 5_000;

const fetchTo = (to: NodeId): Outbound => ({ to, message: { type: 'fetch', from: 1, epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 } });

function transportTo(port: number, reported: NodeId[]): KafkaRaftTransport {
  return new KafkaRaftTransport({
    self: 1,
    voters: [
      { id: 1, host: '127.0.0.1', port: 1 },
      { id: 2, host: '127.0.0.1', port },
    ],
    clusterId: null,
    clock: systemClock,
    deliver: () => undefined,
    requestTimeoutMs: 2_000,
    reconnectBackoffMs: 1,
    snapshotChunkBytesMax: 1024,
    onPeerUnreachable: (id) => reported.push(id),
  });
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('raft transport: peer unreachable', () => {
  it('a refused connection is reported for that voter', async () => {
    const port = await freePort(); // nothing listens there
    const reported: NodeId[] = [];
    const t = transportTo(port, reported);
    try {
      t.send(fetchTo(2));
      await until(() => reported.length > 0);
      assert.deepEqual([...new Set(reported)], [2]);
    } finally {
      await t.close();
    }
  });

  it('a connection the peer resets is reported; after close() nothing is', async () => {
    const sockets = new Set<Socket>();
    // Accepts, then resets every connection as soon as a request arrives (a process killed mid-request).
    const server: Server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.once('data', () => s.resetAndDestroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    const reported: NodeId[] = [];
    const t = transportTo(address.port, reported);
    try {
      t.send(fetchTo(2));
      await until(() => reported.length > 0);
      assert.deepEqual([...new Set(reported)], [2]);
      await t.close();
      const count = reported.length;
      t.send(fetchTo(2));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(reported.length, count, 'a closed transport reports nothing');
    } finally {
      await t.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

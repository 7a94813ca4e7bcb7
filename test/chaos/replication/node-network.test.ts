/**
 * The partitionable network (test/helpers/node-network.ts) in front of two
 * stand-in nodes: TCP servers that answer every Kafka request frame with a
 * frame naming the node and the request's client id. Checks who may talk to
 * whom while a node is partitioned, in both modes, and after the heal.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ClusterNetwork, firstClientId, nodeOwningSocket, sourceNodeOf } from '../../helpers/node-network.js';
import { RawConnection, requestFrame } from '../../helpers/raw-kafka.js';

/** Answers each request frame with a frame whose body is `node <id> <clientId>`. */
async function standInNode(id: number): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
        const frame = buffered.subarray(0, 4 + buffered.readInt32BE(0));
        buffered = buffered.subarray(frame.length);
        const body = Buffer.from(`node ${id} ${String(firstClientId(frame))}`);
        const size = Buffer.alloc(4);
        size.writeInt32BE(body.length);
        socket.write(Buffer.concat([size, body]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

const ping = (clientId: string | null): Buffer => requestFrame(18, 3, 1, Buffer.alloc(0), { clientId });

async function ask(conn: RawConnection, clientId: string | null, timeoutMs = 1_000): Promise<string> {
  await conn.write(ping(clientId));
  const r = await conn.next(timeoutMs);
  return r.kind === 'frame' ? r.frame.toString() : r.kind;
}

/** A fresh connection through `port`, one request: the answer, 'closed' or 'timeout'. */
async function askOnce(port: number, clientId: string | null, timeoutMs = 1_000): Promise<string> {
  const conn = await RawConnection.connect(port);
  try {
    return await ask(conn, clientId, timeoutMs);
  } finally {
    conn.close();
  }
}

let nodes: Awaited<ReturnType<typeof standInNode>>[];
let network: ClusterNetwork;

before(async () => {
  nodes = [await standInNode(1), await standInNode(2), await standInNode(11), await standInNode(12)];
  network = await ClusterNetwork.create([{ id: 1, controller: true }, { id: 2, controller: true }]);
  network.target(1, nodes[0]!.port, nodes[2]!.port);
  network.target(2, nodes[1]!.port, nodes[3]!.port);
});

after(async () => {
  await network.close();
  for (const n of nodes) {
    for (const s of n.sockets) s.destroy();
    await new Promise<void>((resolve) => n.server.close(() => resolve()));
  }
});

test('client ids: inter-node ones name their node, anything else is a client', () => {
  assert.equal(sourceNodeOf('raft-3'), 3);
  assert.equal(sourceNodeOf('tributary-node-12'), 12);
  assert.equal(sourceNodeOf('tributary-node-2-fetcher-3'), 2);
  assert.equal(sourceNodeOf('broker-3-replica-fetcher'), 3);
  assert.equal(sourceNodeOf('raft-3x'), 3);
  assert.equal(sourceNodeOf('rdkafka'), null);
  assert.equal(sourceNodeOf('myraft-3'), null);
  assert.equal(sourceNodeOf(null), null);
  const frame = ping('raft-7');
  assert.equal(firstClientId(frame), 'raft-7');
  assert.equal(firstClientId(frame.subarray(0, 15)), undefined, 'needs the whole client id');
  assert.equal(firstClientId(ping(null)), null);
  assert.equal(firstClientId(requestFrame(7, 0, 1, Buffer.alloc(0))), null, 'ControlledShutdown v0 has header v0');
});

test('healthy: every proxy forwards to its own node, broker and controller listeners apart', async () => {
  assert.equal(await askOnce(network.brokerPort(1), 'kcat'), 'node 1 kcat');
  assert.equal(await askOnce(network.brokerPort(2), 'raft-1'), 'node 2 raft-1');
  assert.equal(await askOnce(network.controllerPort(1), 'raft-2'), 'node 11 raft-2');
  assert.equal(await askOnce(network.controllerPort(2), 'tributary-node-1'), 'node 12 tributary-node-1');
});

test('refuse: node 2 loses its links to node 1 and clients, keeps its own; heal restores them', async () => {
  const raft2to1 = await RawConnection.connect(network.controllerPort(1));
  const client2 = await RawConnection.connect(network.brokerPort(2));
  const client1 = await RawConnection.connect(network.brokerPort(1));
  assert.equal(await ask(raft2to1, 'raft-2'), 'node 11 raft-2');
  assert.equal(await ask(client2, 'app'), 'node 2 app');
  assert.equal(await ask(client1, 'app'), 'node 1 app');
  const resetBefore = network.stats.reset;

  network.partition(2, 'refuse');
  assert.deepEqual(network.partitioned, [2]);
  assert.equal(await raft2to1.waitClosed(2_000), true, 'the open link from node 2 is reset');
  assert.equal(await client2.waitClosed(2_000), true, 'the open client link into node 2 is reset');
  assert.equal(await ask(client1, 'app'), 'node 1 app', 'a client of node 1 is not affected');
  assert.equal(await askOnce(network.brokerPort(1), 'tributary-node-2'), 'closed', 'node 2 cannot reach node 1');
  assert.equal(await askOnce(network.controllerPort(2), 'raft-1'), 'closed', 'node 1 cannot reach node 2');
  assert.equal(await askOnce(network.brokerPort(2), 'app'), 'closed', 'clients cannot reach node 2');
  assert.equal(await askOnce(network.controllerPort(2), 'tributary-node-2'), 'node 12 tributary-node-2', 'node 2 reaches itself');
  assert.ok(network.stats.reset >= resetBefore + 5);

  network.heal();
  assert.deepEqual(network.partitioned, []);
  assert.equal(await askOnce(network.brokerPort(1), 'tributary-node-2'), 'node 1 tributary-node-2');
  assert.equal(await askOnce(network.brokerPort(2), 'app'), 'node 2 app');
  client1.close();
});

test('blackhole: links across the cut stay open and answer nothing; the heal resets them', async () => {
  const raft1to2 = await RawConnection.connect(network.controllerPort(2));
  assert.equal(await ask(raft1to2, 'raft-1'), 'node 12 raft-1');
  network.partition(2);
  assert.equal(await ask(raft1to2, 'raft-1', 500), 'timeout', 'an open link goes silent');
  assert.equal(raft1to2.isClosed, false);
  const fresh = await RawConnection.connect(network.brokerPort(2));
  assert.equal(await ask(fresh, 'app', 500), 'timeout', 'a new client link is accepted and goes nowhere');
  assert.equal(await askOnce(network.brokerPort(1), 'raft-2', 500), 'timeout', 'node 2 cannot reach node 1');
  assert.equal(await askOnce(network.brokerPort(1), 'app'), 'node 1 app');
  assert.equal(await askOnce(network.brokerPort(2), 'raft-2'), 'node 2 raft-2', 'node 2 reaches itself');

  network.heal(2);
  assert.equal(await raft1to2.waitClosed(2_000), true, 'blackholed links are reset at the heal');
  assert.equal(await fresh.waitClosed(2_000), true);
  assert.equal(await askOnce(network.controllerPort(2), 'raft-1'), 'node 12 raft-1');
  assert.ok(network.stats.blackholed >= 3);
});

test('/proc: the process that owns a connecting socket is found', async () => {
  const conn = await RawConnection.connect(nodes[0]!.port);
  try {
    const from = conn.socket.localPort!;
    assert.equal(nodeOwningSocket(from, nodes[0]!.port, new Map([[process.pid, 7]])), 7);
    assert.equal(nodeOwningSocket(from, nodes[0]!.port, new Map([[process.ppid, 7]])), null, 'another process does not own it');
    assert.equal(nodeOwningSocket(from, nodes[1]!.port, new Map([[process.pid, 7]])), null, 'no such connection');
  } finally {
    conn.close();
  }
});

test('a node process is cut off even when its client id does not name it', async () => {
  // This test process stands for node 2's process: its connections are node 2's, whatever client id they send.
  network.nodePids = () => new Map([[process.pid, 2]]);
  try {
    const unnamedBefore = network.stats.unnamedFromNodes;
    assert.equal(await askOnce(network.brokerPort(1), 'fetcher'), 'node 1 fetcher');
    assert.equal(network.stats.unnamedFromNodes, unnamedBefore + 1);
    network.partition(2, 'refuse');
    assert.equal(await askOnce(network.brokerPort(1), 'fetcher'), 'closed', 'node 2 cannot reach node 1');
    assert.equal(await askOnce(network.brokerPort(2), 'fetcher'), 'node 2 fetcher', 'node 2 reaches itself');
  } finally {
    network.heal();
    network.nodePids = () => new Map();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import type { BrokerRegistration } from '../../../../src/controller/metadata/image.js';
import { deadBrokers, tcpDial, type Dial, type DialOutcome } from '../../../../src/broker/lifecycle/takeover-probe.js';

function broker(brokerId: number, ports: number[], fenced = false): BrokerRegistration {
  return {
    brokerId,
    incarnationId: `inc-${brokerId}`,
    brokerEpoch: BigInt(brokerId * 10),
    endPoints: ports.map((port, i) => ({ name: `L${i}`, host: '127.0.0.1', port, securityProtocol: 0 })),
    rack: null,
    fenced,
    inControlledShutdown: false,
  };
}

/** A dial answering from a table of port -> outcome, recording what it was asked. */
function tableDial(outcomes: Record<number, DialOutcome>): { dial: Dial; asked: number[] } {
  const asked: number[] = [];
  return { asked, dial: async (_host, port) => (asked.push(port), outcomes[port] ?? 'inconclusive') };
}

test('a broker is dead only when every one of its listeners refuses', async () => {
  const { dial } = tableDial({ 1: 'refused', 2: 'refused', 3: 'refused', 4: 'open', 5: 'refused', 6: 'inconclusive' });
  const dead = await deadBrokers([broker(1, [1, 2]), broker(2, [3, 4]), broker(3, [5, 6]), broker(4, [])], 0, dial);
  assert.deepEqual(dead.map((b) => b.brokerId), [1]);
});

test('the controller itself and fenced brokers are not dialled', async () => {
  const { dial, asked } = tableDial({ 1: 'refused', 2: 'refused', 3: 'refused' });
  const dead = await deadBrokers([broker(1, [1]), broker(2, [2], true), broker(3, [3])], 1, dial);
  assert.deepEqual(dead.map((b) => b.brokerId), [3]);
  assert.deepEqual(asked, [3]);
});

test('tcpDial: a listening port is open, a closed one refused', async () => {
  const server: Server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const open = (server.address() as AddressInfo).port;
  assert.equal(await tcpDial('127.0.0.1', open, 2_000), 'open');
  await new Promise<void>((r) => server.close(() => r()));
  assert.equal(await tcpDial('127.0.0.1', open, 2_000), 'refused');
});

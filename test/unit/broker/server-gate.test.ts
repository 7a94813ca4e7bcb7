/**
 * SocketServer's request gate: a cluster node binds its broker listeners
 * before its metadata has caught up (it must advertise their ports), holds
 * what they accept, and serves it once caught up, so a restarted broker never
 * answers from an old image. A controller listener (not gated) serves at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { HandlerRegistry } from '../../../src/broker/handler-registry.js';
import { SocketServer } from '../../../src/broker/server.js';
import type { BrokerServices } from '../../../src/broker/services.js';
import { RequestMetrics } from '../../../src/broker/request-metrics.js';
import { apiVersionsHandler } from '../../../src/broker/handlers/18-api-versions.js';
import type { AnyHandler } from '../../../src/broker/handler.js';
import { RawConnection, apiVersionsRequest, parseApiVersionsResponse } from '../../helpers/raw-kafka.js';

function server(): SocketServer {
  const registry = new HandlerRegistry([apiVersionsHandler as AnyHandler]);
  const services = { metrics: new RequestMetrics(), apiVersions: () => registry.ranges() } as unknown as BrokerServices;
  return new SocketServer(registry, services, { requestBytesMax: 1024 * 1024, inFlightRequestsMax: 8 }, pino({ level: 'silent' }));
}

test('a gated listener holds requests until serveRequests(); an ungated one serves at once', async () => {
  const s = server();
  s.holdRequests();
  const gated = await s.listen({ name: 'BROKER', host: '127.0.0.1', port: 0 }, undefined, true);
  const open = await s.listen({ name: 'CONTROLLER', host: '127.0.0.1', port: 0 });
  const early = await RawConnection.connect(gated.port);
  const controller = await RawConnection.connect(open.port);
  try {
    await early.write(apiVersionsRequest(0, 7));
    const held = await early.next(300);
    assert.equal(held.kind, 'timeout', 'nothing is answered while requests are held');
    assert.equal(parseApiVersionsResponse(await controller.request(apiVersionsRequest(0, 8)), 0).errorCode, 0);

    s.serveRequests();
    const answered = await early.next(5_000);
    assert.equal(answered.kind, 'frame', 'the held request is answered once requests are served');
    if (answered.kind === 'frame') assert.equal(parseApiVersionsResponse(answered.frame, 0).correlationId, 7);
    const late = await RawConnection.connect(gated.port);
    try {
      assert.equal(parseApiVersionsResponse(await late.request(apiVersionsRequest(0, 9)), 0).errorCode, 0);
    } finally {
      late.close();
    }
  } finally {
    early.close();
    controller.close();
    await s.shutdown(100);
  }
});

test('a socket reset while held is dropped without an uncaught error, and shutdown closes held sockets', async () => {
  const s = server();
  s.holdRequests();
  const gated = await s.listen({ name: 'BROKER', host: '127.0.0.1', port: 0 }, undefined, true);
  const reset = await RawConnection.connect(gated.port);
  reset.socket.resetAndDestroy();
  const waiting = await RawConnection.connect(gated.port);
  await new Promise((r) => setTimeout(r, 50));
  await s.shutdown(100);
  assert.equal(await waiting.waitClosed(5_000), true, 'a held socket is closed at shutdown');
  assert.equal(s.connectionCount, 0);
});

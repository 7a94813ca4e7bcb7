/**
 * BrokerLifecycleManager against a real QuorumController (booted on a memory
 * file system, one-voter log) through the in-process transport: a broker
 * registers fenced, is unfenced by its first caught-up heartbeat, keeps its
 * session with heartbeats, re-registers when its registration is replaced,
 * and completes a controlled shutdown.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { BrokerLifecycleManager, type LifecycleState } from '../../../../src/broker/lifecycle/broker-lifecycle.js';
import { lifecycleOps } from '../../../../src/broker/lifecycle/controller-ops.js';
import { localLifecycleTransport } from '../../../../src/broker/lifecycle/transports.js';
import type { RegisterBrokerCall } from '../../../../src/broker/lifecycle/cluster-services.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { boot } from '../../controller/fixtures.js';

const logger = pino({ level: 'silent' });

function registration(brokerId: number, clusterId: string, n = 1): RegisterBrokerCall {
  return {
    brokerId,
    clusterId,
    incarnationId: Buffer.alloc(16, brokerId * 16 + n).toString('base64url'),
    endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + brokerId, securityProtocol: 0 }],
    rack: null,
  };
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('BrokerLifecycleManager', () => {
  it('registers fenced, is unfenced once caught up, and heartbeats keep it so', async () => {
    const h = await boot();
    const states: LifecycleState[] = [];
    const caughtUpIn: LifecycleState[] = [];
    const manager = new BrokerLifecycleManager({
      registration: registration(2, h.booted.clusterId),
      transport: localLifecycleTransport(lifecycleOps(h.booted)),
      metadataOffset: () => h.booted.image().lastAppliedOffset,
      heartbeatIntervalMs: 20,
      retryBackoffMs: 10,
      logger,
      onStateChange: (s) => states.push(s),
      onCaughtUp: () => caughtUpIn.push(manager.state),
    });
    try {
      manager.start();
      await within(manager.ready(), 5_000, 'unfenced');
      assert.deepEqual(states, ['fenced', 'running']);
      // The node starts serving on catch-up, before the same answer unfences it; once only.
      assert.deepEqual(caughtUpIn, ['fenced']);
      const b = h.booted.image().broker(2);
      assert.ok(b !== undefined);
      assert.equal(b.fenced, false);
      assert.equal(b.brokerEpoch, manager.brokerEpoch);
      // Sessions are timed by the controller's clock: heartbeats renew it, so tick() fences nobody.
      h.clock.advance(5_000);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(caughtUpIn.length, 1, 'later caught-up heartbeats do not call onCaughtUp again');
      assert.equal(await h.booted.controller.tick(), 0);
      assert.equal(h.booted.image().broker(2)?.fenced, false);
    } finally {
      await manager.close();
      await h.booted.close();
    }
  });

  it('a broker whose registration is replaced (new incarnation) gets STALE_BROKER_EPOCH and registers again', async () => {
    const h = await boot();
    const ops = lifecycleOps(h.booted);
    const manager = new BrokerLifecycleManager({
      registration: registration(3, h.booted.clusterId, 1),
      transport: localLifecycleTransport(ops),
      metadataOffset: () => h.booted.image().lastAppliedOffset,
      heartbeatIntervalMs: 20,
      retryBackoffMs: 10,
      logger,
    });
    try {
      manager.start();
      await within(manager.ready(), 5_000, 'unfenced');
      const first = manager.brokerEpoch;
      const other = await ops.registerBroker(registration(3, h.booted.clusterId, 2));
      assert.equal(other.errorCode, ErrorCode.NONE);
      assert.ok(other.brokerEpoch > first);
      const stale = await ops.brokerHeartbeat({ brokerId: 3, brokerEpoch: first, currentMetadataOffset: h.booted.image().lastAppliedOffset, wantFence: false, wantShutDown: false });
      assert.equal(stale.errorCode, ErrorCode.STALE_BROKER_EPOCH);
      const deadline = Date.now() + 5_000;
      while (manager.brokerEpoch <= other.brokerEpoch && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.ok(manager.brokerEpoch > other.brokerEpoch, 'the manager registered again with a newer epoch');
      await within(manager.ready(), 5_000, 'unfenced again');
    } finally {
      await manager.close();
      await h.booted.close();
    }
  });

  it('controlled shutdown: wantShutDown until the controller answers shouldShutDown', async () => {
    const h = await boot();
    const manager = new BrokerLifecycleManager({
      registration: registration(4, h.booted.clusterId),
      transport: localLifecycleTransport(lifecycleOps(h.booted)),
      metadataOffset: () => h.booted.image().lastAppliedOffset,
      heartbeatIntervalMs: 1_000,
      retryBackoffMs: 10,
      logger,
    });
    try {
      manager.start();
      await within(manager.ready(), 5_000, 'unfenced');
      assert.equal(await manager.controlledShutdown(5_000), true);
      assert.equal(manager.state, 'shut_down');
      const b = h.booted.image().broker(4);
      assert.ok(b !== undefined && (b.fenced || b.inControlledShutdown), 'the controller took the broker out of service');
    } finally {
      await manager.close();
      await h.booted.close();
    }
  });

  it('controlled shutdown gives up when no controller answers (the whole cluster is stopping)', { timeout: 20_000 }, async () => {
    const h = await boot();
    const manager = new BrokerLifecycleManager({
      registration: registration(6, h.booted.clusterId),
      transport: localLifecycleTransport(lifecycleOps(h.booted)),
      metadataOffset: () => h.booted.image().lastAppliedOffset,
      heartbeatIntervalMs: 1_000,
      retryBackoffMs: 10,
      logger,
    });
    try {
      manager.start();
      await within(manager.ready(), 5_000, 'unfenced');
      await h.booted.close(); // the controller refuses everything from now on
      assert.equal(await manager.controlledShutdown(60_000), false);
      assert.equal(manager.state, 'pending_shutdown');
    } finally {
      await manager.close();
    }
  });

  it('ready() rejects when closed before the broker is unfenced', async () => {
    const h = await boot();
    const manager = new BrokerLifecycleManager({
      registration: registration(5, h.booted.clusterId),
      transport: localLifecycleTransport(lifecycleOps(h.booted)),
      metadataOffset: () => -1n, // never caught up
      heartbeatIntervalMs: 20,
      retryBackoffMs: 10,
      logger,
    });
    manager.start();
    const ready = manager.ready();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(manager.state, 'fenced');
    await manager.close();
    await assert.rejects(ready, /closed before the broker was unfenced/);
    await h.booted.close();
  });
});

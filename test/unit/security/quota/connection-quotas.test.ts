// ConnectionQuotas (src/security/quota/connection-quotas.ts): per-IP,
// per-listener and broker-wide limits, overrides, the inter-broker
// exemption, and the IP connection_creation_rate, with a hand-driven clock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientQuotas } from '../../../../src/controller/metadata/client-quotas.js';
import { ConnectionQuotas, normalizeIp, type ConnectionLimitSettings } from '../../../../src/security/quota/connection-quotas.js';

const NONE: ConnectionLimitSettings = { maxConnections: 1e9, maxConnectionsPerListener: new Map(), maxConnectionsPerIp: 1e9, maxConnectionsPerIpOverrides: new Map(), interBrokerListener: null };

function quotasWith(limits: Partial<ConnectionLimitSettings>, store = new ClientQuotas(), clock = { now: 0 }): ConnectionQuotas {
  return new ConnectionQuotas({ limits: { ...NONE, ...limits }, lookup: (e, k) => store.value(e, k), windows: { samples: 11, windowMs: 1000 }, nowMs: () => clock.now });
}

describe('ConnectionQuotas', () => {
  it('max.connections.per.ip refuses the N+1th connection of an IP, not of another; release frees a slot', () => {
    const q = quotasWith({ maxConnectionsPerIp: 2 });
    assert.equal(q.admit('PLAINTEXT', '10.0.0.1').admitted, true);
    assert.equal(q.admit('PLAINTEXT', '::ffff:10.0.0.1').admitted, true);
    const third = q.admit('PLAINTEXT', '10.0.0.1');
    assert.equal(third.admitted, false);
    assert.equal(!third.admitted && third.reason, 'ip_limit');
    assert.equal(q.admit('PLAINTEXT', '10.0.0.2').admitted, true);
    q.release('PLAINTEXT', '10.0.0.1');
    assert.equal(q.admit('PLAINTEXT', '10.0.0.1').admitted, true);
    assert.equal(q.connectionsFrom('10.0.0.1'), 2);
  });

  it('max.connections.per.ip.overrides wins over the default', () => {
    const q = quotasWith({ maxConnectionsPerIp: 1, maxConnectionsPerIpOverrides: new Map([['10.0.0.9', 3]]) });
    for (let i = 0; i < 3; i++) assert.equal(q.admit('PLAINTEXT', '10.0.0.9').admitted, true);
    assert.equal(q.admit('PLAINTEXT', '10.0.0.9').admitted, false);
    assert.equal(q.admit('PLAINTEXT', '10.0.0.8').admitted, true);
    assert.equal(q.admit('PLAINTEXT', '10.0.0.8').admitted, false);
  });

  it('listener.name.<l>.max.connections and max.connections; the inter-broker listener is not counted broker-wide', () => {
    const q = quotasWith({ maxConnections: 2, maxConnectionsPerListener: new Map([['EXTERNAL', 1]]), interBrokerListener: 'INTERNAL' });
    assert.equal(q.admit('external', '10.0.0.1').admitted, true);
    const r = q.admit('EXTERNAL', '10.0.0.2');
    assert.equal(!r.admitted && r.reason, 'listener_limit');
    assert.equal(q.admit('CLIENT', '10.0.0.3').admitted, true);
    const full = q.admit('CLIENT', '10.0.0.4');
    assert.equal(!full.admitted && full.reason, 'broker_limit');
    assert.equal(q.admit('INTERNAL', '10.0.0.5').admitted, true, 'inter-broker connections pass max.connections');
  });

  it('connection_creation_rate of an IP: over the rate the connection is refused with a close delay and not counted', () => {
    const store = new ClientQuotas();
    store.apply({ type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'ip', entityName: '10.0.0.1' }], key: 'connection_creation_rate', value: 1, remove: false } });
    const clock = { now: 0 };
    const q = quotasWith({}, store, clock);
    // 1/s over the padded 10 s window: 10 connections fit at once, the 11th is over.
    for (let i = 0; i < 10; i++) assert.equal(q.admit('PLAINTEXT', '10.0.0.1').admitted, true, `connection ${i + 1}`);
    const over = q.admit('PLAINTEXT', '10.0.0.1');
    assert.equal(over.admitted, false);
    assert.ok(!over.admitted && over.reason === 'ip_rate' && over.closeAfterMs > 0);
    assert.equal(q.connectionsFrom('10.0.0.1'), 10);
    assert.equal(q.admit('PLAINTEXT', '10.0.0.2').admitted, true, 'other IPs have no quota');
    clock.now = 12_000;
    assert.equal(q.admit('PLAINTEXT', '10.0.0.1').admitted, true, 'the windows moved on');
  });

  it('normalizes IPv4-mapped addresses only', () => {
    assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(normalizeIp('::1'), '::1');
  });
});

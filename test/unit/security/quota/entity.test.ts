// Kafka's client quota precedence (src/security/quota/entity.ts): each of
// the eight levels wins over the ones below it, per quota key, and the
// level decides who shares the measured rate.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientQuotas, type QuotaEntityPart } from '../../../../src/controller/metadata/client-quotas.js';
import { quotaEntityPath, quotaUserOf, resolveClientQuota, resolveIpQuota } from '../../../../src/security/quota/entity.js';

type E = { user?: string | null; client?: string | null; ip?: string | null };

function store(entries: [E, string, number][]): ClientQuotas {
  const q = new ClientQuotas();
  for (const [e, key, value] of entries) {
    const entity: QuotaEntityPart[] = [];
    if (e.user !== undefined) entity.push({ entityType: 'user', entityName: e.user });
    if (e.client !== undefined) entity.push({ entityType: 'client-id', entityName: e.client });
    if (e.ip !== undefined) entity.push({ entityType: 'ip', entityName: e.ip });
    q.apply({ type: 'ClientQuotaRecord', data: { entity, key, value, remove: false } });
  }
  return q;
}

const LEVELS: [E, string][] = [
  [{ user: 'alice', client: 'app' }, '/config/users/alice/clients/app'],
  [{ user: 'alice', client: null }, '/config/users/alice/clients/<default>'],
  [{ user: 'alice' }, '/config/users/alice'],
  [{ user: null, client: 'app' }, '/config/users/<default>/clients/app'],
  [{ user: null, client: null }, '/config/users/<default>/clients/<default>'],
  [{ user: null }, '/config/users/<default>'],
  [{ client: 'app' }, '/config/clients/app'],
  [{ client: null }, '/config/clients/<default>'],
];

describe('resolveClientQuota', () => {
  it('each level wins over every level below it', () => {
    for (let i = 0; i < LEVELS.length; i++) {
      const q = store(LEVELS.slice(i).map(([e], j) => [e, 'producer_byte_rate', 1000 + i + j] as [E, string, number]));
      const r = resolveClientQuota((e, k) => q.value(e, k), 'producer_byte_rate', 'alice', 'app');
      assert.equal(r?.path, LEVELS[i]?.[1], `level ${i + 1}`);
      assert.equal(r?.bound, 1000 + i);
    }
  });

  it('keys resolve independently; other users and clients fall through to defaults', () => {
    const q = store([
      [{ user: 'alice' }, 'producer_byte_rate', 100],
      [{ client: null }, 'consumer_byte_rate', 200],
      [{ user: null }, 'producer_byte_rate', 300],
    ]);
    const lookup = (e: readonly QuotaEntityPart[], k: string): number | undefined => q.value(e, k);
    assert.equal(resolveClientQuota(lookup, 'producer_byte_rate', 'alice', 'x')?.bound, 100);
    assert.equal(resolveClientQuota(lookup, 'consumer_byte_rate', 'alice', 'x')?.path, '/config/clients/<default>');
    assert.equal(resolveClientQuota(lookup, 'producer_byte_rate', 'bob', 'x')?.path, '/config/users/<default>');
    assert.equal(resolveClientQuota(lookup, 'request_percentage', 'bob', 'x'), undefined);
  });

  it('the level decides who shares the sensor', () => {
    const q = store([[{ user: 'alice' }, 'producer_byte_rate', 1], [{ client: null }, 'consumer_byte_rate', 1], [{ user: null, client: null }, 'request_percentage', 1]]);
    const lookup = (e: readonly QuotaEntityPart[], k: string): number | undefined => q.value(e, k);
    assert.equal(resolveClientQuota(lookup, 'producer_byte_rate', 'alice', 'a')?.sensorKey, resolveClientQuota(lookup, 'producer_byte_rate', 'alice', 'b')?.sensorKey, 'user level: shared by all client ids');
    assert.notEqual(resolveClientQuota(lookup, 'consumer_byte_rate', 'alice', 'a')?.sensorKey, resolveClientQuota(lookup, 'consumer_byte_rate', 'alice', 'b')?.sensorKey, 'default client id: one rate per client id');
    assert.equal(resolveClientQuota(lookup, 'consumer_byte_rate', 'alice', 'a')?.sensorKey, resolveClientQuota(lookup, 'consumer_byte_rate', 'bob', 'a')?.sensorKey, 'client level: shared by users');
    assert.notEqual(resolveClientQuota(lookup, 'request_percentage', 'alice', 'a')?.sensorKey, resolveClientQuota(lookup, 'request_percentage', 'bob', 'a')?.sensorKey, 'user+client defaults: per pair');
  });

  it('an IP has its own connection_creation_rate, else the default IP one', () => {
    const q = store([[{ ip: '10.0.0.1' }, 'connection_creation_rate', 5], [{ ip: null }, 'connection_creation_rate', 50]]);
    const lookup = (e: readonly QuotaEntityPart[], k: string): number | undefined => q.value(e, k);
    assert.equal(resolveIpQuota(lookup, '10.0.0.1')?.bound, 5);
    assert.equal(resolveIpQuota(lookup, '10.0.0.2')?.bound, 50);
    assert.equal(resolveIpQuota(lookup, '10.0.0.2')?.path, '/config/ips/<default>');
  });

  it('principal names and paths', () => {
    assert.equal(quotaUserOf('User:alice'), 'alice');
    assert.equal(quotaUserOf('User:ANONYMOUS'), 'ANONYMOUS');
    assert.equal(quotaEntityPath([{ entityType: 'client-id', entityName: 'c' }, { entityType: 'user', entityName: null }]), '/config/users/<default>/clients/c');
  });
});

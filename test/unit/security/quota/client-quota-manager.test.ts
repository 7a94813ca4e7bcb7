// ClientQuotaManager (src/security/quota/client-quota-manager.ts) with a
// hand-driven clock: throttle times follow the measured rate, a quota
// change applies to the next request, unrecord takes bytes back, request
// throttles are capped at one window, and clients without a quota are
// never throttled.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientQuotas, type QuotaEntityPart } from '../../../../src/controller/metadata/client-quotas.js';
import { ClientQuotaManager } from '../../../../src/security/quota/client-quota-manager.js';

function setup(): { quotas: ClientQuotas; manager: ClientQuotaManager; clock: { now: number }; set: (entity: QuotaEntityPart[], key: string, value: number | null) => void } {
  const quotas = new ClientQuotas();
  const clock = { now: 0 };
  const manager = new ClientQuotaManager({ lookup: (e, k) => quotas.value(e, k), windows: { samples: 11, windowMs: 1000 }, nowMs: () => clock.now });
  const set = (entity: QuotaEntityPart[], key: string, value: number | null): void =>
    quotas.apply({ type: 'ClientQuotaRecord', data: { entity, key, value: value ?? 0, remove: value === null } });
  return { quotas, manager, clock, set };
}

const ALICE = [{ entityType: 'user', entityName: 'alice' }];

describe('ClientQuotaManager', () => {
  it('no quota: never throttled, nothing kept', () => {
    const { manager } = setup();
    assert.equal(manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 1e12), 0);
    assert.equal(manager.measuredRate('produce', 'alice', 'c'), undefined);
  });

  it('within the quota: 0; above it: the time that brings the rate back to the bound', () => {
    const { manager, clock, set } = setup();
    set(ALICE, 'producer_byte_rate', 1000);
    // 10 000 bytes at t=0 over the padded 10 s window is exactly 1000 B/s.
    assert.equal(manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 10_000), 0);
    clock.now = 0;
    // 5 000 more: 1500 B/s -> (1500 - 1000) / 1000 x 10 s = 5 s.
    assert.equal(manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 5_000), 5_000);
    manager.noteThrottle('produce', 5_000);
    assert.deepEqual(manager.throttleStats().get('produce'), { throttled: 1, throttleMsTotal: 5_000 });
  });

  it('a quota changed in the metadata applies to the next request', () => {
    const { manager, set } = setup();
    set(ALICE, 'producer_byte_rate', 1000);
    assert.ok(manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 20_000) > 0);
    set(ALICE, 'producer_byte_rate', 1_000_000);
    assert.equal(manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 1), 0);
    set(ALICE, 'producer_byte_rate', null);
    assert.equal(manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 1e9), 0);
  });

  it('unrecord takes bytes back (a throttled fetch sent nothing)', () => {
    const { manager, set } = setup();
    set(ALICE, 'consumer_byte_rate', 1000);
    const ms = manager.recordAndGetThrottleTimeMs('fetch', 'alice', 'c', 30_000);
    assert.ok(ms > 0);
    manager.unrecord('fetch', 'alice', 'c', 30_000);
    assert.equal(manager.measuredRate('fetch', 'alice', 'c'), 0);
  });

  it('request_percentage throttles are capped at one window (Kafka ClientRequestQuotaManager)', () => {
    const { manager, set } = setup();
    set(ALICE, 'request_percentage', 1);
    // 100 % of a thread for 10 s against 1 %: far over, but capped at 1 s.
    assert.equal(manager.recordAndGetThrottleTimeMs('request', 'alice', 'c', 1000), 1000);
  });

  it('the throttle of a steady over-quota producer keeps its average at the quota', () => {
    const { manager, clock, set } = setup();
    set(ALICE, 'producer_byte_rate', 100_000);
    let sent = 0;
    let blockedUntil = 0;
    // A client that sends 50 KB whenever it is not muted, for 60 s of simulated time.
    for (clock.now = 0; clock.now < 60_000; clock.now += 10) {
      if (clock.now < blockedUntil) continue;
      sent += 50_000;
      blockedUntil = clock.now + manager.recordAndGetThrottleTimeMs('produce', 'alice', 'c', 50_000);
    }
    const average = sent / 60;
    // The first 10 s window allows a burst of 10 s worth (Kafka's padding), so the average tends to the quota from above.
    assert.ok(average > 100_000 && average < 125_000, `average ${average} B/s`);
  });
});

// SampledRate and throttleTimeMs (src/security/quota/rate.ts) against
// Kafka's Rate/SampledStat arithmetic, with time driven by hand.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SampledRate, throttleTimeMs } from '../../../../src/security/quota/rate.js';

const KAFKA = { samples: 11, windowMs: 1000 };

describe('SampledRate', () => {
  it('a new sensor is measured over at least samples-1 windows (no burst credit for the first millisecond)', () => {
    const r = new SampledRate(KAFKA);
    r.record(1000, 0);
    assert.equal(r.windowSizeMs(0), 10_000);
    assert.equal(r.measure(0), 100);
    assert.equal(r.windowSizeMs(500), 10_500, 'elapsed part of the first window is added');
  });

  it('after the padding, the window is the time since the oldest sample started', () => {
    const r = new SampledRate(KAFKA);
    for (let t = 0; t <= 10_500; t += 100) r.record(100, t);
    // Windows start at 0, 1000, ..., 10000: 11 of them, the oldest at 0.
    assert.equal(r.windowSizeMs(10_500), 10_500);
    assert.ok(Math.abs(r.measure(10_500) - 1000) < 10, `steady 1000 units/s measured as ${r.measure(10_500)}`);
  });

  it('windows older than samples x window are forgotten', () => {
    const r = new SampledRate(KAFKA);
    r.record(50_000, 0);
    assert.equal(r.measure(5_000), 50_000 / 10.0 / 1, 'still within the 11 windows (padded to 10 s)');
    assert.equal(r.measure(11_000), 0, 'the only window expired');
  });

  it('slots are reused round-robin once all windows exist', () => {
    const r = new SampledRate({ samples: 2, windowMs: 1000 });
    r.record(10, 0);
    r.record(20, 1000);
    r.record(30, 2000); // reuses the slot of t=0
    assert.equal(r.measure(2000), (20 + 30) / 1.0 / 1, 'oldest window starts at 1000: elapsed 1 s');
  });

  it('negative values take a recording back (fetch unrecord)', () => {
    const r = new SampledRate(KAFKA);
    r.record(500, 0);
    r.record(-500, 1);
    assert.equal(r.measure(2), 0);
  });
});

describe('throttleTimeMs', () => {
  it('is 0 within the quota and (rate - bound) / bound x window above it', () => {
    assert.equal(throttleTimeMs(100, 100, 10_000), 0);
    assert.equal(throttleTimeMs(150, 100, 10_000), 5_000);
    assert.equal(throttleTimeMs(300, 100, 10_500), 21_000);
  });

  it('is capped when asked (request quotas: one window)', () => {
    assert.equal(throttleTimeMs(300, 100, 10_000, 1000), 1000);
  });

  it('a producer sending at twice its quota is held back about as long as it sent', () => {
    // 2 MB in the first 10 s window against 100 KB/s: rate 200 KB/s, throttle 10 s.
    const r = new SampledRate(KAFKA);
    for (let t = 0; t < 10_000; t += 100) r.record(20_480, t);
    const now = 9_900;
    const ms = throttleTimeMs(r.measure(now), 102_400, r.windowSizeMs(now));
    assert.ok(ms > 9_000 && ms < 11_000, `throttle ${ms} ms`);
  });
});

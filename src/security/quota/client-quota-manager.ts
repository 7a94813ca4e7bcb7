/**
 * Client quotas as Kafka's ClientQuotaManager enforces them: for each quota
 * type, a rate sensor per group of clients that share a quota (entity.ts,
 * `sensorKey`), recorded as requests complete; a client whose measured rate
 * is above its bound gets a throttle time (rate.ts) that the broker sends
 * as throttle_time_ms and then waits out with the connection muted
 * (KIP-219).
 *
 * The quota values come from the metadata image at every call (a quota
 * changed with AlterClientQuotas applies to the next request). Sensors of
 * clients without a quota are not kept. Idle sensors are dropped after
 * SENSOR_IDLE_EXPIRY_MS (Kafka: one hour) and there are at most SENSORS_MAX.
 */
import { resolveClientQuota, type QuotaLookup, type ResolvedQuota } from './entity.js';
import { SampledRate, throttleTimeMs, type RateConfig } from './rate.js';

export const QUOTA_TYPES = ['produce', 'fetch', 'request', 'controller_mutation'] as const;
export type QuotaType = (typeof QUOTA_TYPES)[number];

/** The quota key (KIP-546) of each quota type. */
export const QUOTA_KEY_OF: Readonly<Record<QuotaType, string>> = {
  produce: 'producer_byte_rate',
  fetch: 'consumer_byte_rate',
  request: 'request_percentage',
  controller_mutation: 'controller_mutation_rate',
};

export const SENSOR_IDLE_EXPIRY_MS = 60 * 60 * 1000;
export const SENSORS_MAX = 10_000;

/** quota.window.num and quota.window.size.seconds (Kafka's defaults: 11 x 1 s). */
export const DEFAULT_QUOTA_WINDOWS: RateConfig = { samples: 11, windowMs: 1000 };

export interface ThrottleStats {
  /** Requests answered with a throttle time > 0. */
  throttled: number;
  /** Sum of those throttle times. */
  throttleMsTotal: number;
}

export interface ClientQuotaManagerOptions {
  readonly lookup: QuotaLookup;
  readonly windows: RateConfig;
  /** Monotonic ms. */
  readonly nowMs: () => number;
  /** False when no client quota exists at all: requests then skip the eight-level lookup (the common case costs nothing). */
  readonly anyQuota?: () => boolean;
}

export class ClientQuotaManager {
  private readonly sensors = new Map<string, SampledRate>();
  private readonly stats = new Map<QuotaType, ThrottleStats>(QUOTA_TYPES.map((t) => [t, { throttled: 0, throttleMsTotal: 0 }]));
  private lastPurgeMs = 0;

  constructor(private readonly opts: ClientQuotaManagerOptions) {}

  /** The quota of this type that applies to (user, clientId), if any. */
  quotaOf(type: QuotaType, user: string, clientId: string): ResolvedQuota | undefined {
    if (this.opts.anyQuota?.() === false) return undefined;
    return resolveClientQuota(this.opts.lookup, QUOTA_KEY_OF[type], user, clientId);
  }

  /**
   * Adds `value` (bytes, request-time percent, partition mutations) to the
   * client's sensor and returns how long to throttle it: 0 without a quota
   * or within it. Request-time throttles are capped at one window, as Kafka's
   * ClientRequestQuotaManager does.
   */
  recordAndGetThrottleTimeMs(type: QuotaType, user: string, clientId: string, value: number): number {
    const quota = this.quotaOf(type, user, clientId);
    if (quota === undefined) return 0;
    const now = this.opts.nowMs();
    const sensor = this.sensor(type, quota.sensorKey, now);
    sensor.record(value, now);
    const maxMs = type === 'request' ? this.opts.windows.windowMs : Number.POSITIVE_INFINITY;
    return throttleTimeMs(sensor.measure(now), quota.bound, sensor.windowSizeMs(now), maxMs);
  }

  /** Takes back a recorded value (a throttled fetch answers empty, so its bytes did not go out; Kafka's unrecordQuotaSensor). */
  unrecord(type: QuotaType, user: string, clientId: string, value: number): void {
    const quota = this.quotaOf(type, user, clientId);
    if (quota === undefined) return;
    const now = this.opts.nowMs();
    this.sensor(type, quota.sensorKey, now).record(-value, now);
  }

  /** The measured rate of the client's quota group, or undefined when no quota applies or nothing was recorded yet. */
  measuredRate(type: QuotaType, user: string, clientId: string): number | undefined {
    const quota = this.quotaOf(type, user, clientId);
    if (quota === undefined) return undefined;
    return this.sensors.get(`${type}\u0002${quota.sensorKey}`)?.measure(this.opts.nowMs());
  }

  /** Counts a throttle the broker applied (metrics). */
  noteThrottle(type: QuotaType, ms: number): void {
    if (ms <= 0) return;
    const s = this.stats.get(type) as ThrottleStats;
    s.throttled++;
    s.throttleMsTotal += ms;
  }

  throttleStats(): ReadonlyMap<QuotaType, Readonly<ThrottleStats>> {
    return this.stats;
  }

  private sensor(type: QuotaType, sensorKey: string, now: number): SampledRate {
    const key = `${type}\u0002${sensorKey}`;
    let sensor = this.sensors.get(key);
    if (sensor === undefined) {
      this.purgeIdle(now);
      sensor = new SampledRate(this.opts.windows);
      this.sensors.set(key, sensor);
    }
    return sensor;
  }

  /** Drops idle sensors (at most once a window), and the least recently used ones beyond SENSORS_MAX. */
  private purgeIdle(now: number): void {
    if (now - this.lastPurgeMs < this.opts.windows.windowMs && this.sensors.size < SENSORS_MAX) return;
    this.lastPurgeMs = now;
    for (const [key, s] of this.sensors) if (now - s.lastRecordMs > SENSOR_IDLE_EXPIRY_MS) this.sensors.delete(key);
    while (this.sensors.size >= SENSORS_MAX) {
      let oldestKey: string | undefined;
      let oldestMs = Number.POSITIVE_INFINITY;
      for (const [key, s] of this.sensors) {
        if (s.lastRecordMs < oldestMs) {
          oldestMs = s.lastRecordMs;
          oldestKey = key;
        }
      }
      this.sensors.delete(oldestKey as string);
    }
  }
}

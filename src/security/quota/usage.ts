/**
 * What each principal uses, quota or not: produce and fetch bytes per
 * second and request time (percent of one thread), measured with the same
 * windows as the quotas (rate.ts). This is the "current usage" of
 * `tributary tenant describe` (docs/security.md, "Tenants"); the broker
 * exports it on its metrics endpoint per user.
 *
 * Kafka keeps no such per-principal view outside its per-quota sensors; it
 * is ours. Bounded: at most USERS_TRACKED_MAX principals, the least recently
 * active dropped first, and a principal idle for USAGE_IDLE_EXPIRY_MS
 * forgotten.
 */
import { SampledRate, type RateConfig } from './rate.js';

export const USERS_TRACKED_MAX = 1000;
export const USAGE_IDLE_EXPIRY_MS = 10 * 60 * 1000;

export type UsageKind = 'produce' | 'fetch' | 'request';

export interface PrincipalUsage {
  readonly principal: string;
  readonly produceBytesPerSec: number;
  readonly fetchBytesPerSec: number;
  /** Handler time, percent of one thread (request_percentage's unit). */
  readonly requestTimePercent: number;
}

interface Entry {
  readonly rates: Record<UsageKind, SampledRate>;
  lastMs: number;
}

export class UsageTracker {
  private readonly byPrincipal = new Map<string, Entry>();
  /** The principal recorded last: already at the end of byPrincipal, so recording it again moves nothing (one client is the common case). */
  private lastPrincipal: string | null = null;

  constructor(
    private readonly windows: RateConfig,
    private readonly nowMs: () => number,
  ) {}

  record(principal: string, kind: UsageKind, value: number): void {
    const now = this.nowMs();
    let entry = this.byPrincipal.get(principal);
    if (entry === undefined) {
      this.evict(now);
      entry = { rates: { produce: new SampledRate(this.windows), fetch: new SampledRate(this.windows), request: new SampledRate(this.windows) }, lastMs: now };
      this.byPrincipal.set(principal, entry);
    } else if (principal !== this.lastPrincipal) {
      // Most recently active last, so the first entry is the one to evict.
      this.byPrincipal.delete(principal);
      this.byPrincipal.set(principal, entry);
    }
    this.lastPrincipal = principal;
    entry.rates[kind].record(value, now);
    entry.lastMs = now;
  }

  usageOf(principal: string): PrincipalUsage | undefined {
    const entry = this.byPrincipal.get(principal);
    if (entry === undefined) return undefined;
    const now = this.nowMs();
    return {
      principal,
      produceBytesPerSec: entry.rates.produce.measure(now),
      fetchBytesPerSec: entry.rates.fetch.measure(now),
      requestTimePercent: entry.rates.request.measure(now),
    };
  }

  /** Every tracked principal's usage (metrics scrape). */
  all(): PrincipalUsage[] {
    this.evict(this.nowMs());
    return [...this.byPrincipal.keys()].map((p) => this.usageOf(p) as PrincipalUsage);
  }

  private evict(now: number): void {
    for (const [p, e] of this.byPrincipal) if (now - e.lastMs > USAGE_IDLE_EXPIRY_MS) this.byPrincipal.delete(p);
    while (this.byPrincipal.size >= USERS_TRACKED_MAX) {
      const first = this.byPrincipal.keys().next();
      if (first.done === true) break;
      this.byPrincipal.delete(first.value);
    }
  }
}

/**
 * Connection limits checked when a listener accepts a connection (Kafka's
 * ConnectionQuotas), in Kafka's order:
 *
 * 1. `listener.name.<l>.max.connections`, then the broker-wide
 *    `max.connections` (every listener but the inter-broker one, which
 *    Kafka also lets past it so replication never starves).
 * 2. `connection_creation_rate` of the client's IP (an `ip` quota entity,
 *    KIP-612): over the rate, the connection is not counted and is closed
 *    after the throttle time (Kafka delays the close the same way, so a
 *    client retrying in a loop is slowed down).
 * 3. `max.connections.per.ip`, or the IP's entry in
 *    `max.connections.per.ip.overrides`.
 *
 * A refused connection is closed at once (case 1 and 3; Kafka stops
 * accepting in case 1 instead, which in one event loop would stall every
 * listener). Counts go down in `release` when an admitted connection closes.
 */
import { resolveIpQuota, type QuotaLookup } from './entity.js';
import { SampledRate, throttleTimeMs, type RateConfig } from './rate.js';

export interface ConnectionLimitSettings {
  /** max.connections (broker-wide). */
  readonly maxConnections: number;
  /** listener.name.<l>.max.connections, by listener name in upper case. */
  readonly maxConnectionsPerListener: ReadonlyMap<string, number>;
  readonly maxConnectionsPerIp: number;
  readonly maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  /** Not counted against max.connections (inter.broker.listener.name). */
  readonly interBrokerListener: string | null;
}

export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly reason: 'listener_limit' | 'broker_limit' | 'ip_limit'; readonly message: string }
  | { readonly admitted: false; readonly reason: 'ip_rate'; readonly message: string; readonly closeAfterMs: number };

export interface ConnectionQuotasOptions {
  readonly limits: ConnectionLimitSettings;
  /** connection_creation_rate of ip entities, from the metadata image. */
  readonly lookup: QuotaLookup;
  readonly windows: RateConfig;
  readonly nowMs: () => number;
}

/** Most IPs whose connection rate is tracked at once; the idlest are dropped beyond. */
export const IP_RATE_SENSORS_MAX = 10_000;

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) is 127.0.0.1, as the limits are written. */
export function normalizeIp(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class ConnectionQuotas {
  private readonly perIp = new Map<string, number>();
  private readonly perListener = new Map<string, number>();
  private brokerWide = 0;
  private readonly ipRates = new Map<string, SampledRate>();

  constructor(private readonly opts: ConnectionQuotasOptions) {}

  /** Decides on a new connection; when admitted it is counted until `release`. */
  admit(listener: string, address: string): Admission {
    const ip = normalizeIp(address);
    const name = listener.toUpperCase();
    const limits = this.opts.limits;
    const listenerMax = limits.maxConnectionsPerListener.get(name);
    const onListener = this.perListener.get(name) ?? 0;
    if (listenerMax !== undefined && onListener >= listenerMax) {
      return { admitted: false, reason: 'listener_limit', message: `listener ${listener} already has the configured maximum of ${listenerMax} connections (listener.name.${listener.toLowerCase()}.max.connections)` };
    }
    const counted = name !== limits.interBrokerListener?.toUpperCase();
    if (counted && this.brokerWide >= limits.maxConnections) {
      return { admitted: false, reason: 'broker_limit', message: `the broker already has the configured maximum of ${limits.maxConnections} connections (max.connections)` };
    }
    const throttleMs = this.recordIpConnection(ip);
    if (throttleMs > 0) {
      return { admitted: false, reason: 'ip_rate', closeAfterMs: throttleMs, message: `${ip} is over its connection_creation_rate quota; closing after ${throttleMs} ms` };
    }
    const ipMax = limits.maxConnectionsPerIpOverrides.get(ip) ?? limits.maxConnectionsPerIp;
    if ((this.perIp.get(ip) ?? 0) >= ipMax) {
      return { admitted: false, reason: 'ip_limit', message: `${ip} already has the configured maximum of ${ipMax} connections (max.connections.per.ip)` };
    }
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    this.perListener.set(name, onListener + 1);
    if (counted) this.brokerWide++;
    return { admitted: true };
  }

  /** An admitted connection closed. */
  release(listener: string, address: string): void {
    const ip = normalizeIp(address);
    const name = listener.toUpperCase();
    const n = (this.perIp.get(ip) ?? 0) - 1;
    if (n <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, n);
    this.perListener.set(name, Math.max(0, (this.perListener.get(name) ?? 0) - 1));
    if (name !== this.opts.limits.interBrokerListener?.toUpperCase()) this.brokerWide = Math.max(0, this.brokerWide - 1);
  }

  /** Open connections from an IP (tests, metrics). */
  connectionsFrom(address: string): number {
    return this.perIp.get(normalizeIp(address)) ?? 0;
  }

  /** Records one connection for the IP's rate quota; the throttle time when over it (the connection is then taken back out). */
  private recordIpConnection(ip: string): number {
    const quota = resolveIpQuota(this.opts.lookup, ip);
    if (quota === undefined) return 0;
    const now = this.opts.nowMs();
    let sensor = this.ipRates.get(ip);
    if (sensor === undefined) {
      if (this.ipRates.size >= IP_RATE_SENSORS_MAX) this.dropIdlestRate();
      sensor = new SampledRate(this.opts.windows);
      this.ipRates.set(ip, sensor);
    }
    sensor.record(1, now);
    const ms = throttleTimeMs(sensor.measure(now), quota.bound, sensor.windowSizeMs(now));
    // Kafka unrecords a throttled connection: it was never accepted.
    if (ms > 0) sensor.record(-1, now);
    return ms;
  }

  private dropIdlestRate(): void {
    let idlest: string | undefined;
    let idlestMs = Number.POSITIVE_INFINITY;
    for (const [ip, s] of this.ipRates) {
      if (s.lastRecordMs < idlestMs) {
        idlestMs = s.lastRecordMs;
        idlest = ip;
      }
    }
    if (idlest !== undefined) this.ipRates.delete(idlest);
  }
}

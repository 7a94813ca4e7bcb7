/**
 * Client quotas on the request path (KIP-219, Kafka's KafkaApis quota
 * handling). The connection calls `begin` when a request is read and
 * `end` when its handler has answered; `end` records what the request
 * used and returns the response (with throttle_time_ms set) and how long
 * the connection stays muted after it:
 *
 * - Produce: the request's size against `producer_byte_rate`. The records
 *   are appended either way (as in Kafka); the client is slowed down.
 * - Fetch (consumers; follower and controller fetches are exempt): the
 *   record bytes of the response against `consumer_byte_rate`. When the
 *   client is over its fetch or request quota the response goes back empty
 *   (no partitions, same session id) and the bytes are taken back out of the
 *   sensor, since they were never sent (Kafka's unrecordQuotaSensor).
 * - Every request not exempt: its handler time (the synchronous part: what
 *   occupies the event loop, as Kafka counts I/O-thread time, not time spent
 *   waiting in purgatory) against `request_percentage`.
 * - CreateTopics, CreatePartitions, DeleteTopics: partitions created or
 *   deleted against `controller_mutation_rate`. Permissive (KIP-599's
 *   behaviour for old request versions, here for every version): the
 *   request runs and the client is throttled afterwards; a request over
 *   the quota is never refused with THROTTLING_QUOTA_EXCEEDED.
 *
 * The throttle of a request is the largest of its quotas' throttles; the
 * metrics count it under the quota type that set it. Usage per principal
 * (for `tributary tenant describe`) is recorded whether or not a quota
 * applies.
 */
import { ApiKey } from '../protocol/api-keys.js';
import type { RecordsValue } from '../protocol/schema.js';
import { quotaUserOf } from '../security/quota/entity.js';
import type { ClientQuotaManager, QuotaType } from '../security/quota/client-quota-manager.js';
import type { UsageTracker } from '../security/quota/usage.js';
import type { MetadataService } from './metadata-service.js';
import type { RequestContext } from './request-context.js';

/** APIs never throttled: authentication, version discovery and the nodes' own traffic (Kafka's exempt list). */
const EXEMPT_API_KEYS: ReadonlySet<number> = new Set([
  ApiKey.SaslHandshake, ApiKey.ApiVersions, ApiKey.SaslAuthenticate, ApiKey.WriteTxnMarkers,
  ApiKey.Vote, ApiKey.BeginQuorumEpoch, ApiKey.EndQuorumEpoch, ApiKey.AlterPartition, ApiKey.FetchSnapshot,
  ApiKey.BrokerRegistration, ApiKey.BrokerHeartbeat, ApiKey.AllocateProducerIds,
]);

/** Handler time is recorded as percent of one thread per second: ms x 100 / 1000 (Kafka's nanosToPercentage). */
const PERCENT_PER_MS = 0.1;

export interface QuotaTicket {
  readonly ctx: RequestContext;
  readonly user: string;
  readonly clientId: string;
  readonly requestBytes: number;
  /** Partitions the request creates or deletes (controller mutations); 0 for other APIs. */
  readonly mutations: number;
  /** A consumer fetch (not a follower's). */
  readonly consumerFetch: boolean;
}

export interface QuotaOutcome {
  readonly result: unknown;
  readonly throttleMs: number;
}

export class RequestQuotas {
  constructor(
    readonly clientQuotas: ClientQuotaManager,
    readonly usage: UsageTracker,
    private readonly metadata: MetadataService,
  ) {}

  /** Null for exempt requests; else what `end` needs. Called before the handler runs. */
  begin(ctx: RequestContext, body: unknown, requestBytes: number): QuotaTicket | null {
    if (EXEMPT_API_KEYS.has(ctx.apiKey)) return null;
    const consumerFetch = ctx.apiKey === ApiKey.Fetch && (body as { replicaId: number }).replicaId < 0;
    if (ctx.apiKey === ApiKey.Fetch && !consumerFetch) return null;
    return { ctx, user: quotaUserOf(ctx.principal), clientId: ctx.clientId ?? '', requestBytes, mutations: this.mutationsOf(ctx.apiKey, body), consumerFetch };
  }

  /** Records the request's use and returns the response to send and the mute time. */
  end(t: QuotaTicket, result: unknown, handlerMs: number): QuotaOutcome {
    const q = this.clientQuotas;
    const requestPercent = handlerMs * PERCENT_PER_MS;
    this.usage.record(t.ctx.principal, 'request', requestPercent);
    // The largest throttle wins (the first one on a tie); no arrays per request.
    const requestThrottle = q.recordAndGetThrottleTimeMs('request', t.user, t.clientId, requestPercent);
    let type: QuotaType = 'request';
    let throttleMs = requestThrottle;
    if (t.ctx.apiKey === ApiKey.Produce) {
      this.usage.record(t.ctx.principal, 'produce', t.requestBytes);
      const ms = q.recordAndGetThrottleTimeMs('produce', t.user, t.clientId, t.requestBytes);
      if (ms > throttleMs) {
        type = 'produce';
        throttleMs = ms;
      }
    }
    if (t.mutations > 0) {
      const ms = q.recordAndGetThrottleTimeMs('controller_mutation', t.user, t.clientId, t.mutations);
      if (ms > throttleMs) {
        type = 'controller_mutation';
        throttleMs = ms;
      }
    }
    let out = result;
    if (t.consumerFetch) {
      const bytes = fetchedBytes(result);
      const fetchThrottle = q.recordAndGetThrottleTimeMs('fetch', t.user, t.clientId, bytes);
      if (fetchThrottle > throttleMs) {
        type = 'fetch';
        throttleMs = fetchThrottle;
      }
      if (fetchThrottle > 0 || requestThrottle > 0) {
        q.unrecord('fetch', t.user, t.clientId, bytes);
        out = { ...(result as object), responses: [] };
      } else {
        this.usage.record(t.ctx.principal, 'fetch', bytes);
      }
    }
    if (throttleMs <= 0) return { result: out, throttleMs: 0 };
    q.noteThrottle(type, throttleMs);
    return { result: withThrottleTime(out, throttleMs), throttleMs };
  }

  /** Partitions a CreateTopics, CreatePartitions or DeleteTopics request creates or deletes (validate-only ones: none). */
  private mutationsOf(apiKey: number, body: unknown): number {
    if (apiKey === ApiKey.CreateTopics) {
      const req = body as { topics: { numPartitions: number; assignments: unknown[] }[]; validateOnly?: boolean };
      if (req.validateOnly === true) return 0;
      // -1 = the broker's num.partitions (or the manual assignment's count); counted as at least one.
      return req.topics.reduce((n, t) => n + Math.max(t.numPartitions, t.assignments.length, 1), 0);
    }
    if (apiKey === ApiKey.CreatePartitions) {
      const req = body as { topics: { name: string; count: number }[]; validateOnly: boolean };
      if (req.validateOnly) return 0;
      return req.topics.reduce((n, t) => n + Math.max(0, t.count - (this.metadata.topic(t.name)?.partitions.length ?? t.count)), 0);
    }
    if (apiKey === ApiKey.DeleteTopics) {
      const req = body as { topics?: { name: string | null; topicId: string }[]; topicNames?: string[] };
      const names = [...(req.topicNames ?? []), ...(req.topics ?? []).map((t) => t.name ?? this.metadata.topicNameById(t.topicId) ?? '')];
      return names.reduce((n, name) => n + (this.metadata.topic(name)?.partitions.length ?? 0), 0);
    }
    return 0;
  }
}

/** Record bytes in a Fetch response (what consumer_byte_rate counts). */
function fetchedBytes(result: unknown): number {
  const responses = (result as { responses?: { partitions: { records: RecordsValue }[] }[] }).responses ?? [];
  let bytes = 0;
  for (const t of responses) {
    for (const p of t.partitions) {
      const r = p.records;
      if (r === null) continue;
      bytes += Buffer.isBuffer(r) ? r.length : r.byteLength;
    }
  }
  return bytes;
}

/** The response with throttle_time_ms raised to `ms` (responses without the field, v0 ones, are left as they are). */
function withThrottleTime(result: unknown, ms: number): unknown {
  if (typeof result !== 'object' || result === null || !('throttleTimeMs' in result)) return result;
  const current = (result as { throttleTimeMs: number }).throttleTimeMs;
  return { ...result, throttleTimeMs: Math.max(current, ms) };
}

/**
 * Incremental fetch sessions (KIP-227). A fetcher that follows many
 * partitions sends them once (a full fetch with session epoch 0, which opens
 * a session), then only what changed: partitions whose fetch position moved,
 * new ones, and forgotten ones. The broker keeps the session's partitions
 * with their last fetch position and answers only the partitions that have
 * something to say: records, a new high watermark or log start, an error, a
 * diverging epoch or a preferred read replica. With thousands of partitions
 * that saves most of every request and response.
 *
 * The request's (sessionId, epoch), as Kafka's FetchMetadata:
 * - (0, -1): no session, a full fetch (what kafkajs and librdkafka send);
 * - (0, 0): a full fetch that opens a session, answered with its id;
 * - (id, -1): closes session `id`, then a full fetch without a session;
 * - (id, 0): closes session `id` and opens a new one (full fetch);
 * - (id, n > 0): incremental; n must be the session's next epoch
 *   (INVALID_FETCH_SESSION_EPOCH), and the session must exist
 *   (FETCH_SESSION_ID_NOT_FOUND: the fetcher starts over with a full fetch).
 *
 * Topic ids (Fetch v13, KIP-516): a partition whose topic id this broker
 * does not know yet (a follower or consumer may learn of a new topic before
 * this broker applies it) stays in the session, unresolved, and is answered
 * UNKNOWN_TOPIC_ID until the id resolves; from then on it is read like the
 * others (Kafka keeps such partitions the same way). Dropping it instead
 * would strand it: the fetcher, which already sent it, does not send it
 * again while its fetch position is unchanged.
 *
 * At most `max.incremental.fetch.session.cache.slots` sessions (Kafka: 1000)
 * are kept. When full, the least recently used session that has been idle
 * for 120 s (as Kafka) makes room;
 * without one, the full fetch is answered without a session (id 0), which
 * every fetcher accepts. Kafka also weighs sessions by size and favours
 * followers; we keep plain least-recently-used.
 */
import { secureRandomInt } from '../util/secure-random.js';
import type { FetchPartition } from '../replication/data-path-types.js';

export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** No session (the id fetchers send before they have one). */
export const INVALID_SESSION_ID = 0;

/** One partition of a session: where its fetcher reads, and what it was last told. */
export interface SessionPartition extends FetchPartition {
  readonly topic: string;
  readonly topicId: string;
  /** The high watermark last answered (-1: answer it next time, e.g. after an error). */
  answeredHighWatermark: bigint;
  /** The log start offset last answered. */
  answeredLogStartOffset: bigint;
}

export interface FetchSession {
  readonly id: number;
  /** The epoch the next incremental request must carry. */
  nextEpoch: number;
  /** In the order the fetcher added them, by topic and partition. */
  readonly partitions: Map<string, SessionPartition>;
  /** Partitions of topic ids not known here yet, by `unresolvedKey`: moved to `partitions` once their id resolves. */
  readonly unresolved: Map<string, UnresolvedPartition>;
  lastUsedMs: number;
}

/** A requested partition of a topic id this broker does not know (yet): its fetch position, without a name. */
export interface UnresolvedPartition extends FetchPartition {
  readonly topicId: string;
}

/** The request's partitions and forgotten partitions whose topic ids did not resolve, and how ids resolve now. */
export interface TopicIdParts {
  readonly unresolved: readonly UnresolvedPartition[];
  readonly forgotten: readonly { readonly topicId: string; readonly partition: number }[];
  nameOf(topicId: string): string | undefined;
}

const NO_IDS: TopicIdParts = { unresolved: [], forgotten: [], nameOf: () => undefined };

/** A requested partition, with its topic named (v13 ids resolved) and id. */
export interface RequestedPartition extends FetchPartition {
  readonly topic: string;
  readonly topicId: string;
}

export type FetchContext =
  /** A full fetch without a session: answer every requested partition. */
  | { readonly kind: 'sessionless' }
  /** A full fetch that opened `session`: answer every partition and remember what was said. */
  | { readonly kind: 'full'; readonly session: FetchSession }
  /** An incremental fetch: fetch every session partition, answer the ones that changed. */
  | { readonly kind: 'incremental'; readonly session: FetchSession }
  /** The session is unknown or the epoch wrong: answer this error alone. */
  | { readonly kind: 'error'; readonly errorCode: number };

/** What an answer for a partition carries, as far as the session cares. */
export interface PartitionAnswer {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly logStartOffset: bigint;
  readonly bytes: number;
  readonly divergingEpoch?: unknown;
  readonly preferredReadReplica?: number;
}

export interface FetchSessionCacheOptions {
  /** max.incremental.fetch.session.cache.slots */
  readonly maxSessions: number;
  /** Idle time after which a session may be evicted for a new one. */
  readonly evictionMs: number;
}

/** max.incremental.fetch.session.cache.slots' default (Kafka's). */
export const FETCH_SESSION_SLOTS_DEFAULT = 1000;
/** How long a session must be idle before a new one may evict it (Kafka's 120 s). */
export const FETCH_SESSION_EVICTION_MS = 120_000;

const FETCH_SESSION_ID_NOT_FOUND = 70;
const INVALID_FETCH_SESSION_EPOCH = 71;
const INT32_MAX = 2_147_483_647;

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** The key of an unresolved partition (FetchSession.unresolved): its topic id and partition. */
function unresolvedKey(topicId: string, partition: number): string {
  return `${topicId}\u0000${partition}`;
}

/** Only what the read needs of a requested partition (not, e.g., a follower's own log start). */
function fetchPosition(r: RequestedPartition): RequestedPartition {
  return {
    topic: r.topic, topicId: r.topicId, partition: r.partition, fetchOffset: r.fetchOffset, partitionMaxBytes: r.partitionMaxBytes,
    currentLeaderEpoch: r.currentLeaderEpoch, ...(r.lastFetchedEpoch === undefined ? {} : { lastFetchedEpoch: r.lastFetchedEpoch }),
  };
}

function unresolvedPosition(r: UnresolvedPartition): UnresolvedPartition {
  return {
    topicId: r.topicId, partition: r.partition, fetchOffset: r.fetchOffset, partitionMaxBytes: r.partitionMaxBytes,
    currentLeaderEpoch: r.currentLeaderEpoch, ...(r.lastFetchedEpoch === undefined ? {} : { lastFetchedEpoch: r.lastFetchedEpoch }),
  };
}

/** The epoch after `epoch`: 1 after the largest int32 (0 means "open a session"). */
function nextEpoch(epoch: number): number {
  return epoch >= INT32_MAX ? 1 : epoch + 1;
}

/** Moves the session's unresolved partitions whose topic id is known now into its partitions (answered at once: no high watermark said yet). */
function resolveIds(session: FetchSession, nameOf: (topicId: string) => string | undefined): void {
  for (const [k, u] of session.unresolved) {
    const topic = nameOf(u.topicId);
    if (topic === undefined) continue;
    session.unresolved.delete(k);
    session.partitions.set(partitionKey(topic, u.partition), { ...u, topic, answeredHighWatermark: -1n, answeredLogStartOffset: -1n });
  }
}

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();

  constructor(private readonly opts: FetchSessionCacheOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Partitions held by all sessions (Kafka's NumIncrementalFetchPartitionsCached). */
  get partitionsCached(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.partitions.size + s.unresolved.size;
    return n;
  }

  /**
   * Starts answering a Fetch: closes, opens, checks or updates a session
   * from the request's id and epoch, its partitions and its forgotten ones.
   */
  begin(
    sessionId: number,
    epoch: number,
    requested: readonly RequestedPartition[],
    forgotten: readonly { topic: string; partition: number }[],
    nowMs: number,
    ids: TopicIdParts = NO_IDS,
  ): FetchContext {
    if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
      if (sessionId !== INVALID_SESSION_ID) this.sessions.delete(sessionId);
      if (epoch === FINAL_EPOCH) return { kind: 'sessionless' };
      const session = this.open(requested, ids.unresolved, nowMs);
      return session === null ? { kind: 'sessionless' } : { kind: 'full', session };
    }
    const session = this.sessions.get(sessionId);
    if (session === undefined) return { kind: 'error', errorCode: FETCH_SESSION_ID_NOT_FOUND };
    if (epoch !== session.nextEpoch) return { kind: 'error', errorCode: INVALID_FETCH_SESSION_EPOCH };
    for (const f of forgotten) session.partitions.delete(partitionKey(f.topic, f.partition));
    for (const f of ids.forgotten) session.unresolved.delete(unresolvedKey(f.topicId, f.partition));
    for (const r of requested) {
      const k = partitionKey(r.topic, r.partition);
      const known = session.partitions.get(k);
      session.partitions.set(k, { ...fetchPosition(r), answeredHighWatermark: known?.answeredHighWatermark ?? -1n, answeredLogStartOffset: known?.answeredLogStartOffset ?? -1n });
      if (session.unresolved.size > 0) session.unresolved.delete(unresolvedKey(r.topicId, r.partition));
    }
    for (const u of ids.unresolved) session.unresolved.set(unresolvedKey(u.topicId, u.partition), unresolvedPosition(u));
    if (session.unresolved.size > 0) resolveIds(session, ids.nameOf);
    session.nextEpoch = nextEpoch(epoch);
    session.lastUsedMs = nowMs;
    return { kind: 'incremental', session };
  }

  /**
   * After the read: whether `answer` for this session partition goes in an
   * incremental response (Kafka's CachedPartition.maybeUpdateResponseData),
   * remembering what it tells the fetcher. Full fetches remember every one.
   */
  answered(p: SessionPartition, answer: PartitionAnswer): boolean {
    let mustRespond = answer.bytes > 0 || answer.divergingEpoch !== undefined || (answer.preferredReadReplica ?? -1) >= 0;
    if (answer.errorCode !== 0) {
      // Forget the high watermark: once the error is gone the partition is answered again.
      p.answeredHighWatermark = -1n;
      return true;
    }
    if (p.answeredHighWatermark !== answer.highWatermark) {
      p.answeredHighWatermark = answer.highWatermark;
      mustRespond = true;
    }
    if (p.answeredLogStartOffset !== answer.logStartOffset) {
      p.answeredLogStartOffset = answer.logStartOffset;
      mustRespond = true;
    }
    return mustRespond;
  }

  private open(requested: readonly RequestedPartition[], unresolvedRequested: readonly UnresolvedPartition[], nowMs: number): FetchSession | null {
    if (this.opts.maxSessions <= 0) return null;
    if (this.sessions.size >= this.opts.maxSessions && !this.evictOne(nowMs)) return null;
    const partitions = new Map<string, SessionPartition>();
    for (const r of requested) partitions.set(partitionKey(r.topic, r.partition), { ...fetchPosition(r), answeredHighWatermark: -1n, answeredLogStartOffset: -1n });
    const unresolved = new Map<string, UnresolvedPartition>();
    for (const u of unresolvedRequested) unresolved.set(unresolvedKey(u.topicId, u.partition), unresolvedPosition(u));
    const session: FetchSession = { id: this.newId(), nextEpoch: 1, partitions, unresolved, lastUsedMs: nowMs };
    this.sessions.set(session.id, session);
    return session;
  }

  /** Removes the least recently used session idle for the eviction time; false when none is. */
  private evictOne(nowMs: number): boolean {
    let oldest: FetchSession | null = null;
    for (const s of this.sessions.values()) if (oldest === null || s.lastUsedMs < oldest.lastUsedMs) oldest = s;
    if (oldest === null || nowMs - oldest.lastUsedMs < this.opts.evictionMs) return false;
    this.sessions.delete(oldest.id);
    return true;
  }

  /** A random positive int32 not in use (never 0: that means "no session"; random, so a session id is not guessed). */
  private newId(): number {
    let id = secureRandomInt(1, INT32_MAX);
    while (this.sessions.has(id)) id = id >= INT32_MAX - 1 ? 1 : id + 1;
    return id;
  }
}

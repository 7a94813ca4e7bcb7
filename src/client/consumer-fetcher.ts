/**
 * The Consumer's fetcher: at most one Fetch in flight per broker, covering
 * every fetchable partition that broker leads, FetchRequest v4-v12. From v7
 * on, each broker's Fetches go through a fetch session (KIP-227,
 * src/net/fetch-session-handler.ts): after the first, only partitions added
 * or moved since the last one are sent, and the broker answers only the
 * partitions with news (an omitted partition had nothing new). A session
 * error is recovered from by the next, full, Fetch at once.
 *
 * Pipelining: a response is not decoded here. Its partitions' raw record
 * data is buffered (walking the batch headers only, to learn where the next
 * fetch starts), the broker's slot is freed and the next Fetch goes out at
 * once, while the application decodes and processes what was buffered. A
 * partition is fetched again while it holds fewer than PREFETCH_FETCHES_MAX
 * fetches, so one fetch is being processed while the next is in flight or
 * ready. Paused partitions are not fetched and keep their buffer.
 *
 * Errors per partition: OFFSET_OUT_OF_RANGE resets the position with the
 * reset policy (or reports it with 'none'); stale-leadership errors
 * (NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH, ...) and lost
 * connections refresh the metadata and retry after the cluster's backoff;
 * others are reported to the consumer. Everything here is driven by events
 * (responses, pump() calls); the only waits are the error backoffs.
 *
 * Leaders (KIP-320): each partition is fetched with CurrentLeaderEpoch (v9+)
 * from the metadata. When the metadata names a newer leader epoch than the
 * one the partition was fetched under, what was fetched past the position
 * is dropped and the partition waits for position validation
 * (consumer-validate.ts) before it is fetched from the new leader.
 *
 * Follower fetching (KIP-392): `rackId` goes out in Fetch v11+. A leader that
 * answers with a PreferredReadReplica is left for that replica until
 * `metadataMaxAgeMs` passes, the replica answers with an error (an
 * out-of-range offset included: a follower may lag) or cannot be reached,
 * or the leader changes; then fetching goes back to the leader.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { FetchResponse } from '../protocol/messages/01-fetch.js';
import { batchEndAt } from '../protocol/record-batch/reader.js';
import { Offsets } from '../protocol/record-batch/header.js';
import { Apis, request } from './apis.js';
import { REFRESH_METADATA_ERRORS, type Cluster } from './cluster.js';
import { KafkaProtocolError } from '../net/errors.js';
import { fetchRequestBody, type FetchPosition } from './records.js';
import { FetchSessionHandler, isFetchSessionError, type SessionPartition } from '../net/fetch-session-handler.js';
import type { PartitionState, ResetSpec } from './consumer-state.js';
import { CONSUMER_FETCH_MAX_BYTES_DEFAULT, CONSUMER_FETCH_MAX_WAIT_MS_DEFAULT, CONSUMER_FETCH_MIN_BYTES_DEFAULT } from './consumer-types.js';
import { MAX_PARTITION_FETCH_BYTES_DEFAULT, PREFETCH_FETCHES_MAX, type ConsumerOptions } from './consumer-types.js';

export interface FetcherConfig {
  minBytes: number;
  maxWaitMs: number;
  maxBytes: number;
  partitionMaxBytes: number;
  /** 0 read_uncommitted, 1 read_committed. */
  isolationLevel: 0 | 1;
  prefetchMax: number;
  /** Sent as Fetch rackId (v11+): the broker may name a replica in this rack to fetch from (KIP-392). */
  rackId: string;
  /** How long a preferred read replica is used before asking the leader again (Java's metadata.max.age.ms). */
  preferredReplicaMaxAgeMs: number;
}

/** The fetcher's settings from the consumer's options (defaults in consumer-types.ts). */
export function fetcherConfig<K, V>(o: ConsumerOptions<K, V>, metadataMaxAgeMs: number): FetcherConfig {
  return {
    minBytes: o.fetchMinBytes ?? CONSUMER_FETCH_MIN_BYTES_DEFAULT,
    maxWaitMs: o.fetchMaxWaitMs ?? CONSUMER_FETCH_MAX_WAIT_MS_DEFAULT,
    maxBytes: o.fetchMaxBytes ?? CONSUMER_FETCH_MAX_BYTES_DEFAULT,
    partitionMaxBytes: o.maxPartitionFetchBytes ?? MAX_PARTITION_FETCH_BYTES_DEFAULT,
    isolationLevel: o.isolationLevel === 'read_committed' ? 1 : 0,
    prefetchMax: PREFETCH_FETCHES_MAX,
    rackId: o.rackId ?? '',
    preferredReplicaMaxAgeMs: metadataMaxAgeMs,
  };
}

export interface FetcherHooks<K, V> {
  /** Every state the consumer holds now. */
  states(): Iterable<PartitionState<K, V>>;
  /** Something was buffered (or a position moved): wake a waiting pull. */
  onData(): void;
  /** A partition needs an offset reset (OFFSET_OUT_OF_RANGE): the consumer runs ListOffsets. */
  onReset(state: PartitionState<K, V>, spec: ResetSpec | null, cause: KafkaProtocolError): void;
  /** An error the application must see. */
  onError(err: unknown): void;
  /** Partitions wait for position validation after a leader change (consumer-validate.ts). */
  onValidate(): void;
}

/** A partition in a Fetch request, with the epoch and offset it was sent under, and whether it went to a follower. */
interface SentPartition<K, V> {
  readonly state: PartitionState<K, V>;
  readonly epoch: number;
  readonly offset: bigint;
  readonly toFollower: boolean;
}

type FetchPartitionResponse = FetchResponse['responses'][number]['partitions'][number];

/** First Fetch version with sessions (KIP-227). */
const FETCH_SESSION_VERSION = 7;

type SessionPosition = FetchPosition & SessionPartition;

export class Fetcher<K, V> {
  private readonly inFlight = new Set<number>();
  /** One fetch session per broker fetched from. */
  private readonly sessions = new Map<number, FetchSessionHandler<SessionPosition>>();
  private refreshing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly config: FetcherConfig,
    private readonly hooks: FetcherHooks<K, V>,
  ) {}

  close(): void {
    this.closed = true;
  }

  /** Sends a Fetch to every broker that has none in flight and leads a fetchable partition. */
  pump(): void {
    if (this.closed) return;
    const byNode = new Map<number, PartitionState<K, V>[]>();
    let unknownLeader = false;
    let validate = false;
    for (const state of this.hooks.states()) {
      if (state.awaitingValidation && state.assigned) {
        // A committed position with an epoch, or a leader change: validation first. The leader
        // is still followed meanwhile: validation sends its epoch as CurrentLeaderEpoch, and a
        // stale one is answered FENCED_LEADER_EPOCH for ever.
        const leader = this.leaderOf(state.topic, state.partition);
        if (leader !== null) this.leaderChanged(state, leader);
        validate = true;
        continue;
      }
      if (!state.fetchable(this.config.prefetchMax)) continue;
      const leader = this.leaderOf(state.topic, state.partition);
      if (leader === null) {
        unknownLeader = true;
        continue;
      }
      if (this.leaderChanged(state, leader)) {
        validate = true;
        continue;
      }
      const node = this.nodeFor(state);
      if (this.inFlight.has(node)) continue;
      const list = byNode.get(node);
      if (list === undefined) byNode.set(node, [state]);
      else list.push(state);
    }
    if (unknownLeader) this.refreshMetadata();
    if (validate) this.hooks.onValidate();
    for (const [node, states] of byNode) {
      this.inFlight.add(node);
      for (const s of states) s.inFlight = true;
      void this.fetchFrom(node, states).finally(() => {
        for (const s of states) s.inFlight = false;
        this.inFlight.delete(node);
        this.pump();
      });
    }
  }

  private leaderOf(topic: string, partition: number): { id: number; epoch: number } | null {
    const t = this.cluster.metadata.topics.get(topic);
    if (t === undefined || t.errorCode !== 0) return null;
    const p = t.partitions[partition]?.partition === partition ? t.partitions[partition] : t.partitions.find((x) => x.partition === partition);
    return p === undefined || p.leaderId < 0 || !this.cluster.metadata.brokers.has(p.leaderId) ? null : { id: p.leaderId, epoch: p.leaderEpoch };
  }

  /**
   * Records the partition's leader; true when it changed (a newer epoch, or
   * another node) and the position must be validated first (KIP-320): only
   * a position whose epoch is known can be, the others just follow the leader.
   */
  private leaderChanged(state: PartitionState<K, V>, leader: { id: number; epoch: number }): boolean {
    if (state.leaderId === leader.id && state.leaderEpoch === leader.epoch) return false;
    const first = state.leaderId < 0;
    // A stale answer naming an older epoch is not a change (Cluster keeps the newer entry anyway).
    if (!first && leader.epoch >= 0 && leader.epoch < state.leaderEpoch) return false;
    state.leaderId = leader.id;
    state.leaderEpoch = leader.epoch;
    state.preferredReplica = -1;
    if (first || state.lastEpoch < 0 || state.position === null) return false;
    state.dropFetched();
    state.awaitingValidation = true;
    return true;
  }

  /** The node to fetch a partition from: its preferred read replica while that holds (KIP-392), else its leader. */
  private nodeFor(state: PartitionState<K, V>): number {
    const replica = state.preferredReplica;
    if (replica >= 0 && Date.now() < state.preferredReplicaUntilMs && this.cluster.metadata.brokers.has(replica)) return replica;
    state.preferredReplica = -1;
    return state.leaderId;
  }

  /** One metadata refresh at a time, then a backoff (a leader may still be missing), then a pump. */
  refreshMetadata(): void {
    if (this.refreshing !== null || this.closed) return;
    const topics = [...new Set([...this.hooks.states()].map((s) => s.topic))];
    this.refreshing = this.cluster
      .refreshMetadata(topics)
      .then(
        () => this.cluster.backoff(0),
        () => this.cluster.backoff(2),
      )
      .finally(() => {
        this.refreshing = null;
        this.pump();
      });
  }

  private async fetchFrom(node: number, states: PartitionState<K, V>[]): Promise<void> {
    const sent = states.map((s) => ({ state: s, epoch: s.epoch, offset: s.fetchOffset as bigint, toFollower: node !== s.leaderId }));
    const response = await this.sendFetch(node, sent);
    if (response === null) return;
    if (this.closed) return;
    if (response.errorCode !== 0) {
      this.hooks.onError(new KafkaProtocolError(response.errorCode, { api: 'Fetch' }));
      await this.cluster.backoff(3);
      return;
    }
    const { data, stale } = this.bufferResponse(response, sent);
    if (data) this.hooks.onData();
    if (stale) {
      this.refreshMetadata();
      await this.cluster.backoff(0);
    }
  }

  /** Sends one Fetch for `sent`; null when it failed (the error is handled, the backoff done) or its session must start over. */
  private async sendFetch(node: number, sent: readonly SentPartition<K, V>[]): Promise<FetchResponse | null> {
    const { maxWaitMs, partitionMaxBytes } = this.config;
    const positions: SessionPosition[] = sent.map((i) => {
      const { topic, partition, leaderEpoch } = i.state;
      return { topic, partition, offset: i.offset, currentLeaderEpoch: leaderEpoch, topicKey: topic, fetchOffset: i.offset, logStartOffset: -1n, partitionMaxBytes, lastFetchedEpoch: -1 };
    });
    let session = this.sessions.get(node);
    if (session === undefined) this.sessions.set(node, (session = new FetchSessionHandler()));
    const handler = session;
    let sessionUsed = false;
    try {
      const conn = await this.cluster.connectionTo(node);
      const { response } = await request(
        conn,
        Apis.Fetch,
        (version) => {
          if (version < FETCH_SESSION_VERSION) return fetchRequestBody(positions, this.config);
          sessionUsed = true;
          const built = handler.build(positions);
          return fetchRequestBody(built.partitions, this.config, built);
        },
        conn.requestTimeoutMs + maxWaitMs,
      );
      if (sessionUsed && !handler.handleResponse(response.errorCode, response.sessionId) && isFetchSessionError(response.errorCode)) return null;
      return response;
    } catch (err) {
      if (sessionUsed) handler.handleError();
      if (this.closed) return null;
      // A follower that cannot be reached: back to the leader.
      for (const i of sent) if (i.toFollower) i.state.preferredReplica = -1;
      if (this.cluster.isRetriable(err, true)) {
        this.refreshMetadata();
        await this.cluster.backoff(0);
      } else {
        this.hooks.onError(err);
        await this.cluster.backoff(3);
      }
      return null;
    }
  }

  /** Buffers each partition's data of a response; `data`: something was buffered, `stale`: a leader moved. */
  private bufferResponse(response: FetchResponse, sent: readonly SentPartition<K, V>[]): { data: boolean; stale: boolean } {
    const sentByKey = new Map(sent.map((i) => [i.state.key, i]));
    let stale = false;
    let data = false;
    for (const t of response.responses) {
      for (const p of t.partitions) {
        const item = sentByKey.get(`${t.topic}\u0000${p.partitionIndex}`);
        if (item === undefined) continue;
        const s = item.state;
        // Seeked, reset, revoked or waiting for validation since the request went out: the answer is for a position no longer wanted.
        if (!s.assigned || s.awaitingValidation || s.epoch !== item.epoch || s.fetchOffset !== item.offset) continue;
        if (p.errorCode === 0 && p.preferredReadReplica >= 0 && !item.toFollower) {
          // KIP-392: the leader names a replica to read from (no records come with this answer).
          s.preferredReplica = p.preferredReadReplica;
          s.preferredReplicaUntilMs = Date.now() + this.config.preferredReplicaMaxAgeMs;
        } else if (p.errorCode === 0) {
          if (this.bufferPartition(item, p)) data = true;
        } else if (item.toFollower) {
          // Any error from a follower (a lagging one answers OFFSET_OUT_OF_RANGE): fetch from the leader again.
          s.preferredReplica = -1;
        } else if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          this.hooks.onReset(s, null, new KafkaProtocolError(p.errorCode, { api: 'Fetch', topic: t.topic, partition: p.partitionIndex }));
        } else if (REFRESH_METADATA_ERRORS.has(p.errorCode) || p.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER) {
          stale = true;
        } else {
          this.hooks.onError(new KafkaProtocolError(p.errorCode, { api: 'Fetch', topic: t.topic, partition: p.partitionIndex }));
        }
      }
    }
    return { data, stale };
  }

  /** Buffers the raw records of one partition answered without error; true when something was buffered. */
  private bufferPartition(item: SentPartition<K, V>, p: FetchPartitionResponse): boolean {
    const s = item.state;
    const records = Buffer.isBuffer(p.records) ? p.records : null;
    if (records === null || records.length === 0) {
      s.highWatermark = p.highWatermark;
      return false;
    }
    let nextOffset: bigint;
    try {
      nextOffset = nextOffsetOf(records, item.offset);
    } catch (err) {
      this.hooks.onError(err);
      return false;
    }
    if (nextOffset === item.offset) return false;
    s.buffered.push({
      fetchOffset: item.offset,
      nextOffset,
      data: records,
      aborted: this.config.isolationLevel === 1 ? (p.abortedTransactions ?? []) : null,
      highWatermark: p.highWatermark,
      decoder: null,
    });
    s.fetchOffset = nextOffset;
    return true;
  }
}

/** Where the fetch after `data` starts: past its last whole batch (control batches included). */
export function nextOffsetOf(data: Buffer, fetchOffset: bigint): bigint {
  let next = fetchOffset;
  let position = 0;
  for (;;) {
    const end = batchEndAt(data, position);
    if (end < 0) return next;
    if (end - position >= Offsets.lastOffsetDelta + 4) {
      const last = data.readBigInt64BE(position) + BigInt(data.readInt32BE(position + Offsets.lastOffsetDelta));
      if (last + 1n > next) next = last + 1n;
    }
    position = end;
  }
}

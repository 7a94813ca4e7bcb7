/**
 * How a follower's fetchers reach partition leaders: Fetch v13 (topic ids,
 * KIP-516; LastFetchedEpoch and DivergingEpoch, KIP-320) with this broker's
 * id as ReplicaId, over one connection per leader broker to the endpoint it
 * registered for `inter.broker.listener.name`. A connection that fails is
 * dropped, so the next fetch reconnects (to the endpoint the metadata image
 * has then: a restarted broker may come back on another port).
 *
 * Fetch sessions (KIP-227): one FetchSessionHandler per leader, so a
 * follower of thousands of partitions sends only what changed and the leader
 * answers only partitions with news. A session error comes back to the
 * fetcher as an empty answer (it fetches again at once, with a full Fetch),
 * never as a failure that would back every partition off.
 */
import type { ConnectionSecurity } from '../net/connection-options.js';
import { BrokerConnections, type BrokerEndpointLookup } from './broker-connections.js';
import { ErrorCode } from '../protocol/errors.js';
import { FetchRequest, FetchResponse } from '../protocol/messages/01-fetch.js';
import type { RecordsValue } from '../protocol/schema.js';
import { FetchSessionHandler, isFetchSessionError, type SessionFetch, type SessionPartition } from '../net/fetch-session-handler.js';
import type { ReplicaFetchTransport } from '../replication/replica-fetcher-manager.js';
import type { ReplicaFetchPartitionResponse, ReplicaFetchRequest, ReplicaFetchResponse } from '../replication/replica-fetcher.js';

const FETCH_VERSION = 13;
/** A connection attempt to a leader fails after this long. */
const CONNECT_TIMEOUT_MS = 2_000;
/** How long a fetch may take beyond its long-poll wait before the connection counts as dead (replica.socket.timeout.ms). */
const RESPONSE_SLACK_MS = 30_000;
/** Fetch responses are bounded by replica.fetch.response.max.bytes plus framing; allow a generous margin. */
const RESPONSE_BYTES_MAX = 256 * 1024 * 1024;

export type { BrokerEndpointLookup } from './broker-connections.js';

type Wanted = ReplicaFetchRequest['partitions'][number];
type SessionWanted = Wanted & SessionPartition;

export class BrokerFetchTransport implements ReplicaFetchTransport {
  private readonly brokers: BrokerConnections;
  private readonly sessions = new Map<number, FetchSessionHandler<SessionWanted>>();

  constructor(endpointOf: BrokerEndpointLookup, clientId: string, security?: ConnectionSecurity) {
    this.brokers = new BrokerConnections(endpointOf, { clientId, purpose: 'replica fetch', connectTimeoutMs: CONNECT_TIMEOUT_MS, maxResponseBytes: RESPONSE_BYTES_MAX, security });
  }

  async fetch(leaderId: number, request: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
    let handler = this.sessions.get(leaderId);
    if (handler === undefined) this.sessions.set(leaderId, (handler = new FetchSessionHandler()));
    const session = handler;
    try {
      return await this.brokers.use(leaderId, async (connection) => {
        const built = session.build(request.partitions.map((p) => ({ ...p, topicKey: p.topicId })));
        const response = await connection.send({ request: FetchRequest, response: FetchResponse }, FETCH_VERSION, toWire(request, built), {
          timeoutMs: request.maxWaitMs + RESPONSE_SLACK_MS,
        });
        const errorCode = response.errorCode ?? ErrorCode.NONE;
        if (!session.handleResponse(errorCode, response.sessionId ?? 0) && isFetchSessionError(errorCode)) return { errorCode: ErrorCode.NONE, partitions: [] };
        return fromWire(request, response);
      });
    } catch (err) {
      // Unsent or unanswered: the leader's session may or may not have moved, so the next Fetch is full.
      session.handleError();
      throw err;
    }
  }

  release(leaderId: number): void {
    this.sessions.delete(leaderId);
    this.brokers.release(leaderId);
  }

  close(): void {
    this.brokers.close();
  }
}

function toWire(request: ReplicaFetchRequest, session: SessionFetch<SessionWanted>) {
  const byTopic = new Map<string, Wanted[]>();
  for (const p of session.partitions) {
    let list = byTopic.get(p.topicId);
    if (list === undefined) byTopic.set(p.topicId, (list = []));
    list.push(p);
  }
  return {
    replicaId: request.replicaId,
    maxWaitMs: request.maxWaitMs,
    minBytes: request.minBytes,
    maxBytes: request.maxBytes,
    isolationLevel: 0,
    sessionId: session.sessionId,
    sessionEpoch: session.sessionEpoch,
    topics: [...byTopic].map(([topicId, partitions]) => ({
      topic: '',
      topicId,
      partitions: partitions.map((p) => ({
        partition: p.partition,
        currentLeaderEpoch: p.currentLeaderEpoch,
        fetchOffset: p.fetchOffset,
        lastFetchedEpoch: p.lastFetchedEpoch,
        logStartOffset: p.logStartOffset,
        partitionMaxBytes: p.partitionMaxBytes,
      })),
    })),
    forgottenTopicsData: session.forgotten.map((f) => ({ topic: '', topicId: f.topicKey, partitions: f.partitions })),
    rackId: '',
  };
}

function recordsBuffer(records: RecordsValue): Buffer | null {
  if (records === null) return null;
  if (Buffer.isBuffer(records)) return records;
  return Buffer.concat(records.chunks, records.byteLength);
}

function fromWire(request: ReplicaFetchRequest, response: FetchResponse): ReplicaFetchResponse {
  const topicOf = new Map(request.partitions.map((p) => [p.topicId, p.topic]));
  const partitions: ReplicaFetchPartitionResponse[] = [];
  for (const t of response.responses) {
    const topic = topicOf.get(t.topicId);
    if (topic === undefined) continue;
    for (const p of t.partitions) {
      const d = p.divergingEpoch;
      partitions.push({
        topic,
        partition: p.partitionIndex,
        errorCode: p.errorCode,
        highWatermark: p.highWatermark,
        logStartOffset: p.logStartOffset,
        records: recordsBuffer(p.records),
        divergingEpoch: d !== undefined && (d.epoch >= 0 || d.endOffset >= 0n) ? { epoch: d.epoch, endOffset: d.endOffset } : null,
      });
    }
  }
  return { errorCode: response.errorCode ?? ErrorCode.NONE, partitions };
}

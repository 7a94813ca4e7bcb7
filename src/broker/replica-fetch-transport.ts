/**
 * How a follower's fetchers reach partition leaders: Fetch v13 (topic ids,
 * KIP-516; LastFetchedEpoch and DivergingEpoch, KIP-320) with this broker's
 * id as ReplicaId, over one connection per leader broker to the endpoint it
 * registered for `inter.broker.listener.name`. A connection that fails is
 * dropped, so the next fetch reconnects (to the endpoint the metadata image
 * has then: a restarted broker may come back on another port).
 */
import type { ConnectionSecurity } from '../net/connection-options.js';
import { BrokerConnections, type BrokerEndpointLookup } from './broker-connections.js';
import { ErrorCode } from '../protocol/errors.js';
import { FetchRequest, FetchResponse } from '../protocol/messages/01-fetch.js';
import type { RecordsValue } from '../protocol/schema.js';
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

export class BrokerFetchTransport implements ReplicaFetchTransport {
  private readonly brokers: BrokerConnections;

  constructor(endpointOf: BrokerEndpointLookup, clientId: string, security?: ConnectionSecurity) {
    this.brokers = new BrokerConnections(endpointOf, { clientId, purpose: 'replica fetch', connectTimeoutMs: CONNECT_TIMEOUT_MS, maxResponseBytes: RESPONSE_BYTES_MAX, security });
  }

  fetch(leaderId: number, request: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
    return this.brokers.use(leaderId, async (connection) => {
      const response = await connection.send({ request: FetchRequest, response: FetchResponse }, FETCH_VERSION, toWire(request), {
        timeoutMs: request.maxWaitMs + RESPONSE_SLACK_MS,
      });
      return fromWire(request, response);
    });
  }

  release(leaderId: number): void {
    this.brokers.release(leaderId);
  }

  close(): void {
    this.brokers.close();
  }
}

function toWire(request: ReplicaFetchRequest) {
  const byTopic = new Map<string, ReplicaFetchRequest['partitions'][number][]>();
  for (const p of request.partitions) {
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
    sessionId: 0,
    sessionEpoch: -1,
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
    forgottenTopicsData: [],
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

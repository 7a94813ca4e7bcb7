/**
 * The marker phase on the wire (Kafka's TransactionMarkerChannelManager and
 * TransactionMarkerRequestCompletionHandler): WriteTxnMarkers v1 to the
 * leader of each of the transaction's partitions, with the coordinator
 * epoch, until every partition has its marker.
 *
 * Per-partition answers, as Kafka handles them:
 * - NONE: done;
 * - UNKNOWN_TOPIC_OR_PARTITION for a topic that no longer exists, and
 *   UNSUPPORTED_FOR_MESSAGE_FORMAT: nothing to mark, done;
 * - TRANSACTION_COORDINATOR_FENCED, INVALID_PRODUCER_EPOCH: a newer
 *   coordinator (or epoch) owns the producer; this coordinator stops;
 * - anything else (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS,
 *   REQUEST_TIMED_OUT, a connection failure...): retried with backoff, to the
 *   leader the metadata names then, for as long as the transaction is still
 *   this coordinator's to complete (`isCurrent`).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { tpKey, type TopicPartition } from './state.js';
import type { MarkerRequest, TxnMarkerSink } from './types.js';

/** One partition's marker in a WriteTxnMarkers request. */
export interface WireMarker {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly coordinatorEpoch: number;
  readonly partitions: readonly TopicPartition[];
}

export interface MarkerTransport {
  /** One WriteTxnMarkers v1 request to broker `leaderId`; error code per "topic\0partition"; throws when the broker cannot be reached. */
  writeTxnMarkers(leaderId: number, marker: WireMarker): Promise<Map<string, number>>;
}

export interface MarkerSenderDeps {
  readonly transport: MarkerTransport;
  /** The partition's leader id, -1 while it has none, or null when the topic does not exist. */
  leaderOf(tp: TopicPartition): number | null;
  sleep(ms: number): Promise<void>;
  /** Called on each failed attempt (logging, metrics). */
  onRetry?(tp: TopicPartition, errorCode: number): void;
}

export const MARKER_RETRY_BACKOFF_MS = 100;
export const MARKER_RETRY_BACKOFF_MAX_MS = 2_000;

const RETRIABLE_NEVER = new Set<number>([ErrorCode.TRANSACTION_COORDINATOR_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH]);

export class MarkerSender implements TxnMarkerSink {
  constructor(private readonly deps: MarkerSenderDeps) {}

  async writeMarkers(request: MarkerRequest, isCurrent: () => boolean): Promise<'done' | 'stopped'> {
    const remaining = new Map<string, TopicPartition>(request.partitions.map((tp) => [tpKey(tp), tp]));
    let backoffMs = MARKER_RETRY_BACKOFF_MS;
    while (remaining.size > 0) {
      if (!isCurrent()) return 'stopped';
      const outcome = await this.round(request, remaining);
      if (outcome === 'stopped') return 'stopped';
      if (remaining.size === 0) break;
      await this.deps.sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, MARKER_RETRY_BACKOFF_MAX_MS);
    }
    return isCurrent() ? 'done' : 'stopped';
  }

  /** One attempt for every remaining partition, grouped by leader; removes those that are done. */
  private async round(request: MarkerRequest, remaining: Map<string, TopicPartition>): Promise<'stopped' | 'continue'> {
    const byLeader = new Map<number, TopicPartition[]>();
    for (const [key, tp] of remaining) {
      const leader = this.deps.leaderOf(tp);
      if (leader === null) {
        remaining.delete(key); // the topic was deleted: nothing to mark
        continue;
      }
      if (leader < 0) continue;
      const list = byLeader.get(leader) ?? [];
      list.push(tp);
      byLeader.set(leader, list);
    }
    const results = await Promise.all(
      [...byLeader].map(async ([leader, partitions]) => {
        try {
          return await this.deps.transport.writeTxnMarkers(leader, { ...request, partitions });
        } catch {
          return new Map(partitions.map((tp) => [tpKey(tp), ErrorCode.NETWORK_EXCEPTION]));
        }
      }),
    );
    for (const codes of results) {
      for (const [key, code] of codes) {
        const tp = remaining.get(key);
        if (tp === undefined) continue;
        if (RETRIABLE_NEVER.has(code)) return 'stopped';
        if (code === ErrorCode.NONE || code === ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT) remaining.delete(key);
        else if (code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && this.deps.leaderOf(tp) === null) remaining.delete(key);
        else this.deps.onRetry?.(tp, code);
      }
    }
    return 'continue';
  }
}

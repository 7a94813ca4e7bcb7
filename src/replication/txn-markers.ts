/**
 * Writing transaction markers as a partition leader (the WriteTxnMarkers
 * side of KIP-98; Kafka's ReplicaManager.appendRecords with origin
 * Coordinator from KafkaApis.handleWriteTxnMarkersRequest). For each
 * partition the coordinator names, a control batch is appended: attributes
 * transactional + control, one record whose key is int16 version 0 + int16
 * type (0 abort, 1 commit) and whose value is int16 version 0 + int32
 * coordinator epoch (Kafka's EndTransactionMarker), with the producer's id
 * and epoch in the batch header and no sequence.
 *
 * Checks, in the same synchronous step as the append (nothing can come
 * between): the partition is led here (NOT_LEADER_OR_FOLLOWER,
 * UNKNOWN_TOPIC_OR_PARTITION otherwise), the marker's producer epoch is not
 * older than the producer's (INVALID_PRODUCER_EPOCH), and its coordinator
 * epoch is not older than the one of the producer's last marker here
 * (TRANSACTION_COORDINATOR_FENCED: a deposed coordinator). The append waits
 * for the in-sync replicas (acks=all, as Kafka writes markers), so a marker
 * answered NONE survives the leader's loss. The log's producer state closes
 * the transaction and indexes an abort (storage/producer-state,
 * storage/txn-index.ts), which moves the LSO.
 */
import { ErrorCode } from '../protocol/errors.js';
import { buildControlBatch, ControlRecordType } from '../protocol/record-batch/builder.js';
import type { Clock } from '../util/clock.js';
import type { AppendEntry, AppendRequest, PartitionAppendResult } from './data-path-types.js';
import type { Partition } from './partition.js';
import type { TxnVerificationGate } from './txn-verification.js';

/** One WriteTxnMarkers marker: a producer's transaction ends on these partitions. */
export interface TxnMarkerRequest {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  /** true: COMMIT marker; false: ABORT. */
  readonly commit: boolean;
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
}

export interface TxnMarkerResult {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** A marker was written and committed (the group coordinator completes transactional offsets on __consumer_offsets). */
export interface TransactionCompleted {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly commit: boolean;
}

/** What the writer needs from the ReplicaManager. */
export interface MarkerAppender {
  get(topic: string, partition: number): Partition | undefined;
  appendRecords(req: AppendRequest): Promise<PartitionAppendResult[]>;
}

/** How long a marker waits for the in-sync replicas (Kafka uses request.timeout.ms, 30 s). */
export const TXN_MARKER_TIMEOUT_MS_DEFAULT = 30_000;

export class TxnMarkerWriter {
  private readonly listeners: ((e: TransactionCompleted) => void)[] = [];

  constructor(
    private readonly appender: MarkerAppender,
    private readonly gate: TxnVerificationGate,
    private readonly clock: Clock,
  ) {}

  /** Called for each partition whose marker was written and acknowledged by the in-sync replicas. */
  onTransactionCompleted(listener: (e: TransactionCompleted) => void): void {
    this.listeners.push(listener);
  }

  /** Writes one marker to each of its partitions; results in the order of `marker.partitions`. */
  async write(marker: TxnMarkerRequest, timeoutMs = TXN_MARKER_TIMEOUT_MS_DEFAULT): Promise<TxnMarkerResult[]> {
    const refused = new Map<number, TxnMarkerResult>();
    const entries: AppendEntry[] = [];
    const appendedAt: number[] = [];
    marker.partitions.forEach(({ topic, partition }, i) => {
      const problem = this.check(marker, topic, partition);
      if (problem !== null) {
        refused.set(i, { topic, partition, ...problem });
        return;
      }
      entries.push({ topic, partition, records: this.batchFor(marker) });
      appendedAt.push(i);
    });
    // Every append happens inside this call, before its first await: right after the checks above.
    const appended = entries.length === 0 ? Promise.resolve([]) : this.appender.appendRecords({ origin: 'coordinator', acks: -1, timeoutMs, entries });
    for (const e of entries) {
      const p = this.appender.get(e.topic, e.partition);
      if (p !== undefined) this.gate.onMarker(p, marker.producerId);
    }
    const results = await appended;
    const out: TxnMarkerResult[] = marker.partitions.map(({ topic, partition }, i) => refused.get(i) ?? { topic, partition, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null });
    results.forEach((r, j) => {
      out[appendedAt[j] as number] = { topic: r.topic, partition: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage };
      if (r.errorCode === ErrorCode.NONE) this.completed(marker, r.topic, r.partition);
    });
    return out;
  }

  /** The producer-state checks of a marker on a partition led here; null when it may be written. */
  private check(marker: TxnMarkerRequest, topic: string, partition: number): { errorCode: number; errorMessage: string } | null {
    const p = this.appender.get(topic, partition);
    // Not hosted or not led here: the append answers the right error.
    if (p === undefined || !p.isLeader) return null;
    const problem = p.log.producerState.checkMarker(marker.producerId, marker.producerEpoch, marker.coordinatorEpoch);
    if (problem === null) return null;
    const errorCode = problem.error === 'coordinator_fenced' ? ErrorCode.TRANSACTION_COORDINATOR_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
    return { errorCode, errorMessage: problem.message };
  }

  private batchFor(marker: TxnMarkerRequest): Buffer {
    return buildControlBatch({
      type: marker.commit ? ControlRecordType.Commit : ControlRecordType.Abort,
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      coordinatorEpoch: marker.coordinatorEpoch,
      timestampMs: this.clock.nowMs(),
    });
  }

  private completed(marker: TxnMarkerRequest, topic: string, partition: number): void {
    const e: TransactionCompleted = { topic, partition, producerId: marker.producerId, producerEpoch: marker.producerEpoch, commit: marker.commit };
    for (const l of this.listeners) l(e);
  }
}

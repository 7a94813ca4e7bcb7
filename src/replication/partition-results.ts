/**
 * What a Partition's writes answer: appends (as leader, as follower, a
 * client batch checked against its producer's state) and DeleteRecords.
 * The ReplicaManager and the handlers map them to wire codes.
 */
import type { ProducerCheckError } from '../storage/producer-state/producer-state.js';

export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  logAppendTimeMs: bigint;
}

/** A client batch's outcome (appendClientBatch); the Produce handler maps it to a wire code. */
export type ClientAppendResult =
  | ({ kind: 'appended' } & AppendResult)
  /** A retry of one of the producer's last 5 batches: nothing appended; these are the original offsets. */
  | { kind: 'duplicate'; baseOffset: bigint; lastOffset: bigint; timestampMs: bigint }
  | { kind: 'rejected'; error: ProducerCheckError; message: string };

/** DeleteRecords' outcome for one partition (the handler maps it to a wire code). */
export type DeleteRecordsResult =
  | { kind: 'ok'; lowWatermark: bigint }
  /** Below 0 (other than -1) or above the high watermark. */
  | { kind: 'offset_out_of_range' };

/** DeleteRecords' "up to the high watermark" offset. */
export const DELETE_TO_HIGH_WATERMARK = -1n;

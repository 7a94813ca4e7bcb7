/**
 * The idempotent producer's bookkeeping (KIP-98, with the KIP-360 epoch
 * bump), after the Java client's TransactionManager for a producer without a
 * transactional id. No I/O here: the Producer sends InitProducerId and
 * Produce and asks this module what the answers mean.
 *
 * - The producer holds one (producerId, epoch), from InitProducerId.
 * - Each partition numbers its batches: a batch's baseSequence is assigned
 *   when it is first sent and kept across retries (the encoded batch is
 *   resent as it is); the next batch starts `recordCount` later, wrapping
 *   from Int32 max to 0 as Kafka's DefaultRecordBatch.incrementSequence.
 * - Each partition also remembers the (producerId, epoch) its sequences
 *   belong to. After an epoch bump a partition keeps sending nothing until
 *   its in-flight batches are answered; then its unacknowledged batches are
 *   renumbered from 0 under the new epoch (the header is patched in place)
 *   and it goes on (Java's maybeUpdateProducerIdAndEpoch).
 * - A partition asks for a bump when the broker no longer has its sequence
 *   (UNKNOWN_PRODUCER_ID, or OUT_OF_ORDER_SEQUENCE_NUMBER on its oldest
 *   batch) or when one of its numbered batches failed for good, leaving a gap.
 *   The bump waits until that partition has nothing in flight.
 */
import { ErrorCode } from '../protocol/errors.js';
import { Offsets, computeBatchCrc } from '../protocol/record-batch/header.js';
import { ClientConfigError, invalidArgument } from '../net/errors.js';
import type { Acks } from './records.js';
import { IDEMPOTENT_MAX_IN_FLIGHT, MAX_IN_FLIGHT_DEFAULT } from './producer-types.js';
import type { PartitionQueue, ProducerBatch } from './producer-accumulator.js';

/** Largest sequence number; the next one is 0. */
export const SEQUENCE_MAX = 0x7fffffff;
/** Largest producer epoch; a bump from here asks for a new producer id. */
export const PRODUCER_EPOCH_MAX = 0x7fff;
/** The transaction timeout an idempotent producer sends in InitProducerId (it has no transactions), as Java. */
export const INIT_PRODUCER_ID_TRANSACTION_TIMEOUT_MS = 0x7fffffff;
/** First InitProducerId version carrying the current id and epoch (KIP-360). */
export const INIT_PRODUCER_ID_BUMP_VERSION = 3;

/** `sequence + increment`, wrapping after Int32 max to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > SEQUENCE_MAX - increment) return increment - (SEQUENCE_MAX - sequence) - 1;
  return sequence + increment;
}

export interface IdempotenceSettings {
  idempotent: boolean;
  /** The user set `idempotent` (true or false) rather than leaving the default. */
  explicit: boolean;
  /** Batches in flight per partition. */
  maxInFlight: number;
}

/**
 * Java's ProducerConfig rules for enable.idempotence (KIP-679): on by
 * default; acks other than all, retries 0 or more than 5 in flight conflict
 * with it: an explicit `idempotent: true` then throws, the default just
 * turns it off.
 */
export function resolveIdempotence(options: { idempotent?: boolean | undefined; acks: Acks; retries: number; maxInFlight?: number | undefined }): IdempotenceSettings {
  const { acks, retries } = options;
  const explicit = options.idempotent !== undefined;
  if (options.maxInFlight !== undefined && (!Number.isInteger(options.maxInFlight) || options.maxInFlight < 1)) {
    throw invalidArgument(`maxInFlight must be a positive integer, got ${options.maxInFlight}`);
  }
  let idempotent = options.idempotent ?? true;
  if (idempotent) {
    const conflicts: string[] = [];
    if (acks !== -1) conflicts.push(`acks must be -1 (all), not ${acks}`);
    if (retries === 0) conflicts.push('retries must be above 0');
    if (options.maxInFlight !== undefined && options.maxInFlight > IDEMPOTENT_MAX_IN_FLIGHT) {
      conflicts.push(`maxInFlight must be at most ${IDEMPOTENT_MAX_IN_FLIGHT}, not ${options.maxInFlight}`);
    }
    if (conflicts.length > 0) {
      if (explicit) throw new ClientConfigError(`idempotent: true conflicts with the other options: ${conflicts.join('; ')} (or set idempotent: false)`);
      idempotent = false;
    }
  }
  const maxInFlight = options.maxInFlight ?? (idempotent ? IDEMPOTENT_MAX_IN_FLIGHT : MAX_IN_FLIGHT_DEFAULT);
  return { idempotent, explicit, maxInFlight };
}

/** What a Produce error means for a batch of an idempotent producer. */
export type SequenceVerdict =
  /** DUPLICATE_SEQUENCE_NUMBER: the broker already has the batch; a success. */
  | 'duplicate'
  /** The batch waits behind an earlier batch or an epoch change; resend it later, not counted as a retry. */
  | 'wait'
  /** The broker lost this partition's sequence: bump the epoch, renumber, retry. */
  | 'bump'
  /** INVALID_PRODUCER_EPOCH or PRODUCER_FENCED for the current epoch: the producer is done. */
  | 'fenced'
  /** Not a sequence error: the usual retry rules apply. */
  | 'other';

/**
 * `stale`: the batch carries an older (producerId, epoch) than the
 * producer's current one. `oldest`: no earlier batch of its partition is
 * unanswered, so it is the sequence the broker should expect next.
 */
export function sequenceVerdict(errorCode: number, stale: boolean, oldest: boolean): SequenceVerdict {
  switch (errorCode) {
    case ErrorCode.DUPLICATE_SEQUENCE_NUMBER:
      return 'duplicate';
    case ErrorCode.INVALID_PRODUCER_EPOCH:
    case ErrorCode.PRODUCER_FENCED:
      return stale ? 'wait' : 'fenced';
    case ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER:
      // Behind a gap an earlier batch's retry will fill (Java: "not the next sequence").
      if (stale || !oldest) return 'wait';
      return 'bump';
    case ErrorCode.UNKNOWN_PRODUCER_ID:
      // Behind an unanswered first batch the broker has no state yet; on the oldest batch it lost it.
      if (stale || !oldest) return 'wait';
      return 'bump';
    default:
      return 'other';
  }
}

/** Rewrites producerId, epoch and baseSequence of an encoded v2 batch, and its CRC. */
export function restampBatch(batch: Buffer, producerId: bigint, producerEpoch: number, baseSequence: number): void {
  batch.writeBigInt64BE(producerId, Offsets.producerId);
  batch.writeInt16BE(producerEpoch, Offsets.producerEpoch);
  batch.writeInt32BE(baseSequence, Offsets.baseSequence);
  batch.writeUInt32BE(computeBatchCrc(batch, 0, batch.length), Offsets.crc);
}

export type ProducerIdStatus = 'none' | 'requesting' | 'ready' | 'fatal';

/** The producer's id and epoch, and whether a new one is being asked for. */
export class ProducerIdentity {
  producerId = -1n;
  producerEpoch = -1;
  status: ProducerIdStatus = 'none';
  /** A partition needs a bump: the next InitProducerId carries the current id and epoch. */
  bumpRequested = false;
  /** Epoch ms before which InitProducerId is not retried. */
  retryAtMs = 0;
  attempts = 0;

  /** True when batches may be numbered and sent. */
  get ready(): boolean {
    return this.status === 'ready' && !this.bumpRequested;
  }

  /** The InitProducerId body: v3+ with an id carries it to bump its epoch (KIP-360); else asks for a new id. */
  requestBody(version: number): { transactionalId: null; transactionTimeoutMs: number; producerId: bigint; producerEpoch: number } {
    const bump = version >= INIT_PRODUCER_ID_BUMP_VERSION && this.producerId >= 0n && this.producerEpoch < PRODUCER_EPOCH_MAX;
    return {
      transactionalId: null,
      transactionTimeoutMs: INIT_PRODUCER_ID_TRANSACTION_TIMEOUT_MS,
      producerId: bump ? this.producerId : -1n,
      producerEpoch: bump ? this.producerEpoch : -1,
    };
  }

  /** A successful InitProducerId answer. */
  assign(producerId: bigint, producerEpoch: number): void {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.status = 'ready';
    this.bumpRequested = false;
    this.attempts = 0;
    this.retryAtMs = 0;
  }

  /** True when `producerId`/`producerEpoch` are not the current ones. */
  isStale(producerId: bigint, producerEpoch: number): boolean {
    return producerId !== this.producerId || producerEpoch !== this.producerEpoch;
  }
  /** Moves `q` to the current producer id and epoch: its sent, unacknowledged batches get sequences from 0 again. */
  renumber(q: PartitionQueue): void {
    q.producerId = this.producerId;
    q.producerEpoch = this.producerEpoch;
    q.needsEpochBump = false;
    q.sequenceConfirmed = false;
    let sequence = 0;
    for (const b of q.batches) {
      if (!b.sent) break;
      b.producerId = this.producerId;
      b.producerEpoch = this.producerEpoch;
      b.baseSequence = sequence;
      if (b.encoded !== null) restampBatch(b.encoded, b.producerId, b.producerEpoch, b.baseSequence);
      sequence = incrementSequence(sequence, b.count);
    }
    q.nextSequence = sequence;
  }
}

/** Gives a batch on its first send its partition's producer id, epoch and next sequence numbers. */
export function stampSequence(q: PartitionQueue, batch: ProducerBatch): void {
  batch.producerId = q.producerId;
  batch.producerEpoch = q.producerEpoch;
  batch.baseSequence = q.nextSequence;
  q.nextSequence = incrementSequence(q.nextSequence, batch.count);
}

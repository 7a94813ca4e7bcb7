/**
 * The metadata log contract: where the controller's decisions become
 * committed facts. The one implementation is Raft's
 * (quorum/raft-metadata-log.ts): a quorum of one voter on a single node
 * (boot.ts), of several in a cluster. Nothing above this interface may assume
 * the log is local: the controller only appends and listens for commits.
 *
 * Contract:
 *  - `start(listener)` delivers every committed batch, in offset order, exactly
 *    once, to the one listener: first the batches already committed (the replay
 *    at boot; resolves when it is done), then each batch as it commits, whoever
 *    appended it (on a follower, batches from the leader).
 *  - `append(records)` writes the records as ONE batch (atomic: all applied or
 *    none) and resolves only once the batch is committed (a majority of voters
 *    has it durably: fsynced, with one voter) AND the listener has been called
 *    with it, so a caller that awaits append sees its own write in the image.
 *    Appends resolve in order. It rejects with MetadataLogError:
 *    `ERR_TRIB_METADATA_NOT_LEADER` on a non-leader (the controller answers
 *    NOT_CONTROLLER), `..._CLOSED`, `..._FAILED` after an I/O failure.
 *  - `highWatermark` is the offset after the last committed record; it never
 *    goes back. `endOffset` is the offset the next append will start at (on the
 *    leader); the controller uses it for broker epochs, as KRaft does.
 *
 * Until issue 6 a single node used a `LocalMetadataLog` here: the same
 * `__cluster_metadata-0` PartitionLog, batches of epoch 0, fsync per append.
 * Its data dirs open unchanged in the Raft log (quorum/file-raft-storage.ts).
 */
import type { MetadataBatch } from './metadata/batch.js';
import type { MetadataRecord } from './metadata/records.js';

export const METADATA_TOPIC = '__cluster_metadata';
export const METADATA_PARTITION = 0;
export const METADATA_DIR_NAME = `${METADATA_TOPIC}-${METADATA_PARTITION}`;

export type MetadataLogErrorCode =
  | 'ERR_TRIB_METADATA_NOT_LEADER'
  | 'ERR_TRIB_METADATA_NOT_STARTED'
  | 'ERR_TRIB_METADATA_CLOSED'
  | 'ERR_TRIB_METADATA_FAILED'
  | 'ERR_TRIB_METADATA_CORRUPT';

export class MetadataLogError extends Error {
  constructor(
    readonly code: MetadataLogErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MetadataLogError';
  }
}

/** Receives each committed batch; must not throw (an exception is a bug and fails the log). */
export type CommitListener = (batch: MetadataBatch) => void;

export interface AppendedRange {
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
}

export interface MetadataLog {
  start(listener: CommitListener): Promise<void>;
  append(records: readonly MetadataRecord[]): Promise<AppendedRange>;
  readonly highWatermark: bigint;
  readonly endOffset: bigint;
  close(): Promise<void>;
}

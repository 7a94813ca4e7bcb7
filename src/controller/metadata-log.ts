/**
 * The metadata log: where the controller's decisions become committed facts.
 *
 * `MetadataLog` is the contract the Raft implementation will fulfil later;
 * `LocalMetadataLog` is the one-voter form over a local PartitionLog at
 * `<dataDir>/__cluster_metadata-0/`. Nothing above this interface may assume
 * the log is local: the controller only appends and listens for commits.
 *
 * Contract (what Raft must provide):
 *  - `start(listener)` delivers every committed batch, in offset order, exactly
 *    once, to the one listener: first the batches already committed (the replay
 *    at boot; resolves when it is done), then each batch as it commits, whoever
 *    appended it (on a follower, batches from the leader).
 *  - `append(records)` writes the records as ONE batch (atomic: all applied or
 *    none) and resolves only once the batch is committed (a majority of voters
 *    has it durably) AND the listener has been called with it, so a caller that
 *    awaits append sees its own write in the image. Appends resolve in order.
 *    It rejects with MetadataLogError: `ERR_TRIB_METADATA_NOT_LEADER` on a
 *    non-leader (the controller answers NOT_CONTROLLER), `..._CLOSED`,
 *    `..._FAILED` after an I/O failure.
 *  - `highWatermark` is the offset after the last committed record; it never
 *    goes back. `endOffset` is the offset the next append will start at (on the
 *    leader); the controller uses it for broker epochs, as KRaft does.
 *
 * Durability of the local form: every append is fsynced before it commits
 * (`flush()` on each append, whatever the flush policy of ordinary topics).
 * Metadata changes are rare (topic create/delete, broker registration) and a
 * lost one would make partition logs on disk disagree with the image, so the
 * cost of one fsync per change is right. A crash before the fsync loses the
 * append, which was never acknowledged; a torn tail is truncated by the
 * PartitionLog's recovery at the next start.
 */
import { join } from 'node:path';
import type { Clock } from '../util/clock.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { splitBatches } from '../protocol/record-batch/index.js';
import { DEFAULT_LOG_CONFIG, PartitionLog, type FileSystem, type LogConfig } from '../storage/index.js';
import { decodeMetadataBatch, encodeMetadataBatch, type MetadataBatch } from './metadata/batch.js';
import type { MetadataRecord } from './metadata/records.js';

export const METADATA_TOPIC = '__cluster_metadata';
export const METADATA_PARTITION = 0;
export const METADATA_DIR_NAME = `${METADATA_TOPIC}-${METADATA_PARTITION}`;
/** Bytes read per step while replaying the log at boot. */
export const METADATA_REPLAY_READ_BYTES_MAX = 1024 * 1024;

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

export interface LocalMetadataLogOptions {
  fs: FileSystem;
  clock: Clock;
  dataDir: string;
  /** Segment settings; retention is forced off (metadata is never deleted by age or size). */
  config?: Partial<LogConfig>;
}

/** The one-voter MetadataLog: committed = written and fsynced locally. */
export class LocalMetadataLog implements MetadataLog {
  private listener: CommitListener | null = null;
  private state: 'new' | 'started' | 'failed' | 'closed' = 'new';

  private constructor(
    private readonly log: PartitionLog,
    private readonly clock: Clock,
  ) {}

  /** Opens (and recovers) `<dataDir>/__cluster_metadata-0/`, creating it when missing. */
  static open(opts: LocalMetadataLogOptions): LocalMetadataLog {
    const config: LogConfig = { ...DEFAULT_LOG_CONFIG, ...opts.config, retentionMs: -1, retentionBytes: -1 };
    const { log } = PartitionLog.open({
      fs: opts.fs,
      clock: opts.clock,
      dir: join(opts.dataDir, METADATA_DIR_NAME),
      topic: METADATA_TOPIC,
      partition: METADATA_PARTITION,
      config,
    });
    return new LocalMetadataLog(log, opts.clock);
  }

  get highWatermark(): bigint {
    // Everything in the local log was fsynced before it was acknowledged, and
    // recovery drops what was not, so the whole log is committed.
    return this.log.logEndOffset;
  }

  get endOffset(): bigint {
    return this.log.logEndOffset;
  }

  async start(listener: CommitListener): Promise<void> {
    if (this.state !== 'new') throw new MetadataLogError('ERR_TRIB_METADATA_NOT_STARTED', `start() called on a ${this.state} metadata log`);
    this.listener = listener;
    try {
      this.replay(listener);
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
    this.state = 'started';
  }

  private replay(listener: CommitListener): void {
    let offset = this.log.logStartOffset;
    const end = this.log.logEndOffset;
    while (offset < end) {
      const read = this.log.read(offset, METADATA_REPLAY_READ_BYTES_MAX);
      if (read.kind !== 'records' || read.sizeBytes === 0) {
        throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `metadata log: cannot read at offset ${offset} (log ends at ${end})`);
      }
      const batches = splitBatches(Buffer.concat(read.chunks, read.sizeBytes));
      if (batches.length === 0) throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `metadata log: no whole batch at offset ${offset}`);
      for (const buf of batches) {
        const batch = this.decode(buf, offset);
        if (batch.lastOffset < offset) continue; // a batch before the read position (read starts at its batch)
        listener(batch);
        offset = batch.lastOffset + 1n;
      }
    }
  }

  private decode(buf: Buffer, offset: bigint): MetadataBatch {
    try {
      return decodeMetadataBatch(buf);
    } catch (err) {
      if (err instanceof DecodeError) {
        throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `metadata log: the batch at offset ${offset} does not decode: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }

  async append(records: readonly MetadataRecord[]): Promise<AppendedRange> {
    if (this.state !== 'started' || this.listener === null) {
      const code = this.state === 'closed' ? 'ERR_TRIB_METADATA_CLOSED' : this.state === 'failed' ? 'ERR_TRIB_METADATA_FAILED' : 'ERR_TRIB_METADATA_NOT_STARTED';
      throw new MetadataLogError(code, `metadata log is ${this.state}`);
    }
    const nowMs = this.clock.nowMs();
    const buf = encodeMetadataBatch(records, { timestampMs: nowMs });
    let range: AppendedRange;
    try {
      const appended = this.log.append(buf);
      this.log.flush();
      range = { baseOffset: appended.baseOffset, lastOffset: appended.lastOffset };
    } catch (err) {
      // The in-memory log may now hold an unflushed batch nobody applied: stop.
      this.state = 'failed';
      throw new MetadataLogError('ERR_TRIB_METADATA_FAILED', `metadata log append failed: ${(err as Error).message}`, { cause: err });
    }
    try {
      this.listener({
        baseOffset: range.baseOffset,
        lastOffset: range.lastOffset,
        epoch: 0,
        timestampMs: BigInt(nowMs),
        records,
      });
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
    return range;
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.log.close();
  }
}

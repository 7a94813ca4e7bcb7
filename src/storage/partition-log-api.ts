/**
 * The option and result types of PartitionLog's public API (its constructor
 * options, append, read, lookups and retention). Separate from
 * partition-log.ts so the read path and the lookups over the segment list
 * (log-read.ts, segment-lookups.ts) can use them without importing the class.
 * partition-log.ts re-exports them, so importers are unchanged.
 */
import type { Clock } from '../util/clock.js';
import type { LogConfig } from './config.js';
import type { FileSystem, ReadAllocator } from './fs.js';

export interface PartitionLogOptions {
  fs: FileSystem;
  clock: Clock;
  /** The partition directory, `<data.dir>/<topic>-<partition>`. */
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  /** From recovery-point-offset-checkpoint; absent = scan every segment. */
  recoveryPoint?: bigint | undefined;
  /** From log-start-offset-checkpoint. */
  logStartOffset?: bigint | undefined;
  hadCleanShutdown?: boolean;
  /**
   * Called when the recovery point went down or the log start offset went up,
   * so the owner rewrites its checkpoint files before anything else happens.
   */
  onCheckpointNeeded?: (() => void) | undefined;
}

export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  /** Clock time of the append (the broker uses it for LogAppendTime topics). */
  logAppendTimeMs: bigint;
  /** Byte position of the first batch in its segment file. */
  position: number;
}

export interface ReadOptions {
  /** Never return batches containing offsets at or after this one (the high watermark). */
  maxOffsetExclusive?: bigint | undefined;
  /** Return the first batch whole even when bigger than maxBytes (default true). */
  minOneBatch?: boolean | undefined;
  /** Where the returned chunks are read into (default: fresh Buffers); e.g. a BufferPool's acquire. */
  allocate?: ReadAllocator | undefined;
}

export type ReadResult =
  | {
      kind: 'records';
      /** Stored bytes, one chunk per segment touched; empty when nothing to return. */
      chunks: Buffer[];
      sizeBytes: number;
      /** The last chunk ends inside a batch (cut at maxBytes, as Kafka does). */
      partialTail: boolean;
      logStartOffset: bigint;
      logEndOffset: bigint;
    }
  | { kind: 'offset_out_of_range'; logStartOffset: bigint; logEndOffset: bigint };

export interface TimestampOffset {
  offset: bigint;
  timestampMs: bigint;
}

export interface SegmentInfo {
  baseOffset: bigint;
  nextOffset: bigint;
  sizeBytes: number;
  maxTimestampMs: bigint;
  /** When the segment was last appended to (or created / opened, before its first append). */
  lastModifiedMs: number;
}

export interface RetentionResult {
  segmentsDeleted: number;
  bytesDeleted: number;
  logStartOffset: bigint;
}

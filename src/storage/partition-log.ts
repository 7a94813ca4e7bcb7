/**
 * The log of one topic-partition: an ordered list of segments in the
 * directory `<topic>-<partition>`, the last one active. See README.md for the
 * invariants, the on-disk formats and what each flush policy guarantees.
 */
import { join } from 'node:path';
import { BATCH_HEADER_BYTES, Offsets, batchSizeAt } from '../protocol/record-batch/header.js';
import { invariant } from '../util/assert.js';
import type { Clock } from '../util/clock.js';
import { compactionConfigOf, validateLogConfig, type LogConfig } from './config.js';
import type { FileSystem, ReadAllocator } from './fs.js';
import { loadLog, type RecoveryReport } from './log-loader.js';
import { LEADER_EPOCH_CHECKPOINT, readLeaderEpochCheckpoint, writeLeaderEpochCheckpoint, type EpochEntry } from './leader-epoch-checkpoint.js';
import { LogSegment } from './segment.js';
import { LogProducerState, producerBatchAt, type ProducerStateLog } from './producer-state/log-producer-state.js';
import type { ProducerStateManager } from './producer-state/producer-state.js';

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
}

export interface RetentionResult {
  segmentsDeleted: number;
  bytesDeleted: number;
  logStartOffset: bigint;
}

const INT32_MAX = 0x7fffffff;

export class PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  private readonly fs: FileSystem;
  private readonly clock: Clock;
  private cfg: LogConfig;
  private readonly segments: LogSegment[];
  private startOffset: bigint;
  private recoveryPointOffset: bigint;
  private lastFlushMs: number;
  private rolledSinceFlush = false;
  private closed = false;
  /** Bumped by every truncation: the cleaner drops work based on records that may be gone. */
  private truncations = 0;
  private readonly onCheckpointNeeded: () => void;
  /** The last maxOffsetExclusive resolved to a position, so repeated fetches don't rescan. */
  private boundCache: { bound: bigint; segment: LogSegment; position: number } | null = null;
  /** Idempotent producer state and its `.snapshot` files (producer-state/). */
  private readonly producers: LogProducerState;

  private constructor(opts: PartitionLogOptions, segments: LogSegment[], logStartOffset: bigint) {
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.dir = opts.dir;
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.cfg = opts.config;
    this.segments = segments;
    this.startOffset = logStartOffset;
    // Recovery validated and fsynced everything after the old recovery point.
    this.recoveryPointOffset = this.logEndOffset;
    this.lastFlushMs = opts.clock.nowMs();
    this.onCheckpointNeeded = opts.onCheckpointNeeded ?? (() => {});
    this.producers = new LogProducerState(opts.fs, opts.dir);
  }

  /** Opens the directory (creating it when missing), recovering it as needed. */
  static open(opts: PartitionLogOptions): { log: PartitionLog; report: RecoveryReport } {
    const config = validateLogConfig(opts.config);
    const loaded = loadLog({
      fs: opts.fs,
      dir: opts.dir,
      config,
      nowMs: opts.clock.nowMs(),
      recoveryPoint: opts.recoveryPoint ?? null,
      logStartOffset: opts.logStartOffset ?? null,
      hadCleanShutdown: opts.hadCleanShutdown ?? false,
    });
    const log = new PartitionLog({ ...opts, config }, loaded.segments, loaded.logStartOffset);
    const report = { ...loaded.report, producerState: log.producers.load(log, opts.hadCleanShutdown ?? false, opts.clock.nowMs()) };
    return { log, report };
  }

  get config(): Readonly<LogConfig> {
    return this.cfg;
  }

  get logStartOffset(): bigint {
    return this.startOffset;
  }

  get logEndOffset(): bigint {
    return this.active.nextOffset;
  }

  /** Offsets appended but not yet fsynced (Kafka's definition: end - recovery point). */
  get unflushedMessages(): number {
    return Number(this.logEndOffset - this.recoveryPointOffset);
  }

  /** Offsets below this are known to be fsynced. */
  get recoveryPoint(): bigint {
    return this.recoveryPointOffset;
  }

  get sizeBytes(): number {
    let total = 0;
    for (const seg of this.segments) total += seg.sizeBytes;
    return total;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  segmentInfos(): SegmentInfo[] {
    return this.segments.map((s) => ({
      baseOffset: s.baseOffset,
      nextOffset: s.nextOffset,
      sizeBytes: s.sizeBytes,
      maxTimestampMs: s.maxTimestampMs,
    }));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** How many times the log was truncated (truncateTo, truncateFullyAndStartAt) since it was opened. */
  get truncationCount(): number {
    return this.truncations;
  }

  /** For the log cleaner: the segments in offset order, the last one active. Do not modify. */
  segmentList(): readonly LogSegment[] {
    return this.segments;
  }

  /**
   * For the log cleaner: puts `cleaned` (already on disk under the final file
   * names) in place of the rolled segment `old`, which it closes. Both cover
   * the same offsets. Synchronous, so a read sees either one or the other.
   */
  replaceSegment(old: LogSegment, cleaned: LogSegment): void {
    this.checkOpen();
    const i = this.segments.indexOf(old);
    invariant(i >= 0 && i < this.segments.length - 1, 'the cleaner replaces a rolled segment of this log');
    invariant(cleaned.baseOffset === old.baseOffset && cleaned.nextOffset === old.nextOffset, 'a cleaned segment covers the same offsets');
    this.segments[i] = cleaned;
    if (this.boundCache?.segment === old) this.boundCache = null;
    old.close();
  }

  private get active(): LogSegment {
    return this.segments[this.segments.length - 1] as LogSegment;
  }

  private checkOpen(): void {
    invariant(!this.closed, `log ${this.dir} is open`);
  }

  updateConfig(config: LogConfig): void {
    this.cfg = validateLogConfig(config);
    this.active.setIndexLimits(this.cfg);
  }

  /**
   * Appends one batch, or several consecutive batches in one buffer, already
   * validated by the caller. Rewrites their base offsets in place to the log
   * end offset and writes them with one positional write.
   */
  append(batches: Buffer): AppendResult {
    this.checkOpen();
    let p = 0;
    let records = 0;
    let maxTimestampMs = -1n;
    let producerBatches = false;
    while (p < batches.length) {
      invariant(p + BATCH_HEADER_BYTES <= batches.length, 'append takes whole batches');
      const size = batchSizeAt(batches, p);
      invariant(size >= BATCH_HEADER_BYTES && p + size <= batches.length, 'append takes whole batches');
      const lastOffsetDelta = batches.readInt32BE(p + Offsets.lastOffsetDelta);
      invariant(lastOffsetDelta >= 0, 'lastOffsetDelta is not negative');
      records += lastOffsetDelta + 1;
      const ts = batches.readBigInt64BE(p + Offsets.maxTimestamp);
      if (ts > maxTimestampMs) maxTimestampMs = ts;
      // producerId >= 0 (its high word is not negative): the producer state follows it below.
      if (batches.readInt32BE(p + Offsets.producerId) >= 0) producerBatches = true;
      p += size;
    }
    invariant(records > 0, 'append takes at least one batch');
    const nowMs = this.clock.nowMs();
    const baseOffset = this.logEndOffset;
    const lastOffset = baseOffset + BigInt(records - 1);
    let seg = this.active;
    if (seg.shouldRoll(this.cfg, batches.length, maxTimestampMs, lastOffset, nowMs)) seg = this.rollAt(nowMs);
    invariant(lastOffset - seg.baseOffset <= BigInt(INT32_MAX), 'offsets fit the segment');
    const position = seg.append(batches, baseOffset, this.cfg.indexIntervalBytes, nowMs);
    if (producerBatches) this.applyProducerBatches(batches, nowMs);
    if (this.unflushedMessages >= this.cfg.flushIntervalMessages) this.flush();
    return { baseOffset, lastOffset, logAppendTimeMs: BigInt(nowMs), position };
  }

  /** Feeds the producer state every batch of `batches` (base offsets already assigned) that has a producer id. */
  private applyProducerBatches(batches: Buffer, nowMs: number): void {
    for (let p = 0; p < batches.length; p += batchSizeAt(batches, p)) {
      const b = producerBatchAt(batches, p);
      if (b !== null) this.producers.apply(b, nowMs);
    }
  }

  /**
   * The idempotent producer state after the last append (producer-state/):
   * Partition checks client batches against it before appending them.
   */
  get producerState(): ProducerStateManager {
    return this.producers.state;
  }

  /** Forgets producers idle for `expirationMs` (producer.id.expiration.ms); returns how many. */
  removeExpiredProducers(nowMs: number, expirationMs: number): number {
    this.checkOpen();
    return this.producers.removeExpired(nowMs, expirationMs);
  }

  /** ProducerStateLog: the header of every batch whose last offset is >= fromOffset, in order. */
  scanBatchHeaders(fromOffset: bigint, visit: (header: Buffer, at: number) => void): void {
    for (let i = this.floorSegment(fromOffset); i < this.segments.length; i++) {
      (this.segments[i] as LogSegment).forEachBatchHeader((info, _epoch, header, at) => {
        if (info.lastOffset >= fromOffset) visit(header, at);
      });
    }
  }

  /** Rolls a new active segment at the log end offset (no-op when the active one is empty). */
  roll(): void {
    this.checkOpen();
    if (this.active.sizeBytes > 0) this.rollAt(this.clock.nowMs());
  }

  private rollAt(nowMs: number): LogSegment {
    const old = this.active;
    old.onBecomeInactive();
    // The state covers exactly the offsets below the new segment (Kafka snapshots at every roll).
    this.producers.snapshot(old.nextOffset, this.startOffset);
    const seg = LogSegment.create(this.fs, this.dir, old.nextOffset, this.cfg, nowMs);
    this.segments.push(seg);
    // Kafka flushes a rolled segment in the background; maybeFlush does it here.
    this.rolledSinceFlush = true;
    return seg;
  }

  /** Index of the last segment whose base offset is <= offset (0 when none). */
  private floorSegment(offset: bigint): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.segments[mid] as LogSegment).baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /**
   * Stored bytes from the batch containing startOffset on: whole batches up
   * to maxBytes (the last one may be cut there), never a batch reaching
   * maxOffsetExclusive. Reading at exactly the log end offset returns nothing.
   */
  read(startOffset: bigint, maxBytes: number, opts: ReadOptions = {}): ReadResult {
    this.checkOpen();
    const logStartOffset = this.startOffset;
    const logEndOffset = this.logEndOffset;
    if (startOffset < logStartOffset || startOffset > logEndOffset) {
      return { kind: 'offset_out_of_range', logStartOffset, logEndOffset };
    }
    const chunks: Buffer[] = [];
    let sizeBytes = 0;
    let partialTail = false;
    const bound = opts.maxOffsetExclusive !== undefined && opts.maxOffsetExclusive < logEndOffset
      ? opts.maxOffsetExclusive
      : logEndOffset;
    let remaining = Math.max(0, maxBytes);
    const minOneBatch = opts.minOneBatch ?? true;
    for (let i = this.floorSegment(startOffset); i < this.segments.length && startOffset < bound; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.baseOffset >= bound) break;
      if (seg.sizeBytes === 0 || startOffset >= seg.nextOffset) continue;
      const first = seg.translateOffset(startOffset > seg.baseOffset ? startOffset : seg.baseOffset);
      const endPosition = this.boundPosition(seg, bound);
      const available = endPosition - first.position;
      if (available <= 0) break;
      const limit = chunks.length === 0 && minOneBatch ? Math.max(remaining, first.sizeBytes) : remaining;
      const n = Math.min(available, limit);
      if (n <= 0) break;
      chunks.push(seg.read(first.position, n, opts.allocate));
      sizeBytes += n;
      remaining -= n;
      if (n < available) {
        partialTail = !this.endsOnBatch(seg, first.position, first.position + n);
        break;
      }
      if (endPosition < seg.sizeBytes || remaining <= 0) break;
    }
    return { kind: 'records', chunks, sizeBytes, partialTail, logStartOffset, logEndOffset };
  }

  /** Whether `end` is a batch boundary, walking headers from `from` (only after a cut). */
  private endsOnBatch(seg: LogSegment, from: number, end: number): boolean {
    let p = from;
    while (p < end) {
      const header = seg.read(p, 12);
      if (header.length < 12) return false;
      p += 12 + header.readInt32BE(8);
    }
    return p === end;
  }

  /** Position in `seg` where batches containing offsets >= bound start. */
  private boundPosition(seg: LogSegment, bound: bigint): number {
    if (bound >= seg.nextOffset) return seg.sizeBytes;
    if (bound <= seg.baseOffset) return 0;
    const c = this.boundCache;
    if (c !== null && c.bound === bound && c.segment === seg) return c.position;
    const position = seg.translateOffset(bound).position;
    this.boundCache = { bound, segment: seg, position };
    return position;
  }

  /**
   * The first batch (from the log start on) whose maxTimestamp >= timestampMs:
   * its base offset (at least the log start offset) and max timestamp. Records
   * are opaque here, so this is batch-granular; null when there is none.
   */
  offsetForTimestamp(timestampMs: bigint): TimestampOffset | null {
    this.checkOpen();
    for (let i = this.floorSegment(this.startOffset); i < this.segments.length; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.maxTimestampMs < timestampMs) continue;
      const found = seg.findByTimestamp(timestampMs, this.startOffset);
      if (found === null) continue;
      const offset = found.baseOffset > this.startOffset ? found.baseOffset : this.startOffset;
      return { offset, timestampMs: found.maxTimestampMs };
    }
    return null;
  }

  /**
   * Largest timestamp in the log and the last offset of the (first) batch
   * holding it (ListOffsets MAX_TIMESTAMP); null when no batch has one.
   */
  maxTimestamp(): TimestampOffset | null {
    let best: TimestampOffset | null = null;
    for (let i = this.floorSegment(this.startOffset); i < this.segments.length; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.maxTimestampMs >= 0n && (best === null || seg.maxTimestampMs > best.timestampMs)) {
        best = { offset: seg.offsetOfMaxTimestamp, timestampMs: seg.maxTimestampMs };
      }
    }
    return best;
  }

  /**
   * DeleteRecords: moves the log start offset up to `offset` (<= log end
   * offset) and deletes the segments wholly below it.
   */
  deleteRecordsBefore(offset: bigint): { kind: 'ok'; logStartOffset: bigint } | { kind: 'offset_out_of_range' } {
    this.checkOpen();
    if (offset > this.logEndOffset || offset < 0n) return { kind: 'offset_out_of_range' };
    if (offset <= this.startOffset) return { kind: 'ok', logStartOffset: this.startOffset };
    // A crash must not lose data below the new start offset (it would leave start > end).
    if (offset > this.recoveryPointOffset) this.flush();
    this.startOffset = offset;
    if (this.active.sizeBytes > 0 && this.active.nextOffset <= offset) this.rollAt(this.clock.nowMs());
    while (this.segments.length > 1 && (this.segments[1] as LogSegment).baseOffset <= offset) this.deleteFirstSegment();
    this.producers.prune(this.startOffset);
    this.onCheckpointNeeded();
    return { kind: 'ok', logStartOffset: this.startOffset };
  }

  private deleteFirstSegment(): number {
    const seg = this.segments.shift() as LogSegment;
    if (this.boundCache?.segment === seg) this.boundCache = null;
    const size = seg.sizeBytes;
    seg.delete();
    return size;
  }

  /**
   * Removes every batch containing an offset >= `offset` (replication's
   * truncation). A batch straddling `offset` goes whole, so the new log end
   * offset may be below it. Made durable before returning.
   */
  truncateTo(offset: bigint): void {
    this.checkOpen();
    if (offset >= this.logEndOffset) return;
    if (offset <= this.startOffset) {
      this.truncateFullyAndStartAt(offset);
      return;
    }
    this.truncations++;
    this.boundCache = null;
    while (this.active.baseOffset >= offset) this.segments.pop()?.delete();
    const seg = this.active;
    seg.truncateTo(offset);
    if (this.logEndOffset < this.startOffset) {
      // The batch holding the start offset went: nothing visible is left.
      this.truncateFullyAndStartAt(this.startOffset);
      return;
    }
    seg.flush();
    if (this.recoveryPointOffset > this.logEndOffset) this.recoveryPointOffset = this.logEndOffset;
    this.producers.truncateTo(this as ProducerStateLog, this.clock.nowMs());
    this.onCheckpointNeeded();
  }

  /** Deletes every segment and starts empty at `offset` (log start = end = offset). */
  truncateFullyAndStartAt(offset: bigint): void {
    this.checkOpen();
    invariant(offset >= 0n, 'offsets are not negative');
    this.truncations++;
    this.boundCache = null;
    const nowMs = this.clock.nowMs();
    while (this.segments.length > 0) this.segments.pop()?.delete();
    this.producers.reset();
    this.segments.push(LogSegment.create(this.fs, this.dir, offset, this.cfg, nowMs));
    this.startOffset = offset;
    this.recoveryPointOffset = offset;
    this.rolledSinceFlush = false;
    this.onCheckpointNeeded();
  }

  /**
   * Deletes rolled segments (never the active one) from the oldest while any
   * of these holds: wholly below the log start offset; largest timestamp
   * older than retentionMs; the log stays >= retentionBytes without it.
   * The last two only apply when `delete` is in the cleanup policy.
   */
  applyRetention(nowMs: number, maxSegments = Number.MAX_SAFE_INTEGER): RetentionResult {
    this.checkOpen();
    let total = this.sizeBytes;
    let segmentsDeleted = 0;
    let bytesDeleted = 0;
    const { retentionMs, retentionBytes } = this.cfg;
    const deletePolicy = compactionConfigOf(this.cfg).cleanupPolicy.delete;
    while (this.segments.length > 1 && segmentsDeleted < maxSegments) {
      const seg = this.segments[0] as LogSegment;
      const next = this.segments[1] as LogSegment;
      const largestMs = seg.maxTimestampMs >= 0n ? Number(seg.maxTimestampMs) : seg.lastModifiedMs;
      const belowStart = next.baseOffset <= this.startOffset;
      const expired = deletePolicy && retentionMs >= 0 && nowMs - largestMs > retentionMs;
      const tooBig = deletePolicy && retentionBytes >= 0 && total - seg.sizeBytes >= retentionBytes;
      if (!belowStart && !expired && !tooBig) break;
      const size = this.deleteFirstSegment();
      total -= size;
      bytesDeleted += size;
      segmentsDeleted++;
    }
    const first = this.segments[0] as LogSegment;
    if (first.baseOffset > this.startOffset) this.startOffset = first.baseOffset;
    if (segmentsDeleted > 0) this.producers.prune(this.startOffset);
    return { segmentsDeleted, bytesDeleted, logStartOffset: this.startOffset };
  }

  /** fsyncs everything not yet flushed; the recovery point becomes the log end offset. */
  flush(): void {
    this.checkOpen();
    for (let i = this.floorSegment(this.recoveryPointOffset); i < this.segments.length; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.dirty) seg.flush();
    }
    this.recoveryPointOffset = this.logEndOffset;
    this.rolledSinceFlush = false;
    this.lastFlushMs = this.clock.nowMs();
  }

  /**
   * Timer hook: flushes when data has been unflushed for flushIntervalMs, and
   * otherwise fsyncs segments rolled since the last flush (moving the recovery
   * point to the active segment). Returns whether it fsynced anything.
   */
  maybeFlush(nowMs: number): boolean {
    this.checkOpen();
    if (this.unflushedMessages > 0 && nowMs - this.lastFlushMs >= this.cfg.flushIntervalMs) {
      this.flush();
      return true;
    }
    if (!this.rolledSinceFlush) return false;
    const activeIndex = this.segments.length - 1;
    for (let i = this.floorSegment(this.recoveryPointOffset); i < activeIndex; i++) {
      const seg = this.segments[i] as LogSegment;
      if (seg.dirty) seg.flush();
    }
    if (this.active.baseOffset > this.recoveryPointOffset) this.recoveryPointOffset = this.active.baseOffset;
    this.rolledSinceFlush = false;
    return true;
  }

  /** Clean close: flush, then close every file. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.producers.snapshot(this.logEndOffset, this.startOffset);
    for (const seg of this.segments) seg.close();
    this.closed = true;
  }

  /**
   * Removes the log: closes its files, renames the directory to
   * `<dir>.<n>-delete` (a crash then leaves nothing that looks live; the
   * LogManager finishes the job at start-up) and removes it.
   */
  delete(): void {
    if (!this.closed) for (const seg of this.segments) seg.close();
    this.closed = true;
    let n = this.clock.nowMs();
    while (this.fs.exists(`${this.dir}.${n}-delete`)) n++;
    const doomed = `${this.dir}.${n}-delete`;
    this.fs.rename(this.dir, doomed);
    this.fs.rmrf(doomed);
  }

  /**
   * The partition's `leader-epoch-checkpoint` (owned by replication's leader
   * epoch cache): entries, null when absent, or a problem string when it
   * does not parse (the caller rebuilds with scanLeaderEpochs).
   */
  readLeaderEpochCheckpoint(): EpochEntry[] | null | string {
    this.checkOpen();
    return readLeaderEpochCheckpoint(this.fs, join(this.dir, LEADER_EPOCH_CHECKPOINT));
  }

  /** Replaces the `leader-epoch-checkpoint` atomically (fsynced before returning). */
  writeLeaderEpochCheckpoint(entries: readonly EpochEntry[]): void {
    this.checkOpen();
    writeLeaderEpochCheckpoint(this.fs, join(this.dir, LEADER_EPOCH_CHECKPOINT), entries);
  }

  /**
   * Leader epoch changes recorded in the stored batch headers, from the log
   * start on: (epoch, first offset) each time partitionLeaderEpoch changes.
   * Batches without an epoch (-1) are skipped. Reads every batch header once;
   * for rebuilding a missing or damaged leader-epoch-checkpoint. An epoch
   * lower than one already seen (not written by a correct leader) is
   * reported as it is; the cache decides what to keep.
   */
  scanLeaderEpochs(): EpochEntry[] {
    this.checkOpen();
    const found: EpochEntry[] = [];
    let latest = -1;
    for (let i = this.floorSegment(this.startOffset); i < this.segments.length; i++) {
      (this.segments[i] as LogSegment).forEachBatchHeader((info, epoch) => {
        if (epoch < 0 || epoch === latest || info.lastOffset < this.startOffset) return;
        latest = epoch;
        found.push({ epoch, startOffset: info.baseOffset > this.startOffset ? info.baseOffset : this.startOffset });
      });
    }
    return found;
  }

  /** For diagnostics and tests: path of a segment file. */
  segmentPath(baseOffset: bigint, suffix: string): string {
    return join(this.dir, baseOffset.toString().padStart(20, '0') + suffix);
  }
}

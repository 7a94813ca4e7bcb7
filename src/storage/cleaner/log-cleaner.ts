/**
 * The log cleaner (Kafka's LogCleaner): compacts logs whose cleanup.policy
 * includes `compact`, keeping the latest record of every key. It never
 * blocks produce or fetch: the broker calls `cleanOneStep(nowMs)` from a
 * timer, never two at once, and each call does a bounded amount of work
 * (about `stepBytesMax` of segment bytes read) and may await codecs.
 *
 * A cleaning job on one log:
 *   select  the log with the highest dirty ratio among those due (ratio >=
 *           min.cleanable.dirty.ratio, or dirty records older than
 *           max.compaction.lag.ms, or kept tombstones past their horizon;
 *           dirty-section.ts measures each log, cleaning-job.ts holds the job);
 *   map     key -> latest offset over the dirty section [firstDirty, limit),
 *           limit = min(active segment base, cleanableBound, first segment
 *           with records newer than min.compaction.lag.ms), stopping early
 *           when the map is full (endOffset = where it stopped);
 *   clean   every rolled segment from the log start up to endOffset is
 *           rewritten to `<base>.*.cleaned` (filterBatch) and swapped in
 *           (segment-swap.ts); a segment that would not change is left alone;
 *   done    firstDirty = endOffset, written to cleaner-offset-checkpoint.
 * See src/storage/README.md ("Log compaction") for invariants and crashes.
 */
import { join } from 'node:path';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { BATCH_LOG_OVERHEAD, batchSizeAt, isControlBatch, readBatchHeader } from '../../protocol/record-batch/header.js';
import { decodeRecordBatch } from '../../protocol/record-batch/reader.js';
import { StorageError } from '../errors.js';
import { invariant } from '../../util/assert.js';
import { readCheckpointFile, writeCheckpointFile, type CheckpointEntry } from '../checkpoint.js';
import { compactionConfigOf } from '../config.js';
import type { FileSystem } from '../fs.js';
import type { PartitionLog } from '../partition-log.js';
import { LogSegment } from '../segment.js';
import { filterBatch, type FilterContext } from './batch-filter.js';
import { nameOf, newJob, staleReason, type Job, type LogState } from './cleaning-job.js';
import { dueDirtySection } from './dirty-section.js';
import { OFFSET_MAP_ENTRIES_MAX_DEFAULT } from './offset-map.js';
import { CLEANED_SUFFIX, swapInCleanedFiles, type SwapPoint } from './segment-swap.js';

export const CLEANER_OFFSET_CHECKPOINT = 'cleaner-offset-checkpoint';
export const CLEANER_STEP_BYTES_DEFAULT = 2 * 1024 * 1024;
export const CLEANER_BACKOFF_MS_DEFAULT = 15_000;

export interface LogCleanerOptions {
  /** Segment bytes read per cleanOneStep (at least one whole batch). */
  stepBytesMax?: number;
  /** Distinct keys the offset map may hold; a bigger dirty section takes several jobs. */
  offsetMapEntriesMax?: number;
  /** log.cleaner.backoff.ms: after finding nothing to clean, look again only this much later. */
  backoffMs?: number;
  /**
   * Offsets at or above this are never cleaned (the broker passes the high
   * watermark / last stable offset, so nothing a follower may still
   * truncate is compacted). Default: the log end offset.
   */
  cleanableBound?: (log: PartitionLog) => bigint;
  /** Test hook: called at each point of the swap protocol. */
  onSwapPoint?: (point: SwapPoint, log: PartitionLog) => void;
}

export interface LogCleanerDeps extends LogCleanerOptions {
  fs: FileSystem;
  dataDir: string;
  /** The logs to consider (the LogManager's). */
  logs: () => Iterable<PartitionLog>;
}

export type CleanerStepKind =
  | 'idle' // nothing to clean (or backing off)
  | 'mapped' // offset map advanced
  | 'cleaned' // a slice of a segment rewritten
  | 'swapped' // a cleaned segment put in place
  | 'completed' // the job finished; checkpoint written
  | 'aborted' // the log changed under the job (truncated, deleted, segment removed); work discarded
  | 'failed'; // corrupt data: the log is marked uncleanable until restart

export interface CleanerStepResult {
  kind: CleanerStepKind;
  /** `<topic>-<partition>` of the log worked on. */
  log: string | null;
  bytesRead: number;
  recordsRemoved: number;
  /** For 'failed' and 'aborted'. */
  reason: string | null;
}

export class LogCleaner {
  private readonly states = new Map<PartitionLog, LogState>();
  private readonly checkpointed: Map<string, bigint>;
  private job: Job | null = null;
  private running = false;
  private idleUntilMs = Number.NEGATIVE_INFINITY;
  private closed = false;
  readonly checkpointProblem: string | null;

  constructor(private readonly deps: LogCleanerDeps) {
    const read = readCheckpointFile(deps.fs, join(deps.dataDir, CLEANER_OFFSET_CHECKPOINT));
    this.checkpointProblem = typeof read === 'string' ? read : null;
    const entries = read === null || typeof read === 'string' ? [] : read;
    this.checkpointed = new Map(entries.map((e) => [`${e.topic}-${e.partition}`, e.offset]));
  }

  private get stepBytesMax(): number {
    return this.deps.stepBytesMax ?? CLEANER_STEP_BYTES_DEFAULT;
  }

  private get offsetMapEntriesMax(): number {
    return this.deps.offsetMapEntriesMax ?? OFFSET_MAP_ENTRIES_MAX_DEFAULT;
  }

  /** The first dirty offset the cleaner holds for a log (clean below it), or null when unknown. */
  firstDirtyOffset(log: PartitionLog): bigint | null {
    return this.states.get(log)?.firstDirty ?? this.checkpointed.get(nameOf(log)) ?? null;
  }

  /** Why a log is not being cleaned (corrupt data met), or null. */
  uncleanableReason(log: PartitionLog): string | null {
    return this.states.get(log)?.uncleanable ?? null;
  }

  /**
   * One bounded slice of cleaning work. Never call it again before the
   * returned promise settles. Storage errors other than corrupt batches
   * (I/O failures) are thrown: the broker treats them as fatal.
   */
  async cleanOneStep(nowMs: number): Promise<CleanerStepResult> {
    invariant(!this.running, 'cleanOneStep calls do not overlap');
    invariant(!this.closed, 'the cleaner is open');
    this.running = true;
    try {
      let job = this.job;
      if (job === null) {
        if (nowMs < this.idleUntilMs) return this.result('idle', null);
        job = this.select(nowMs);
        if (job === null) {
          this.idleUntilMs = nowMs + (this.deps.backoffMs ?? CLEANER_BACKOFF_MS_DEFAULT);
          return this.result('idle', null);
        }
        this.job = job;
      }
      const stale = staleReason(job);
      if (stale !== null) return this.abort(job, 'aborted', stale);
      try {
        return job.phase === 'map' ? await this.mapStep(job) : await this.cleanStep(job, nowMs);
      } catch (err) {
        if (!isCorruptData(err)) throw err;
        job.state.uncleanable = `${(err as Error).message}`;
        return this.abort(job, 'failed', job.state.uncleanable);
      }
    } finally {
      this.running = false;
    }
  }

  /** Runs steps until the cleaner is idle (tests, benchmarks, tools). */
  async cleanUntilIdle(nowMs: number, stepsMax = Number.MAX_SAFE_INTEGER): Promise<CleanerStepResult[]> {
    const results: CleanerStepResult[] = [];
    this.idleUntilMs = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < stepsMax; i++) {
      const r = await this.cleanOneStep(nowMs);
      results.push(r);
      if (r.kind === 'idle') break;
    }
    return results;
  }

  /** Drops a log's job and state (before the log is deleted). */
  forget(log: PartitionLog): void {
    if (this.job?.log === log) this.abort(this.job, 'aborted', 'log deleted');
    this.states.delete(log);
    this.checkpointed.delete(nameOf(log));
  }

  /** Abandons any job (removing its temporary files) and writes the checkpoint. */
  close(): void {
    if (this.closed) return;
    if (this.job !== null) this.abort(this.job, 'aborted', 'shutting down');
    this.writeCheckpoint();
    this.closed = true;
  }

  private result(kind: CleanerStepKind, job: Job | null, bytesRead = 0, recordsRemoved = 0, reason: string | null = null): CleanerStepResult {
    return { kind, log: job === null ? null : nameOf(job.log), bytesRead, recordsRemoved, reason };
  }

  private stateOf(log: PartitionLog): LogState {
    let state = this.states.get(log);
    if (state === undefined) {
      state = {
        firstDirty: this.checkpointed.get(nameOf(log)) ?? log.logStartOffset,
        truncationsSeen: log.truncationCount,
        horizonMs: null,
        uncleanable: null,
      };
      this.states.set(log, state);
    }
    return state;
  }

  // ---------------------------------------------------------------- select

  /** Picks the filthiest log that is due and sets up its job, or null. */
  private select(nowMs: number): Job | null {
    let best: { job: Job; ratio: number } | null = null;
    for (const log of this.deps.logs()) {
      if (log.isClosed) continue;
      const cc = compactionConfigOf(log.config);
      if (!cc.cleanupPolicy.compact) continue;
      const state = this.stateOf(log);
      if (state.uncleanable !== null) continue;
      const due = dueDirtySection(log, state, cc, nowMs, this.deps.cleanableBound);
      if (due === null) continue;
      if (best === null || due.rank > best.ratio) {
        best = { job: newJob(log, state, due.firstDirty, due.limit, this.offsetMapEntriesMax), ratio: due.rank };
      }
    }
    return best?.job ?? null;
  }

  private abort(job: Job, kind: 'aborted' | 'failed', reason: string): CleanerStepResult {
    job.aborted = true;
    if (job.out !== null) {
      job.out.delete();
      job.out = null;
    }
    if (this.job === job) this.job = null;
    return this.result(kind, job, 0, 0, reason);
  }

  // ------------------------------------------------------------------- map

  /** Whole batches from `position`: about stepBytesMax, at least one. */
  private readChunk(seg: LogSegment, position: number): Buffer {
    const want = Math.min(this.stepBytesMax, seg.sizeBytes - position);
    let chunk = seg.read(position, Math.max(want, BATCH_LOG_OVERHEAD));
    const first = chunk.length >= BATCH_LOG_OVERHEAD ? batchSizeAt(chunk) : 0;
    if (first > chunk.length) chunk = seg.read(position, first);
    let end = 0;
    while (end + BATCH_LOG_OVERHEAD <= chunk.length) {
      const size = batchSizeAt(chunk, end);
      if (end + size > chunk.length) break;
      end += size;
    }
    return chunk.subarray(0, end);
  }

  private async mapStep(job: Job): Promise<CleanerStepResult> {
    const seg = job.mapSegment;
    if (seg === null) return this.startCleaning(job, job.limit);
    const chunk = this.readChunk(seg, job.mapPosition);
    // Work = bytes read + bytes decompressed: a 2 MiB slice of lz4 can hold 100 MiB of records.
    let work = 0;
    let p = 0;
    while (p < chunk.length && (p === 0 || work < this.stepBytesMax)) {
      const size = batchSizeAt(chunk, p);
      const header = readBatchHeader(chunk, p);
      if (header.baseOffset >= job.limit) return this.startCleaning(job, job.limit);
      const mapped = !isControlBatch(header.attributes) && !job.abortedTxns.covers(chunk, p);
      if (mapped && header.baseOffset + BigInt(header.lastOffsetDelta) >= job.firstDirty) {
        if (job.map.size > 0 && job.map.wouldOverflow(header.recordsCount)) {
          return this.startCleaning(job, header.baseOffset > job.firstDirty ? header.baseOffset : job.firstDirty);
        }
        const batch = chunk.subarray(p, p + size);
        const { records } = await decodeRecordBatch(batch);
        if (job.aborted) return this.result('aborted', job, 0, 0, 'aborted');
        const base = Number(header.baseOffset);
        const from = Number(job.firstDirty);
        const to = Number(job.limit);
        for (const r of records) {
          const offset = base + r.offsetDelta;
          if (r.key !== null && offset >= from && offset < to) job.map.put(r.key, offset);
          work += (r.key?.length ?? 0) + (r.value?.length ?? 0) + 8;
        }
      }
      job.endOffset = header.baseOffset + BigInt(header.lastOffsetDelta) + 1n;
      p += size;
      work += size;
    }
    job.mapPosition += p;
    if (job.mapPosition >= seg.sizeBytes) {
      const segs = job.log.segmentList();
      const next = segs[segs.indexOf(seg) + 1];
      job.mapSegment = next !== undefined && next !== segs[segs.length - 1] && next.baseOffset < job.limit ? next : null;
      job.mapPosition = 0;
      if (job.mapSegment === null) return this.startCleaning(job, job.limit);
    }
    return this.result('mapped', job, p);
  }

  private startCleaning(job: Job, endOffset: bigint): CleanerStepResult {
    job.endOffset = endOffset < job.limit ? endOffset : job.limit;
    if (job.endOffset < job.firstDirty) job.endOffset = job.firstDirty;
    job.phase = 'clean';
    job.mapSegment = null;
    const segs = job.log.segmentList();
    job.toClean = segs.slice(0, -1).filter((s) => s.baseOffset < job.endOffset && s.nextOffset > job.log.logStartOffset && s.sizeBytes > 0);
    job.cleanIndex = 0;
    if (job.toClean.length === 0) return this.complete(job);
    return this.result('mapped', job);
  }

  // ----------------------------------------------------------------- clean

  private async cleanStep(job: Job, nowMs: number): Promise<CleanerStepResult> {
    const src = job.toClean[job.cleanIndex] as LogSegment;
    const log = job.log;
    if (job.out === null) {
      job.out = LogSegment.create(this.deps.fs, log.dir, src.baseOffset, log.config, nowMs, CLEANED_SUFFIX);
      job.srcPosition = 0;
      job.changed = false;
    }
    const chunk = this.readChunk(src, job.srcPosition);
    const cc = compactionConfigOf(log.config);
    const ctx: FilterContext = { map: job.map, endOffset: job.endOffset, nowMs, deleteRetentionMs: cc.deleteRetentionMs, txns: job.txns };
    const outputs: Buffer[] = [];
    let removed = 0;
    let work = 0;
    let p = 0;
    while (p < chunk.length && (p === 0 || work < this.stepBytesMax)) {
      const size = batchSizeAt(chunk, p);
      const isLast = job.srcPosition + p + size === src.sizeBytes;
      const outcome = await filterBatch(chunk.subarray(p, p + size), isLast, ctx);
      if (job.aborted) return this.result('aborted', job, 0, 0, 'aborted');
      if (outcome.batch !== null) outputs.push(outcome.batch);
      if (outcome.changed) job.changed = true;
      if (outcome.horizonMs !== null && (job.horizonMs === null || outcome.horizonMs > job.horizonMs)) job.horizonMs = outcome.horizonMs;
      removed += outcome.recordsRemoved;
      p += size;
      work += size + outcome.plainBytes;
    }
    // Awaits happened: make sure the log still is what the job planned on.
    const stale = staleReason(job);
    if (stale !== null) return this.abort(job, 'aborted', stale);
    const out = job.out;
    if (outputs.length > 0) out.appendWithOffsets(Buffer.concat(outputs), log.config.indexIntervalBytes, nowMs);
    job.srcPosition += p;
    if (job.srcPosition < src.sizeBytes) return this.result('cleaned', job, p, removed);
    this.writeCleanedTxnIndex(job, src, out);
    const swapped = this.finishSegment(job, src, out, nowMs);
    job.cleanIndex++;
    if (job.cleanIndex >= job.toClean.length) return this.complete(job, p, removed);
    return this.result(swapped ? 'swapped' : 'cleaned', job, p, removed);
  }

  /**
   * The `.txnindex` of the cleaned copy: the original's entries but those of
   * aborted transactions with no batch left (offsets never move, so the rest
   * hold as they are). Dropping one counts as a change of the segment.
   */
  private writeCleanedTxnIndex(job: Job, src: LogSegment, out: LogSegment): void {
    const original = src.txnIndex.all();
    const retained = job.txns.retainedEntries(original);
    if (retained.length !== original.length) job.changed = true;
    if (!job.changed) return;
    out.txnIndex.reset();
    for (const e of retained) out.txnIndex.append(e);
  }

  /** Swaps the cleaned copy in (or drops it when nothing changed); true when swapped. */
  private finishSegment(job: Job, src: LogSegment, out: LogSegment, nowMs: number): boolean {
    job.out = null;
    if (!job.changed) {
      out.delete();
      return false;
    }
    invariant(out.nextOffset === src.nextOffset, 'a cleaned segment ends where the original did');
    const log = job.log;
    out.onBecomeInactive();
    out.flush();
    out.close();
    const hook = this.deps.onSwapPoint;
    swapInCleanedFiles(this.deps.fs, log.dir, src.baseOffset, (point) => hook?.(point, log));
    const seg = LogSegment.open(this.deps.fs, log.dir, src.baseOffset, log.config, nowMs);
    if (!seg.loadIndexes(log.config.indexIntervalBytes)) seg.recover(log.config.indexIntervalBytes);
    // The swap put the cleaned copy's .txnindex in place; should it not load, write its entries again.
    if (seg.txnIndexNeedsRebuild !== null) {
      seg.txnIndex.reset();
      for (const e of job.txns.retainedEntries(src.txnIndex.all())) seg.txnIndex.append(e);
      seg.txnIndex.sync();
      seg.txnIndexNeedsRebuild = null;
    }
    seg.onBecomeInactive();
    seg.lastModifiedMs = src.lastModifiedMs;
    log.replaceSegment(src, seg);
    return true;
  }

  private complete(job: Job, bytesRead = 0, recordsRemoved = 0): CleanerStepResult {
    job.state.firstDirty = job.endOffset;
    job.state.horizonMs = job.horizonMs;
    job.state.truncationsSeen = job.log.truncationCount;
    this.job = null;
    this.writeCheckpoint();
    return this.result('completed', job, bytesRead, recordsRemoved);
  }

  private writeCheckpoint(): void {
    const entries: CheckpointEntry[] = [];
    for (const log of this.deps.logs()) {
      const offset = this.firstDirtyOffset(log);
      if (offset === null || log.isClosed) continue;
      entries.push({ topic: log.topic, partition: log.partition, offset });
    }
    writeCheckpointFile(this.deps.fs, join(this.deps.dataDir, CLEANER_OFFSET_CHECKPOINT), entries);
  }
}

/** Corrupt bytes in a segment (DecodeError from the codec or framing). */
function isCorruptData(err: unknown): boolean {
  return err instanceof DecodeError || (err instanceof StorageError && err.code === 'ERR_TRIB_STORAGE_CORRUPT');
}


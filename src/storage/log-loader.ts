/**
 * Opening a partition directory: find the segments, trust the ones flushed
 * before the recovery point (load and sanity-check their indexes, rebuilding
 * them when wrong), and fully validate everything from the recovery point's
 * segment on (at least the active segment). The first invalid or torn batch
 * ends the log: its file is cut there and every later segment is dropped.
 * Nothing is logged here; the RecoveryReport says what happened.
 */
import { join } from 'node:path';
import type { LogConfig } from './config.js';
import type { FileSystem } from './fs.js';
import { LOG_SUFFIX, LogSegment, parseSegmentFileName, type SegmentRecovery } from './segment.js';
import { SNAPSHOT_SUFFIX } from './producer-state/snapshot.js';
import type { ProducerStateLoad } from './producer-state/log-producer-state.js';
import type { TxnIndexRebuild } from './txn-index-rebuild.js';

export interface RecoveryReport {
  dir: string;
  hadCleanShutdown: boolean;
  /** The checkpointed recovery point used, or null when there was none (all segments scanned). */
  recoveryPoint: bigint | null;
  segmentsLoaded: number;
  /** Base offsets of the segments fully validated. */
  segmentsScanned: bigint[];
  bytesScanned: number;
  /** Segments cut short, with the reason and how many bytes went. */
  truncations: SegmentRecovery[];
  /** Base offsets of the segments removed because an earlier one was cut. */
  segmentsDropped: bigint[];
  /** Rolled segments whose index files were missing or wrong and were rebuilt. */
  indexesRebuilt: bigint[];
  /** Leftover files removed (temporary files, indexes without a log). */
  strayFilesDeleted: string[];
  logStartOffset: bigint;
  logEndOffset: bigint;
  /** Filled by PartitionLog.open: how the idempotent producer state was loaded. */
  producerState?: ProducerStateLoad;
  /** Filled by PartitionLog.open: `.txnindex` files rebuilt from the log (unreadable, or their segment recovered). */
  txnIndexes?: TxnIndexRebuild;
}

export interface LoadOptions {
  fs: FileSystem;
  dir: string;
  config: LogConfig;
  nowMs: number;
  recoveryPoint: bigint | null;
  logStartOffset: bigint | null;
  hadCleanShutdown: boolean;
  /**
   * false: segments validated by recovery are not fsynced here; they stay
   * dirty and the recovery point stays below them (`LoadedLog.recoveryPoint`),
   * so a crash before the next flush scans them again. Saves three fsyncs
   * per partition on start-up after a crash. Default true (the metadata log).
   */
  syncRecovered?: boolean;
  /** The directory is known to exist (listed by the caller): no mkdir call. */
  dirExists?: boolean;
}

export interface LoadedLog {
  segments: LogSegment[];
  logStartOffset: bigint;
  /** Everything below it is fsynced: the log end offset, or the base of the first segment recovered without fsync. */
  recoveryPoint: bigint;
  report: RecoveryReport;
  /** The directory's file names when it was listed (before segments were cut or created). */
  fileNames: readonly string[];
}

const STRAY_SUFFIXES = ['.tmp', '.deleted', '.swap', '.cleaned'];

/** Segment base offsets that have a .log file; removes strays and orphan indexes. */
function listSegments(fs: FileSystem, names: readonly string[], dir: string, strays: string[]): bigint[] {
  const logs = new Set<bigint>();
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    if (parsed !== null && parsed.suffix === LOG_SUFFIX) logs.add(parsed.baseOffset);
  }
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    // Producer state snapshots are named by offset, not by segment: never orphans.
    const orphan = parsed !== null && parsed.suffix !== LOG_SUFFIX && parsed.suffix !== SNAPSHOT_SUFFIX && !logs.has(parsed.baseOffset);
    if (orphan || STRAY_SUFFIXES.some((s) => name.endsWith(s))) {
      fs.rmrf(join(dir, name));
      strays.push(name);
    }
  }
  return [...logs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Index of the last base offset <= offset (0 when all are greater). */
function floorIndex(bases: bigint[], offset: bigint): number {
  let found = 0;
  for (let i = 0; i < bases.length; i++) if ((bases[i] as bigint) <= offset) found = i;
  return found;
}

/**
 * Opens the segment files in offset order: trusted ones (below the recovery
 * point's segment) get their indexes loaded, the rest are validated. Stops at
 * the first cut (a torn or invalid batch, a gap or an overlap) and deletes
 * every later segment. May return no segment (an empty directory).
 */
function openSegments(opts: LoadOptions, bases: bigint[], report: RecoveryReport): { segments: LogSegment[]; firstUnsynced: bigint | null } {
  const { fs, dir, config, nowMs } = opts;
  const sync = opts.syncRecovered ?? true;
  // After a clean shutdown every segment was flushed and its indexes written
  // (Kafka skips recovery then too): all are trusted, each still sanity-checked
  // by loadIndexes and rebuilt when that fails. Without a recovery point
  // nothing is known to be flushed: scan everything.
  const recoverFrom = opts.hadCleanShutdown && opts.recoveryPoint !== null
    ? bases.length
    : opts.recoveryPoint === null ? 0 : Math.min(floorIndex(bases, opts.recoveryPoint), bases.length - 1);
  let firstUnsynced: bigint | null = null;
  const segments: LogSegment[] = [];
  let cut = false;
  let prevScanned = false;
  for (let i = 0; i < bases.length; i++) {
    const base = bases[i] as bigint;
    if (cut) {
      LogSegment.open(fs, dir, base, config, nowMs).delete();
      report.segmentsDropped.push(base);
      continue;
    }
    const seg = LogSegment.open(fs, dir, base, config, nowMs);
    const prev = segments[segments.length - 1];
    let recovery: SegmentRecovery | null = null;
    if (i < recoverFrom && seg.loadIndexes(config.indexIntervalBytes)) {
      // trusted and consistent
    } else {
      if (i < recoverFrom) report.indexesRebuilt.push(base);
      else report.segmentsScanned.push(base);
      report.bytesScanned += seg.sizeBytes;
      recovery = seg.recover(config.indexIntervalBytes, sync);
      if (!sync && firstUnsynced === null) firstUnsynced = base;
    }
    // Segments we write are contiguous. An overlap is not our log; a gap after
    // a segment that was not known flushed means its tail was lost in a crash.
    const gap = prev !== undefined && base > prev.nextOffset && prevScanned;
    if (prev !== undefined && (base < prev.nextOffset || gap)) {
      report.truncations.push({
        baseOffset: prev.baseOffset,
        validBytes: prev.sizeBytes,
        truncatedBytes: 0,
        reason: `segment ends at offset ${prev.nextOffset} but the next one starts at ${base}`,
      });
      seg.delete();
      report.segmentsDropped.push(base);
      cut = true;
      continue;
    }
    prevScanned = recovery !== null;
    segments.push(seg);
    if (recovery !== null && recovery.reason !== null) {
      report.truncations.push(recovery);
      cut = true;
    }
  }
  return { segments, firstUnsynced };
}

export function loadLog(opts: LoadOptions): LoadedLog {
  const { fs, dir, config, nowMs } = opts;
  if (opts.dirExists !== true) fs.mkdirp(dir);
  const report: RecoveryReport = {
    dir,
    hadCleanShutdown: opts.hadCleanShutdown,
    recoveryPoint: opts.recoveryPoint,
    segmentsLoaded: 0,
    segmentsScanned: [],
    bytesScanned: 0,
    truncations: [],
    segmentsDropped: [],
    indexesRebuilt: [],
    strayFilesDeleted: [],
    logStartOffset: 0n,
    logEndOffset: 0n,
  };
  const names = fs.readdir(dir);
  const bases = listSegments(fs, names, dir, report.strayFilesDeleted);
  const opened = openSegments(opts, bases, report);
  const segments = opened.segments;
  let firstUnsynced = opened.firstUnsynced;
  if (segments.length === 0) segments.push(LogSegment.create(fs, dir, opts.logStartOffset ?? 0n, config, nowMs));
  const first = segments[0] as LogSegment;
  const last = segments[segments.length - 1] as LogSegment;
  let logStartOffset = opts.logStartOffset ?? 0n;
  if (logStartOffset < first.baseOffset) logStartOffset = first.baseOffset;
  if (logStartOffset > last.nextOffset) {
    // Everything up to the start offset is gone (it was deleted, then data was lost): start over there.
    for (const seg of segments) {
      seg.delete();
      report.segmentsDropped.push(seg.baseOffset);
    }
    segments.length = 0;
    segments.push(LogSegment.create(fs, dir, logStartOffset, config, nowMs));
    firstUnsynced = null;
  }
  for (let i = 0; i < segments.length - 1; i++) (segments[i] as LogSegment).onBecomeInactive();
  report.segmentsLoaded = segments.length;
  report.logStartOffset = logStartOffset;
  report.logEndOffset = (segments[segments.length - 1] as LogSegment).nextOffset;
  const recoveryPoint = firstUnsynced !== null && firstUnsynced < report.logEndOffset ? firstUnsynced : report.logEndOffset;
  // Without the strays removed; snapshots beyond the end are the producer state's to delete.
  const remaining = report.strayFilesDeleted.length === 0 ? names : names.filter((n) => !report.strayFilesDeleted.includes(n));
  return { segments, logStartOffset, recoveryPoint, report, fileNames: remaining };
}

/**
 * Loading one __consumer_offsets partition when this broker becomes its
 * leader: read the log from its start to its end, in bounded
 * chunks with a yield to the event loop between them, and keep the latest
 * record per key, tombstones applied. The result is exactly what a full log
 * compaction would keep (minus tombstones), whether or not the cleaner ran.
 *
 * - Records are compared by log offset, so replay order does not matter:
 *   a record replaces the kept one for its key only when it is later in the log.
 * - Transactional batches (TxnOffsetCommit, for the transaction coordinator)
 *   are held per producer id until their marker: COMMIT applies them (still
 *   by log offset, as compaction would), ABORT drops them. Those without a
 *   marker in the log stay pending: returned apart (`pendingTxnOffsets`),
 *   for the marker that completes them later.
 * - The end is the log end offset, not the high watermark (Kafka's
 *   GroupMetadataManager does the same): a leader's log is never cut while it
 *   leads, so all of it is the partition's future. A follower just elected
 *   often has a high watermark one fetch behind its log; a marker in that gap
 *   was already acknowledged to the transaction coordinator, which will not
 *   send it again, so stopping at the high watermark left its offsets pending
 *   for good (OffsetFetch with RequireStable answered UNSTABLE_OFFSET_COMMIT
 *   forever, and the group's consumer never started).
 * - Bad input does not stop the load: a batch that fails its CRC or does not
 *   decode, a key or value that does not parse, a key of a newer Kafka record
 *   type (KIP-848...) are skipped and counted in `stats`; a log whose bytes
 *   end inside a batch ends the load there. Storage errors (StorageError)
 *   propagate.
 */
import { DecodeError } from '../../../protocol/primitives/decode-error.js';
import { ControlRecordType, parseControlRecord } from '../../../protocol/record-batch/builder.js';
import {
  BATCH_HEADER_BYTES,
  isControlBatch,
  isTransactionalBatch,
  lastOffsetOf,
  readBatchHeader,
} from '../../../protocol/record-batch/header.js';
import { decodeRecordBatch, iterateBatches, recordOffset } from '../../../protocol/record-batch/reader.js';
import type { KafkaRecord } from '../../../protocol/record-batch/record.js';
import type { Partition } from '../../../replication/partition.js';
import type { CommittedOffset, GroupSnapshot, LoadedPartitionState } from '../types.js';
import { OffsetsStoreError } from './errors.js';
import { decodeGroupMetadataValue, decodeOffsetCommitValue, decodeRecordKey } from './records.js';

/** Bytes read from the log per step (Kafka's offsets.load.buffer.size default is 5 MiB; we keep steps short). */
export const OFFSETS_LOAD_READ_BYTES_DEFAULT = 1024 * 1024;

export interface OffsetsLoadOptions {
  /** Bytes per log read; a batch larger than this is still read whole. */
  readonly readBytesMax?: number;
  /** Aborts between chunks with OffsetsStoreError('load_aborted'). */
  readonly signal?: AbortSignal;
  /** Between chunks; default setImmediate (lets the broker serve other requests). */
  readonly yieldToEventLoop?: () => Promise<void>;
}

export interface OffsetsLoadStats {
  /** The range replayed: [startOffset, endOffset) (end = the log end offset when the load finished). */
  startOffset: bigint;
  endOffset: bigint;
  bytesRead: number;
  batches: number;
  records: number;
  /** Null keys, undecodable keys or values, keys of unknown record types. */
  skippedRecords: number;
  /** Batches that failed CRC or decoding. */
  corruptBatches: number;
  abortedTransactionalRecords: number;
  /** Transactional records with no marker yet (not part of the result). */
  pendingTransactionalRecords: number;
}

export interface OffsetsLoadResult extends LoadedPartitionState {
  readonly stats: OffsetsLoadStats;
}

/** The latest record seen for one key; value null = tombstone. */
interface Kept<T> {
  logOffset: bigint;
  value: T | null;
}

type Change =
  | { kind: 'group'; groupId: string; logOffset: bigint; value: GroupSnapshot | null }
  | { kind: 'offset'; groupId: string; tp: string; logOffset: bigint; value: CommittedOffset | null };

function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** Replays batches into "latest value per key" state. Exported for tests and tools. */
export class OffsetsReplay {
  private readonly groups = new Map<string, Kept<GroupSnapshot>>();
  private readonly offsets = new Map<string, Map<string, Kept<CommittedOffset>>>();
  private readonly pending = new Map<bigint, Change[]>();
  readonly stats: OffsetsLoadStats = {
    startOffset: 0n,
    endOffset: 0n,
    bytesRead: 0,
    batches: 0,
    records: 0,
    skippedRecords: 0,
    corruptBatches: 0,
    abortedTransactionalRecords: 0,
    pendingTransactionalRecords: 0,
  };

  /**
   * Applies one whole batch; records below `fromOffset` (under the log start
   * offset) are ignored. Returns false when the batch was corrupt.
   */
  async applyBatch(batch: Buffer, fromOffset = -1n): Promise<boolean> {
    let decoded;
    try {
      decoded = await decodeRecordBatch(batch);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.stats.corruptBatches++;
      return false;
    }
    const { header, records } = decoded;
    this.stats.batches++;
    if (isControlBatch(header.attributes)) {
      this.applyMarker(header.producerId, records[0]);
      return true;
    }
    const transactional = isTransactionalBatch(header.attributes);
    for (const r of records) {
      const logOffset = recordOffset(header, r);
      if (logOffset < fromOffset) continue;
      this.stats.records++;
      const change = this.toChange(r, logOffset);
      if (change === null) continue;
      if (!transactional) {
        this.apply(change);
        continue;
      }
      let list = this.pending.get(header.producerId);
      if (list === undefined) {
        list = [];
        this.pending.set(header.producerId, list);
      }
      list.push(change);
    }
    return true;
  }

  /** Applies every whole batch of concatenated log bytes; a truncated tail is ignored. */
  async applyLogBytes(buf: Buffer): Promise<void> {
    for (const batch of framedBatches(buf)) await this.applyBatch(batch);
  }

  private applyMarker(producerId: bigint, record: KafkaRecord | undefined): void {
    if (record === undefined) return;
    let type: number;
    try {
      type = parseControlRecord(record.key, record.value).type;
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.stats.skippedRecords++;
      return;
    }
    if (type !== ControlRecordType.Commit && type !== ControlRecordType.Abort) return;
    const list = this.pending.get(producerId);
    if (list === undefined) return;
    this.pending.delete(producerId);
    if (type === ControlRecordType.Abort) {
      this.stats.abortedTransactionalRecords += list.length;
      return;
    }
    for (const change of list) this.apply(change);
  }

  private toChange(r: KafkaRecord, logOffset: bigint): Change | null {
    if (r.key === null) {
      this.stats.skippedRecords++;
      return null;
    }
    try {
      const key = decodeRecordKey(r.key);
      if (key.kind === 'unknown') {
        this.stats.skippedRecords++;
        return null;
      }
      if (key.kind === 'group') {
        const value = r.value === null ? null : decodeGroupMetadataValue(r.value, key.groupId);
        return { kind: 'group', groupId: key.groupId, logOffset, value };
      }
      const value = r.value === null ? null : decodeOffsetCommitValue(r.value, key.topic, key.partition);
      return { kind: 'offset', groupId: key.groupId, tp: tpKey(key.topic, key.partition), logOffset, value };
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.stats.skippedRecords++;
      return null;
    }
  }

  /** Keeps the change if it is later in the log than what is kept for its key. */
  private apply(change: Change): void {
    if (change.kind === 'group') {
      const kept = this.groups.get(change.groupId);
      if (kept === undefined || kept.logOffset < change.logOffset) {
        this.groups.set(change.groupId, { logOffset: change.logOffset, value: change.value });
      }
      return;
    }
    let byTp = this.offsets.get(change.groupId);
    if (byTp === undefined) {
      byTp = new Map();
      this.offsets.set(change.groupId, byTp);
    }
    const kept = byTp.get(change.tp);
    if (kept === undefined || kept.logOffset < change.logOffset) {
      byTp.set(change.tp, { logOffset: change.logOffset, value: change.value });
    }
  }

  /** The live state: groups and offsets whose latest record is not a tombstone, sorted. */
  result(): OffsetsLoadResult {
    let pendingRecords = 0;
    for (const list of this.pending.values()) pendingRecords += list.length;
    this.stats.pendingTransactionalRecords = pendingRecords;
    const groups: GroupSnapshot[] = [];
    for (const groupId of [...this.groups.keys()].sort()) {
      const value = this.groups.get(groupId)?.value;
      if (value !== undefined && value !== null) groups.push(value);
    }
    const offsets = new Map<string, CommittedOffset[]>();
    for (const groupId of [...this.offsets.keys()].sort()) {
      const live: CommittedOffset[] = [];
      for (const kept of this.offsets.get(groupId)?.values() ?? []) if (kept.value !== null) live.push(kept.value);
      if (live.length === 0) continue;
      live.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
      offsets.set(groupId, live);
    }
    return { groups, offsets, pendingTxnOffsets: this.pendingTxnOffsets(), stats: { ...this.stats } };
  }

  /** Transactional offsets with no marker yet: the group coordinator keeps them pending until it arrives. */
  private pendingTxnOffsets(): Map<string, Map<bigint, CommittedOffset[]>> {
    const out = new Map<string, Map<bigint, CommittedOffset[]>>();
    for (const [producerId, changes] of this.pending) {
      for (const c of changes) {
        if (c.kind !== 'offset' || c.value === null) continue;
        const byProducer = out.get(c.groupId) ?? new Map<bigint, CommittedOffset[]>();
        const list = byProducer.get(producerId) ?? [];
        list.push(c.value);
        byProducer.set(producerId, list);
        out.set(c.groupId, byProducer);
      }
    }
    return out;
  }
}

/** Whole batches of `buf`; stops at a truncated tail or a length too small to frame. */
function* framedBatches(buf: Buffer): Generator<Buffer, void, undefined> {
  try {
    yield* iterateBatches(buf);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
  }
}

function defaultYield(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Loads one partition: [logStartOffset, logEndOffset), the end read again
 * after each step (appends during the load are read), in
 * chunks of `readBytesMax`. The caller answers COORDINATOR_LOAD_IN_PROGRESS
 * for the partition's groups until this resolves.
 */
export async function loadOffsetsPartition(partition: Partition, options: OffsetsLoadOptions = {}): Promise<OffsetsLoadResult> {
  const readBytesMax = options.readBytesMax ?? OFFSETS_LOAD_READ_BYTES_DEFAULT;
  const yieldToEventLoop = options.yieldToEventLoop ?? defaultYield;
  const replay = new OffsetsReplay();
  let endOffset = partition.log.logEndOffset;
  let offset = partition.logStartOffset;
  replay.stats.startOffset = offset;
  while (offset < endOffset) {
    if (options.signal?.aborted === true) {
      throw new OffsetsStoreError('load_aborted', `loading ${partition.topic}-${partition.partition} was aborted at offset ${offset}`);
    }
    const r = partition.log.read(offset, readBytesMax, { maxOffsetExclusive: endOffset, minOneBatch: true });
    if (r.kind === 'offset_out_of_range') {
      // The start moved up (DeleteRecords) under us: continue from there. Past the end: done.
      if (offset < r.logStartOffset) {
        offset = r.logStartOffset;
        continue;
      }
      break;
    }
    let next = offset;
    for (const chunk of r.chunks) {
      replay.stats.bytesRead += chunk.length;
      for (const batch of framedBatches(chunk)) {
        const last = batch.length >= BATCH_HEADER_BYTES ? lastOffsetOf(readBatchHeader(batch)) : -1n;
        if (last < next) continue; // already applied, or too short to carry offsets
        const ok = await replay.applyBatch(batch, offset);
        // A corrupt batch's header is not trusted beyond the range being loaded.
        if (ok || last < endOffset) next = last + 1n;
      }
    }
    if (next <= offset) break; // nothing whole left below the end
    offset = next;
    await yieldToEventLoop();
    // What was appended meanwhile is read too (Kafka re-reads the end the
    // same way): a marker written while the load ran completes its offsets
    // here, since the coordinator hears of it only once the load is done.
    endOffset = partition.log.logEndOffset;
  }
  replay.stats.endOffset = endOffset;
  return replay.result();
}

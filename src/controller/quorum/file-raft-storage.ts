/**
 * RaftStorage on the data dir: the Raft log is the ordinary storage
 * PartitionLog at `<dataDir>/__cluster_metadata-0/` (so a data dir written by
 * the former one-voter LocalMetadataLog opens unchanged), the vote in `quorum-state`,
 * snapshots in `<nextRecordOffset>-<epoch>.checkpoint` files next to them.
 *
 * Mapping: one Raft entry = one record batch. The entry's epoch is the batch's
 * partitionLeaderEpoch; a `leader_change` entry is a control batch (KRaft's
 * LeaderChangeMessage). Raft offsets count entries; the batches keep Kafka
 * record offsets, assigned by the PartitionLog on append, identical on every
 * voter because their logs agree on every prefix they share. Batches written
 * by the former LocalMetadataLog have epoch 0; the core treats them as entries before
 * any election (epoch 0 sorts below every real epoch).
 *
 * The whole log is mirrored in memory (entry bytes and offsets): the metadata
 * log is small and snapshots bound it; Raft reads entries on every fetch.
 *
 * Durability (RaftStorage contract): `append` writes through the
 * PartitionLog's page cache, durable only at `flush()` (fsync);
 * `truncateTo`, `writeQuorumState`, `writeSnapshot`, `deleteBefore` and
 * `installSnapshot` are durable when they return. Opening recovers: the
 * PartitionLog drops a torn tail; entries below the latest snapshot are
 * deleted (a `deleteBefore`/`installSnapshot` cut short by a crash is
 * finished here); damaged snapshot files are ignored and removed.
 */
import { join } from 'node:path';
import { invariant } from '../../util/assert.js';
import type { Clock } from '../../util/clock.js';
import { batchCrcIsValid, batchSizeAt, BATCH_HEADER_BYTES, isControlBatch, readBatchHeader, setPartitionLeaderEpoch, splitBatches } from '../../protocol/record-batch/index.js';
import { DEFAULT_LOG_CONFIG, PartitionLog, type FileSystem, type LogConfig } from '../../storage/index.js';
import { METADATA_DIR_NAME, METADATA_PARTITION, METADATA_TOPIC, MetadataLogError } from '../metadata-log.js';
import { lastEpochOf, type QuorumStateRecord, type RaftStorage } from '../raft/storage.js';
import type { NodeId, RaftEntry, RaftSnapshot } from '../raft/types.js';
import {
  buildLeaderChangeBatch,
  decodeSnapshotFile,
  encodeSnapshotFile,
  parseSnapshotFileName,
  snapshotFileName,
  snapshotNextRecordOffset,
} from './snapshot-format.js';

export const QUORUM_STATE_FILE = 'quorum-state';
/** Bytes per read while loading the log into memory at open. */
const LOAD_READ_BYTES_MAX = 1024 * 1024;
/** Snapshot files kept besides the latest (older ones are deleted). */
const SNAPSHOTS_KEPT = 2;

export interface FileRaftStorageOptions {
  fs: FileSystem;
  clock: Clock;
  dataDir: string;
  /** This node (written as LeaderId into the leader-change batches it creates). */
  nodeId: NodeId;
  voters: readonly NodeId[];
  /** Segment settings; retention is forced off. */
  logConfig?: Partial<LogConfig> | undefined;
}

interface StoredEntry {
  readonly entry: RaftEntry;
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
}

interface StoredSnapshot extends RaftSnapshot {
  readonly nextRecordOffset: bigint;
  readonly fileName: string;
}

export class FileRaftStorage implements RaftStorage {
  private readonly log: PartitionLog;
  private readonly dir: string;
  private entries: StoredEntry[] = [];
  /** Entry offset of entries[0]. */
  private start = 0;
  private flushed = 0;
  private quorum: QuorumStateRecord;
  private snapshots: StoredSnapshot[] = [];
  /** Damaged files found at open (ignored), for the caller to log. */
  readonly warnings: string[] = [];

  constructor(private readonly opts: FileRaftStorageOptions) {
    this.dir = join(opts.dataDir, METADATA_DIR_NAME);
    const config: LogConfig = { ...DEFAULT_LOG_CONFIG, ...opts.logConfig, retentionMs: -1, retentionBytes: -1 };
    this.log = PartitionLog.open({ fs: opts.fs, clock: opts.clock, dir: this.dir, topic: METADATA_TOPIC, partition: METADATA_PARTITION, config }).log;
    this.quorum = this.loadQuorumState();
    this.loadSnapshots();
    this.loadEntries();
  }

  // ---- quorum state -------------------------------------------------------------------

  private get quorumPath(): string {
    return join(this.dir, QUORUM_STATE_FILE);
  }

  private loadQuorumState(): QuorumStateRecord {
    if (!this.opts.fs.exists(this.quorumPath)) return { epoch: 0, votedFor: null };
    const text = this.opts.fs.readFile(this.quorumPath).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    const o = parsed as { leaderEpoch?: unknown; votedId?: unknown } | null;
    const epoch = o?.leaderEpoch;
    const voted = o?.votedId;
    if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 0 || typeof voted !== 'number' || !Number.isSafeInteger(voted)) {
      throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `${this.quorumPath} is damaged (${JSON.stringify(text.slice(0, 80))}); it holds this voter's vote, so it is not recreated silently`);
    }
    return { epoch, votedFor: voted < 0 ? null : voted };
  }

  readQuorumState(): QuorumStateRecord {
    return this.quorum;
  }

  /** KRaft's quorum-state JSON (leaderId is not known to the storage: -1). Atomic and durable on return. */
  writeQuorumState(state: QuorumStateRecord): void {
    invariant(state.epoch >= this.quorum.epoch, `the epoch never goes back (${this.quorum.epoch} -> ${state.epoch})`);
    const json = JSON.stringify({ leaderId: -1, leaderEpoch: state.epoch, votedId: state.votedFor ?? -1, data_version: 0 });
    this.opts.fs.writeFileAtomic(this.quorumPath, Buffer.from(`${json}\n`, 'utf8'));
    this.quorum = state;
  }

  // ---- log ----------------------------------------------------------------------------

  get logStartOffset(): number {
    return this.start;
  }

  get endOffset(): number {
    return this.start + this.entries.length;
  }

  get flushedEndOffset(): number {
    return this.flushed;
  }

  /** Record offset where the next batch goes (the PartitionLog's end). */
  get nextRecordOffset(): bigint {
    return this.log.logEndOffset;
  }

  entryAt(offset: number): RaftEntry | undefined {
    return offset >= this.start ? this.entries[offset - this.start]?.entry : undefined;
  }

  /** Record offsets of the batch of entry `offset`. */
  recordRange(offset: number): { baseOffset: bigint; lastOffset: bigint } | undefined {
    const e = offset >= this.start ? this.entries[offset - this.start] : undefined;
    return e === undefined ? undefined : { baseOffset: e.baseOffset, lastOffset: e.lastOffset };
  }

  read(fromOffset: number, countMax: number): RaftEntry[] {
    invariant(fromOffset >= this.start && fromOffset <= this.endOffset, `read at ${fromOffset} within [${this.start}, ${this.endOffset}]`);
    return this.entries.slice(fromOffset - this.start, fromOffset - this.start + countMax).map((e) => e.entry);
  }

  append(entries: readonly RaftEntry[]): void {
    for (const entry of entries) {
      invariant(entry.epoch >= lastEpochOf(this), 'epochs in the log never decrease');
      const bytes = this.batchBytes(entry);
      const appended = this.log.append(bytes); // assigns (and writes into `bytes`) the base offset
      this.entries.push({ entry: { epoch: entry.epoch, kind: entry.kind, data: bytes }, baseOffset: appended.baseOffset, lastOffset: appended.lastOffset });
    }
  }

  /** One batch for the entry, owned by the storage, with the entry's epoch as partitionLeaderEpoch. */
  private batchBytes(entry: RaftEntry): Buffer {
    if (entry.kind === 'leader_change' && entry.data.length === 0) {
      return buildLeaderChangeBatch(entry.epoch, this.opts.nodeId, this.opts.voters, this.opts.clock.nowMs());
    }
    const bytes = Buffer.from(entry.data); // a copy: the log rewrites the base offset in place
    invariant(bytes.length >= BATCH_HEADER_BYTES && batchSizeAt(bytes) === bytes.length, 'a Raft entry is exactly one record batch');
    invariant(isControlBatch(readBatchHeader(bytes).attributes) === (entry.kind === 'leader_change'), 'control batches are leader-change entries and only those');
    setPartitionLeaderEpoch(bytes, entry.epoch);
    return bytes;
  }

  truncateTo(endOffset: number): void {
    invariant(endOffset >= this.start && endOffset <= this.endOffset, `truncate to ${endOffset} within [${this.start}, ${this.endOffset}]`);
    if (endOffset === this.endOffset) return;
    const first = this.entries[endOffset - this.start];
    invariant(first !== undefined, 'the first truncated entry exists');
    this.log.truncateTo(first.baseOffset); // durable when it returns
    this.entries.length = endOffset - this.start;
    this.flushed = Math.min(this.flushed, endOffset);
  }

  flush(): void {
    this.log.flush();
    this.flushed = this.endOffset;
  }

  // ---- snapshots ----------------------------------------------------------------------

  latestSnapshot(): RaftSnapshot | null {
    const s = this.snapshots[this.snapshots.length - 1];
    return s === undefined ? null : { endOffset: s.endOffset, epoch: s.epoch, data: s.data };
  }

  writeSnapshot(snapshot: RaftSnapshot): void {
    const latest = this.snapshots[this.snapshots.length - 1];
    invariant(latest === undefined || snapshot.endOffset > latest.endOffset, `a new snapshot ends after the latest (${latest?.endOffset} -> ${snapshot.endOffset})`);
    const nextRecordOffset = snapshotNextRecordOffset(snapshot.data);
    const fileName = snapshotFileName(nextRecordOffset, snapshot.epoch);
    const data = Buffer.from(snapshot.data);
    this.opts.fs.writeFileAtomic(join(this.dir, fileName), encodeSnapshotFile({ endOffset: snapshot.endOffset, epoch: snapshot.epoch, data }));
    this.snapshots.push({ endOffset: snapshot.endOffset, epoch: snapshot.epoch, data, nextRecordOffset, fileName });
    while (this.snapshots.length > SNAPSHOTS_KEPT) {
      const old = this.snapshots.shift() as StoredSnapshot;
      this.opts.fs.unlink(join(this.dir, old.fileName));
    }
  }

  deleteBefore(offset: number): void {
    invariant(offset >= this.start && offset <= this.endOffset, `delete before ${offset} within [${this.start}, ${this.endOffset}]`);
    const latest = this.snapshots[this.snapshots.length - 1];
    invariant(latest !== undefined && offset <= latest.endOffset, `a snapshot covers the deleted prefix (to ${offset})`);
    if (offset === this.start) return;
    const recordOffset = offset === this.endOffset ? this.log.logEndOffset : (this.entries[offset - this.start] as StoredEntry).baseOffset;
    const r = this.log.deleteRecordsBefore(recordOffset);
    invariant(r.kind === 'ok', `delete records before ${recordOffset}`);
    this.entries = this.entries.slice(offset - this.start);
    this.start = offset;
    this.flushed = Math.max(this.flushed, offset);
  }

  installSnapshot(snapshot: RaftSnapshot): void {
    // Snapshot file first: a crash after it leaves a snapshot beyond the log, which open() finishes.
    const current = this.snapshots[this.snapshots.length - 1];
    const again = current !== undefined && current.endOffset === snapshot.endOffset && current.epoch === snapshot.epoch;
    if (!again) this.writeSnapshot(snapshot); // (again: finishing an install the open found cut short)
    const latest = this.snapshots[this.snapshots.length - 1] as StoredSnapshot;
    this.log.truncateFullyAndStartAt(latest.nextRecordOffset);
    this.entries = [];
    this.start = snapshot.endOffset;
    this.flushed = snapshot.endOffset;
  }

  close(): void {
    if (!this.log.isClosed) this.log.close();
  }

  // ---- open ---------------------------------------------------------------------------

  private loadSnapshots(): void {
    const found: StoredSnapshot[] = [];
    for (const name of this.opts.fs.readdir(this.dir)) {
      const id = parseSnapshotFileName(name);
      if (id === null) continue;
      const parsed = decodeSnapshotFile(this.opts.fs.readFile(join(this.dir, name)));
      let problem = typeof parsed === 'string' ? parsed : null;
      if (typeof parsed !== 'string') {
        try {
          if (snapshotNextRecordOffset(parsed.data) !== id.nextRecordOffset || parsed.epoch !== id.epoch) problem = 'name and content disagree';
        } catch (err) {
          problem = (err as Error).message;
        }
        if (problem === null) found.push({ ...parsed, nextRecordOffset: id.nextRecordOffset, fileName: name });
      }
      if (problem !== null) {
        this.warnings.push(`snapshot ${name} ignored and removed: ${problem}`);
        this.opts.fs.unlink(join(this.dir, name));
      }
    }
    this.snapshots = found.sort((a, b) => a.endOffset - b.endOffset);
  }

  /** Reads every batch into memory, placing the log in entry offsets after the latest snapshot. */
  private loadEntries(): void {
    const latest = this.snapshots[this.snapshots.length - 1];
    if (latest !== undefined) {
      const next = latest.nextRecordOffset;
      if (this.log.logEndOffset <= next || this.log.logStartOffset > next || !this.hasBatchAt(next)) {
        // An install cut short (or a log wholly below the snapshot): the snapshot is the state.
        if (!(this.log.logStartOffset === next && this.log.logEndOffset === next)) this.log.truncateFullyAndStartAt(next);
      } else if (this.log.logStartOffset < next) {
        const r = this.log.deleteRecordsBefore(next); // a deleteBefore cut short
        invariant(r.kind === 'ok', 'delete below the snapshot');
      }
      this.start = latest.endOffset;
    } else if (this.log.logStartOffset !== 0n) {
      throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `${this.dir} starts at offset ${this.log.logStartOffset} but has no snapshot covering what came before`);
    }
    this.entries = [];
    let offset = this.log.logStartOffset;
    const end = this.log.logEndOffset;
    while (offset < end) {
      const read = this.log.read(offset, LOAD_READ_BYTES_MAX);
      if (read.kind !== 'records' || read.sizeBytes === 0) throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `${this.dir}: cannot read at offset ${offset}`);
      const batches = splitBatches(Buffer.concat(read.chunks, read.sizeBytes));
      if (batches.length === 0) throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `${this.dir}: no whole batch at offset ${offset}`);
      for (const b of batches) {
        const h = readBatchHeader(b);
        const last = h.baseOffset + BigInt(h.lastOffsetDelta);
        if (last < offset) continue;
        if (h.baseOffset !== offset || !batchCrcIsValid(b)) throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `${this.dir}: bad batch at offset ${h.baseOffset} (expected ${offset})`);
        const kind = isControlBatch(h.attributes) ? 'leader_change' : 'data';
        this.entries.push({ entry: { epoch: h.partitionLeaderEpoch, kind, data: Buffer.from(b) }, baseOffset: h.baseOffset, lastOffset: last });
        offset = last + 1n;
      }
    }
    this.log.flush(); // what survived recovery is durable from here on
    this.flushed = this.endOffset;
  }

  private hasBatchAt(offset: bigint): boolean {
    const read = this.log.read(offset, BATCH_HEADER_BYTES);
    if (read.kind !== 'records' || read.sizeBytes < BATCH_HEADER_BYTES) return false;
    return readBatchHeader(Buffer.concat(read.chunks, read.sizeBytes)).baseOffset === offset;
  }
}

/**
 * Delivery of what the Raft core commits to the MetadataLog listener, for
 * RaftMetadataLog (which drives the node: clock, timer, transport, appends,
 * leadership; this part only turns commits into batches, so it is separate).
 *
 * It drains `node.pollCommitted()` and hands each committed entry to the
 * listener as a decoded MetadataBatch (record offsets from the batch; a
 * leader-change control batch has no records), in order, exactly once. A
 * snapshot event is delivered as one batch: at start (nothing delivered yet)
 * the snapshot's records; later (a follower that fell behind the leader's log
 * start) the records that turn the current image into the snapshot's
 * (image-records.ts). For this it keeps its own copy of the image (the
 * "shadow"), which is also what it snapshots: every `snapshotIntervalRecords`
 * delivered records (or `snapshotIntervalBytes` bytes) the shadow is written as
 * a snapshot at the applied offset and Raft drops the log prefix.
 */
import type { Clock } from '../../util/clock.js';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { decodeMetadataBatch, type MetadataBatch } from '../metadata/batch.js';
import { MetadataImage } from '../metadata/image.js';
import { imageDiffRecords } from '../metadata/image-records.js';
import { MetadataLogError, type CommitListener } from '../metadata-log.js';
import type { RaftNode } from '../raft/raft-node.js';
import type { RaftEntry, RaftSnapshot } from '../raft/types.js';
import { SNAPSHOT_INTERVAL_BYTES_DEFAULT, SNAPSHOT_INTERVAL_RECORDS_DEFAULT } from './raft-metadata-log-options.js';
import { decodeSnapshotPayload, encodeSnapshotPayload } from './snapshot-format.js';

export interface MetadataDeliveryOptions {
  clock: Clock;
  clusterId: string | null;
  /** Default 10 000 records; 0 = never. */
  snapshotIntervalRecords?: number | undefined;
  /** Default 16 MiB; 0 = never. */
  snapshotIntervalBytes?: number | undefined;
  /** After the entry at `entryOffset` (a Raft offset) reached the listener: the appends it completes resolve. */
  onEntryDelivered: (entryOffset: number) => void;
}

export class MetadataDelivery {
  /** Set by RaftMetadataLog.start(), before anything is delivered. */
  listener: CommitListener | null = null;
  private readonly shadow: MetadataImage;
  private deliveredAny = false;
  private lastDeliveredRecord = -1n;
  private recordsSinceSnapshot = 0;
  private bytesSinceSnapshot = 0;

  constructor(private readonly opts: MetadataDeliveryOptions) {
    this.shadow = new MetadataImage(opts.clusterId ?? '');
  }

  /** The record offset after the last record delivered (the MetadataLog's high watermark). */
  get nextRecordOffset(): bigint {
    return this.lastDeliveredRecord + 1n;
  }

  /** Drains `node.pollCommitted()` into the listener. */
  deliver(node: RaftNode): void {
    for (;;) {
      const events = node.pollCommitted();
      if (events.length === 0) return;
      for (const ev of events) {
        if (ev.kind === 'snapshot') this.deliverSnapshot(ev.snapshot);
        else ev.entries.forEach((e, i) => this.deliverEntry(ev.baseOffset + i, e));
      }
    }
  }

  private deliverEntry(offset: number, entry: RaftEntry): void {
    let batch: MetadataBatch;
    try {
      batch = decodeMetadataBatch(Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength));
    } catch (err) {
      if (err instanceof DecodeError) throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `metadata entry ${offset} does not decode: ${err.message}`, { cause: err });
      throw err;
    }
    this.apply(batch);
    this.recordsSinceSnapshot += batch.records.length;
    this.bytesSinceSnapshot += entry.data.byteLength;
    this.opts.onEntryDelivered(offset);
  }

  private deliverSnapshot(snapshot: RaftSnapshot): void {
    let payload;
    try {
      payload = decodeSnapshotPayload(snapshot.data);
    } catch (err) {
      if (err instanceof DecodeError) throw new MetadataLogError('ERR_TRIB_METADATA_CORRUPT', `metadata snapshot at ${snapshot.endOffset} does not decode: ${err.message}`, { cause: err });
      throw err;
    }
    if (payload.lastRecordOffset <= this.lastDeliveredRecord) return; // nothing new (cannot happen: snapshots move forward)
    const target = new MetadataImage(this.shadow.clusterId);
    if (payload.records.length > 0) target.apply({ baseOffset: 0n, lastOffset: payload.lastRecordOffset, epoch: snapshot.epoch, timestampMs: 0n, records: payload.records });
    const records = this.deliveredAny ? imageDiffRecords(this.shadow, target) : payload.records;
    this.apply({ baseOffset: this.lastDeliveredRecord + 1n, lastOffset: payload.lastRecordOffset, epoch: snapshot.epoch, timestampMs: 0n, records });
    this.recordsSinceSnapshot = 0;
    this.bytesSinceSnapshot = 0;
  }

  private apply(batch: MetadataBatch): void {
    this.shadow.apply(batch);
    this.deliveredAny = true;
    this.lastDeliveredRecord = batch.lastOffset;
    (this.listener as CommitListener)(batch);
  }

  /** Every `snapshotIntervalRecords` records (or `snapshotIntervalBytes` bytes) delivered: snapshots the shadow at the applied offset. */
  maybeSnapshot(node: RaftNode): void {
    const everyRecords = this.opts.snapshotIntervalRecords ?? SNAPSHOT_INTERVAL_RECORDS_DEFAULT;
    const everyBytes = this.opts.snapshotIntervalBytes ?? SNAPSHOT_INTERVAL_BYTES_DEFAULT;
    const due = (everyRecords > 0 && this.recordsSinceSnapshot >= everyRecords) || (everyBytes > 0 && this.bytesSinceSnapshot >= everyBytes);
    const applied = node.appliedOffset;
    if (!due || applied <= (node.latestSnapshot()?.endOffset ?? 0) || applied > node.highWatermark) return;
    const data = encodeSnapshotPayload(
      { nextRecordOffset: this.lastDeliveredRecord + 1n, lastRecordOffset: this.shadow.lastAppliedOffset, records: this.shadow.toRecords() },
      this.opts.clock.nowMs(),
    );
    node.createSnapshot(applied, data);
    this.recordsSinceSnapshot = 0;
    this.bytesSinceSnapshot = 0;
  }
}

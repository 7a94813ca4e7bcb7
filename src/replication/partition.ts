/**
 * A partition replica on this broker: its log plus the replication state
 * around it (leader epoch, replica set, in-sync replicas, high watermark).
 *
 * The high watermark is the offset below which every in-sync replica has the
 * data; only records below it are visible to consumers and count as
 * committed. With one replica (the single-node cluster) the ISR is this
 * broker alone, so the high watermark follows the log end offset on every
 * append; the replication issue adds followers whose fetch positions move it.
 * It never goes back (asserted).
 */
import { invariant } from '../util/assert.js';
import type { PartitionLog } from '../storage/partition-log.js';

export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  logAppendTimeMs: bigint;
}

export class Partition {
  private highWatermarkOffset: bigint;
  /** Bumped on every append; delayed fetches compare it to decide whether to look again. */
  appendedBytesTotal = 0;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    readonly localNodeId: number,
    public leaderId: number,
    public leaderEpoch: number,
    public replicas: readonly number[],
    public isr: readonly number[],
  ) {
    // On a restart the log holds only what reached this replica; on a single
    // node that is exactly what was committed.
    this.highWatermarkOffset = this.isrIsSelfOnly() ? log.logEndOffset : log.logStartOffset;
  }

  get isLeader(): boolean {
    return this.leaderId === this.localNodeId;
  }

  get highWatermark(): bigint {
    return this.highWatermarkOffset;
  }

  /** The last stable offset: the high watermark until transactions exist. */
  get lastStableOffset(): bigint {
    return this.highWatermarkOffset;
  }

  get logEndOffset(): bigint {
    return this.log.logEndOffset;
  }

  get logStartOffset(): bigint {
    return this.log.logStartOffset;
  }

  /** Appends validated batches as leader; offsets are assigned by the log. */
  appendAsLeader(batches: Buffer): AppendResult {
    invariant(this.isLeader, 'only the leader appends client batches');
    const result = this.log.append(batches);
    this.appendedBytesTotal += batches.length;
    this.maybeAdvanceHighWatermark();
    return { baseOffset: result.baseOffset, lastOffset: result.lastOffset, logAppendTimeMs: result.logAppendTimeMs };
  }

  private isrIsSelfOnly(): boolean {
    return this.isr.length === 1 && this.isr[0] === this.localNodeId;
  }

  /** The minimum log end offset over the ISR (just this broker until followers exist). */
  private maybeAdvanceHighWatermark(): void {
    if (!this.isrIsSelfOnly()) return;
    const next = this.log.logEndOffset;
    invariant(next >= this.highWatermarkOffset, 'the high watermark never goes back');
    this.highWatermarkOffset = next;
  }

  /** Log start moved (retention, DeleteRecords): the high watermark is at least there. */
  onLogStartOffsetChanged(): void {
    if (this.highWatermarkOffset < this.log.logStartOffset) this.highWatermarkOffset = this.log.logStartOffset;
  }
}

/**
 * Snapshot mechanics of the Raft core (KIP-630), kept apart from the role
 * logic in raft-node.ts: handing committed entries and snapshots to the state
 * machine, creating a snapshot and dropping the prefix, finishing an
 * interrupted install at start, serving FetchSnapshot chunks, and assembling
 * them on the follower. See README.md "Snapshots".
 */
import { invariant } from '../../util/assert.js';
import { epochAt, type RaftStorage } from './storage.js';
import type { CommittedEvent, FetchSnapshotRequest, FetchSnapshotResponse, OffsetAndEpoch, RaftSnapshot } from './types.js';

/** The cursor of what the state machine has been given (volatile: a new node starts from its snapshot). */
export class CommitDelivery {
  /** Offset after the last entry (or snapshot) handed out. */
  delivered = 0;

  constructor(private readonly log: RaftStorage) {}

  /** A snapshot first when the cursor is below the log start, then committed entries below `hw` (at most `countMax`). */
  poll(hw: number, countMax: number): CommittedEvent[] {
    invariant(countMax > 0, 'countMax is positive');
    const out: CommittedEvent[] = [];
    if (this.delivered < this.log.logStartOffset) {
      const snapshot = this.log.latestSnapshot();
      invariant(snapshot !== null && snapshot.endOffset === this.log.logStartOffset, 'a snapshot covers the deleted prefix');
      out.push({ kind: 'snapshot', snapshot });
      this.delivered = snapshot.endOffset;
    }
    if (this.delivered < hw) {
      const entries = this.log.read(this.delivered, Math.min(countMax, hw - this.delivered));
      out.push({ kind: 'entries', baseOffset: this.delivered, entries });
      this.delivered += entries.length;
    }
    return out;
  }

  /** Stores the owner's state after every entry below `endOffset` (applied and committed) and drops the prefix. */
  createSnapshot(endOffset: number, data: Uint8Array, hw: number): RaftSnapshot {
    const latest = this.log.latestSnapshot();
    invariant(Number.isSafeInteger(endOffset) && endOffset > (latest?.endOffset ?? 0), `a snapshot at ${endOffset} ends after the latest (${latest?.endOffset ?? 0})`);
    invariant(endOffset <= this.delivered && this.delivered <= hw, `a snapshot at ${endOffset} covers only applied, committed entries (applied ${this.delivered}, hw ${hw})`);
    const epoch = epochAt(this.log, endOffset - 1);
    invariant(epoch !== undefined, `the entry before ${endOffset} is in the log`);
    const snapshot: RaftSnapshot = { endOffset, epoch, data };
    this.log.writeSnapshot(snapshot);
    this.log.deleteBefore(endOffset);
    return snapshot;
  }
}

/** At start: finishes an interrupted install (a snapshot beyond the log end) or prefix deletion. */
export function recoverSnapshot(log: RaftStorage): void {
  const snapshot = log.latestSnapshot();
  if (snapshot === null) return;
  if (snapshot.endOffset > log.endOffset) log.installSnapshot(snapshot);
  else if (log.logStartOffset < snapshot.endOffset) log.deleteBefore(snapshot.endOffset);
}

/** The leader's answer to a FetchSnapshot (error, size, chunk), or null for a request to drop (bad position). */
export function snapshotChunk(log: RaftStorage, req: FetchSnapshotRequest, chunkBytesMax: number): Pick<FetchSnapshotResponse, 'error' | 'size' | 'data'> | null {
  const snapshot = log.latestSnapshot();
  if (snapshot === null || snapshot.endOffset !== req.snapshotId.offset || snapshot.epoch !== req.snapshotId.epoch) {
    return { error: 'snapshot_not_found', size: 0, data: new Uint8Array(0) };
  }
  if (!Number.isSafeInteger(req.position) || req.position < 0 || req.position > snapshot.data.length) return null;
  return { error: 'none', size: snapshot.data.length, data: snapshot.data.subarray(req.position, req.position + chunkBytesMax) };
}

/** A snapshot being pulled from the leader, chunk by chunk (follower side). */
export class SnapshotFetch {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes received so far: the position of the next chunk to ask for. */
  received = 0;

  constructor(readonly id: OffsetAndEpoch) {}

  /** True when `resp` answers this fetch at its current position. */
  answers(resp: FetchSnapshotResponse): boolean {
    return resp.snapshotId.offset === this.id.offset && resp.snapshotId.epoch === this.id.epoch && resp.position === this.received;
  }

  /** Takes a chunk (validated: network input): 'more' to ask for the next, 'done' when complete, 'invalid' to drop it. */
  accept(resp: FetchSnapshotResponse): 'more' | 'done' | 'invalid' {
    const chunk = resp.data;
    if (!Number.isSafeInteger(resp.size) || resp.size < this.received + chunk.length || (chunk.length === 0 && this.received < resp.size)) return 'invalid';
    this.chunks.push(chunk);
    this.received += chunk.length;
    return this.received < resp.size ? 'more' : 'done';
  }

  assemble(): Uint8Array {
    const data = new Uint8Array(this.received);
    let at = 0;
    for (const c of this.chunks) {
      data.set(c, at);
      at += c.length;
    }
    return data;
  }
}

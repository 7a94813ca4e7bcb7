/**
 * The last batches appended to a segment (or found by its recovery), in
 * position order: a consumer or follower at the tail fetches from one of
 * them, and LogSegment.translateOffset answers it from here without reading
 * batch headers from the file (bench/README.md, "Per-request cost"). The
 * segment clears it whenever positions or offsets are recomputed
 * (truncation, loading, recovery), so an entry always describes a batch
 * that is in the file at that position.
 */
import type { BatchInfo } from './batch-scan.js';

/** How many of the last batches are kept (up to twice this before trimming, so a trim is one splice per RECENT_BATCHES_MAX appends). */
const RECENT_BATCHES_MAX = 16;

export class RecentBatches {
  private batches: BatchInfo[] = [];

  /** A batch newly placed at the end of the segment. */
  push(b: BatchInfo): void {
    const batches = this.batches;
    if (batches.length >= 2 * RECENT_BATCHES_MAX) batches.splice(0, batches.length - RECENT_BATCHES_MAX);
    batches.push(b);
  }

  /** The batch holding `offset` (or the first after it), or null when `offset` is before the batches kept. */
  find(offset: bigint): BatchInfo | null {
    const batches = this.batches;
    if (batches.length === 0 || offset < (batches[0] as BatchInfo).baseOffset) return null;
    // Batches before batches[0] end below its base offset, so the answer is in here: the first whose last offset reaches `offset`.
    let i = batches.length - 1;
    while (i > 0 && (batches[i - 1] as BatchInfo).lastOffset >= offset) i--;
    return batches[i] as BatchInfo;
  }

  clear(): void {
    this.batches = [];
  }
}

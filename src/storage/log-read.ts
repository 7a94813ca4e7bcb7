/**
 * The read path of a partition log (Fetch): which stored bytes `read`
 * returns from a segment list, and where the high-watermark bound falls in a
 * segment, cached because consecutive fetches ask for the same bound.
 * Separate from partition-log.ts because it only reads: PartitionLog checks
 * the offset range and owns the cache's lifetime (it drops entries when
 * segments are replaced, deleted or truncated).
 */
import type { ReadAllocator } from './fs.js';
import type { LogSegment } from './segment.js';
import { floorSegment } from './segment-lookups.js';

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
      /**
       * No returned batch holds an offset at or after this one (from the
       * offset index, so a little past the last batch returned; the bound of
       * a read_committed fetch's aborted transactions). The start offset
       * when nothing was returned.
       */
      endOffsetBound: bigint;
      logStartOffset: bigint;
      logEndOffset: bigint;
    }
  | { kind: 'offset_out_of_range'; logStartOffset: bigint; logEndOffset: bigint };

/** The last maxOffsetExclusive resolved to a position, so repeated fetches don't rescan. */
export class BoundPositionCache {
  private cached: { bound: bigint; segment: LogSegment; position: number } | null = null;

  /** Position in `seg` where batches containing offsets >= bound start. */
  positionOf(seg: LogSegment, bound: bigint): number {
    if (bound >= seg.nextOffset) return seg.sizeBytes;
    if (bound <= seg.baseOffset) return 0;
    const c = this.cached;
    if (c !== null && c.bound === bound && c.segment === seg) return c.position;
    const position = seg.translateOffset(bound).position;
    this.cached = { bound, segment: seg, position };
    return position;
  }

  /** Drops the cached position if it is in `seg` (replaced or deleted). */
  forget(seg: LogSegment): void {
    if (this.cached?.segment === seg) this.cached = null;
  }

  /** Drops the cached position (truncation: positions may no longer hold). */
  clear(): void {
    this.cached = null;
  }
}

export interface SegmentsRead {
  chunks: Buffer[];
  sizeBytes: number;
  partialTail: boolean;
  endOffsetBound: bigint;
}

/**
 * The chunks of PartitionLog.read for `startOffset` inside the log and
 * `bound` (the effective maxOffsetExclusive, at most the log end offset).
 */
export function readSegments(
  segments: readonly LogSegment[],
  startOffset: bigint,
  bound: bigint,
  maxBytes: number,
  opts: ReadOptions,
  bounds: BoundPositionCache,
): SegmentsRead {
  const chunks: Buffer[] = [];
  let sizeBytes = 0;
  let partialTail = false;
  let endOffsetBound = startOffset;
  let remaining = Math.max(0, maxBytes);
  const minOneBatch = opts.minOneBatch ?? true;
  for (let i = floorSegment(segments, startOffset); i < segments.length && startOffset < bound; i++) {
    const seg = segments[i] as LogSegment;
    if (seg.baseOffset >= bound) break;
    if (seg.sizeBytes === 0 || startOffset >= seg.nextOffset) continue;
    const first = seg.translateOffset(startOffset > seg.baseOffset ? startOffset : seg.baseOffset);
    const endPosition = bounds.positionOf(seg, bound);
    const available = endPosition - first.position;
    if (available <= 0) break;
    const limit = chunks.length === 0 && minOneBatch ? Math.max(remaining, first.sizeBytes) : remaining;
    const n = Math.min(available, limit);
    if (n <= 0) break;
    chunks.push(seg.read(first.position, n, opts.allocate));
    sizeBytes += n;
    remaining -= n;
    endOffsetBound = seg.offsetUpperBoundAt(first.position + n);
    if (n < available) {
      partialTail = !endsOnBatch(seg, first.position, first.position + n);
      break;
    }
    if (endPosition < seg.sizeBytes || remaining <= 0) break;
  }
  return { chunks, sizeBytes, partialTail, endOffsetBound };
}

/** Whether `end` is a batch boundary, walking headers from `from` (only after a cut). */
function endsOnBatch(seg: LogSegment, from: number, end: number): boolean {
  let p = from;
  while (p < end) {
    const header = seg.read(p, 12);
    if (header.length < 12) return false;
    p += 12 + header.readInt32BE(8);
  }
  return p === end;
}

/**
 * Offset translation through offset syncs (MirrorMaker 2's OffsetSyncStore,
 * Kafka 3.5+, KAFKA-14666). Each source partition keeps 64 syncs:
 * `syncs[0]` is the newest, and `syncs[i]` is replaced by a new sync only
 * when the new upstream offset differs from the old one in a bit at
 * position i or above, so slot i covers a bucket of 2^i upstream offsets.
 * The store keeps precise syncs near the end of the topic and coarser ones
 * further back in bounded memory, and translation of a group that lags far
 * behind still finds a sync at or before it.
 *
 * Two departures from Kafka 3.5's store, both toward precision: the syncs
 * read at start go through the same bucket rule (Kafka 3.5 kept only the
 * newest one per partition until read-to-end, so groups that were behind at
 * start could not be translated), and the newest 1024 syncs of each
 * partition are kept exactly, so a group within 1024 * offset.lag.max
 * records of the end translates to at most offset.lag.max + 1 behind.
 *
 * Translation never lands ahead of what the group processed upstream: the
 * sync at or before the group's offset is used, plus 1 when the group is
 * past it (the record after the synced one may or may not have been
 * replicated, so more than 1 could skip records).
 */

export interface SyncPair {
  readonly upstreamOffset: bigint;
  readonly downstreamOffset: bigint;
}

const SLOTS = 64;
/** Syncs kept exactly per partition, newest last, on top of the 64 slots. */
const RECENT_MAX = 1024;

function slotMask(i: number): bigint {
  // Long.MAX_VALUE << i in two's complement, as a mask of bits i..62.
  return ((1n << 63n) - 1n) & ~((1n << BigInt(i)) - 1n);
}

export class OffsetSyncStore {
  private readonly syncs = new Map<string, SyncPair[]>();
  private readonly recent = new Map<string, SyncPair[]>();
  private readToEnd = false;

  private static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** Called once the syncs topic was read to its end at start: translation is refused before, so stale syncs are never used. */
  markReadToEnd(): void {
    this.readToEnd = true;
  }

  get isReadToEnd(): boolean {
    return this.readToEnd;
  }

  /** Applies one sync read from the topic, in topic order. */
  add(topic: string, partition: number, sync: SyncPair): void {
    const key = OffsetSyncStore.key(topic, partition);
    const current = this.syncs.get(key);
    if (current === undefined) {
      this.syncs.set(key, new Array<SyncPair>(SLOTS).fill(sync));
      this.recent.set(key, [sync]);
      return;
    }
    const first = current[0] as SyncPair;
    const recent = this.recent.get(key) ?? [];
    // Upstream went backwards (a recreated topic): older syncs are useless.
    if (first.upstreamOffset > sync.upstreamOffset) {
      current.fill(sync);
      this.recent.set(key, [sync]);
      return;
    }
    recent.push(sync);
    if (recent.length > RECENT_MAX) recent.shift();
    this.recent.set(key, recent);
    current[0] = sync;
    for (let i = 1; i < SLOTS; i++) {
      const old = current[i] as SyncPair;
      if (((old.upstreamOffset ^ sync.upstreamOffset) & slotMask(i)) === 0n) break;
      current[i] = sync;
    }
  }

  /** The newest sync at or before `upstreamOffset` (or the oldest kept, when every sync is after it). */
  private lookup(topic: string, partition: number, upstreamOffset: bigint): SyncPair | null {
    const key = OffsetSyncStore.key(topic, partition);
    const syncs = this.syncs.get(key);
    if (syncs === undefined) return null;
    const exact = newestAtOrBefore(this.recent.get(key) ?? [], upstreamOffset);
    if (exact !== null) return exact;
    for (const s of syncs) if (s.upstreamOffset <= upstreamOffset) return s;
    return syncs[SLOTS - 1] as SyncPair;
  }

  /**
   * The downstream offset for a group at `upstreamOffset` on the source
   * partition: null when it cannot be translated (not read to the end yet,
   * no sync for the partition), -1n when the group is older than every
   * sync kept (MirrorMaker answers -1 too), else sync.downstream (+1 when
   * the group is past the sync).
   */
  translateDownstream(topic: string, partition: number, upstreamOffset: bigint): bigint | null {
    if (!this.readToEnd) return null;
    const sync = this.lookup(topic, partition, upstreamOffset);
    if (sync === null) return null;
    if (sync.upstreamOffset > upstreamOffset) return -1n;
    const step = upstreamOffset === sync.upstreamOffset ? 0n : 1n;
    return sync.downstreamOffset + step;
  }

  /** The newest sync of a partition (for lag figures), or null. */
  latest(topic: string, partition: number): SyncPair | null {
    return this.syncs.get(OffsetSyncStore.key(topic, partition))?.[0] ?? null;
  }
}

/** Binary search of syncs sorted by upstream offset: the last one at or before `offset`. */
function newestAtOrBefore(sorted: readonly SyncPair[], offset: bigint): SyncPair | null {
  let lo = 0;
  let hi = sorted.length - 1;
  let found: SyncPair | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = sorted[mid] as SyncPair;
    if (s.upstreamOffset <= offset) {
      found = s;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * When the source task emits an offset sync for a partition (MirrorMaker's
 * PartitionState, with `offset.lag.max`): on the first record of this task's
 * life, when the translated offset (one past the last sync) would lag the
 * real one by `offset.lag.max` or more, when upstream skipped offsets
 * (compaction, transaction markers), or when downstream went backwards.
 */
export class SyncRule {
  private previousUpstream = -1n;
  private previousDownstream = -1n;
  private lastSyncDownstream = -1n;
  private pending = false;

  constructor(private readonly maxOffsetLag: bigint) {}

  /** Records one replicated record; true when a sync is due (it stays due until `sent`). */
  update(upstreamOffset: bigint, downstreamOffset: bigint): boolean {
    const first = this.lastSyncDownstream === -1n;
    const tooStale = downstreamOffset - (this.lastSyncDownstream + 1n) >= this.maxOffsetLag;
    const skipped = upstreamOffset - this.previousUpstream !== 1n;
    const truncated = downstreamOffset < this.previousDownstream;
    if (first || tooStale || skipped || truncated) {
      this.lastSyncDownstream = downstreamOffset;
      this.pending = true;
    }
    this.previousUpstream = upstreamOffset;
    this.previousDownstream = downstreamOffset;
    return this.pending;
  }

  sent(): void {
    this.pending = false;
  }
}

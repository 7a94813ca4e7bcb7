/**
 * An in-memory GroupPersistence: keeps the latest record per key (as the
 * compacted __consumer_offsets topic would), records every call, and can fail
 * writes on demand. Writes complete in call order (a log): immediately, when
 * the test releases them ('manual'), or after a virtual delay.
 */
import type { CommittedOffset, GroupPersistence, GroupSnapshot, LoadedPartitionState, OffsetTombstone, Timers } from '../../../../src/coordinator/group/types.js';

export type PersistenceCall =
  | { readonly kind: 'group'; readonly groupId: string; readonly snapshot: GroupSnapshot | null }
  | { readonly kind: 'offsets'; readonly groupId: string; readonly commits: readonly (CommittedOffset | OffsetTombstone)[] };

interface Op {
  readonly call: PersistenceCall;
  readonly fail: boolean;
  readonly epoch: number;
  readonly resolve: () => void;
  readonly reject: (e: Error) => void;
}

export type CompletionMode = { readonly kind: 'immediate' } | { readonly kind: 'manual' } | { readonly kind: 'delayed'; readonly timers: Timers; readonly delayMs: () => number };

export class PersistenceError extends Error {
  constructor(readonly errorCode?: number) {
    super('injected persistence failure');
  }
}

export class FakePersistence implements GroupPersistence {
  readonly groups = new Map<string, GroupSnapshot>();
  readonly offsets = new Map<string, Map<string, CommittedOffset>>();
  readonly calls: PersistenceCall[] = [];
  /** Fails the next n writes. */
  failNext = 0;
  /** Fails every write while true. */
  failAll = false;
  /** The error code carried by injected failures (undefined = a plain failure). */
  failCode: number | undefined = undefined;
  private queue: Op[] = [];
  private epoch = 0;
  private lastDueMs = 0;
  private mode: CompletionMode;

  constructor(mode: CompletionMode = { kind: 'immediate' }) {
    this.mode = mode;
  }

  setMode(mode: CompletionMode): void {
    this.mode = mode;
  }

  storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    return this.enqueue({ kind: 'group', groupId, snapshot });
  }

  storeOffsets(groupId: string, commits: readonly (CommittedOffset | OffsetTombstone)[]): Promise<void> {
    return this.enqueue({ kind: 'offsets', groupId, commits: [...commits] });
  }

  /** Writes not completed yet. */
  get inFlight(): number {
    return this.queue.length;
  }

  /** Completes the oldest n writes (manual mode). */
  release(n = Infinity): void {
    for (let i = 0; i < n && this.queue.length > 0; i++) this.completeHead();
  }

  /**
   * The coordinator moved (a "restart"): writes still in flight fail without
   * being stored, as appends by a deposed leader would.
   */
  fence(): void {
    this.epoch++;
    const q = this.queue;
    this.queue = [];
    for (const op of q) op.reject(new PersistenceError());
  }

  /** What a new coordinator would load. */
  load(): LoadedPartitionState {
    const offsets = new Map<string, CommittedOffset[]>();
    for (const [g, m] of this.offsets) if (m.size > 0) offsets.set(g, [...m.values()]);
    return { groups: [...this.groups.values()], offsets };
  }

  committed(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.offsets.get(groupId)?.get(`${topic}:${partition}`);
  }

  private enqueue(call: PersistenceCall): Promise<void> {
    this.calls.push(call);
    const fail = this.failAll || this.failNext > 0;
    if (this.failNext > 0) this.failNext--;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ call, fail, epoch: this.epoch, resolve, reject });
      const mode = this.mode;
      if (mode.kind === 'immediate') this.completeHead();
      else if (mode.kind === 'delayed') {
        // FIFO: never complete before an earlier write.
        const now = this.nowOf(mode.timers);
        const due = Math.max(now + mode.delayMs(), this.lastDueMs);
        this.lastDueMs = due;
        const epoch = this.epoch;
        mode.timers.schedule(due - now, () => {
          if (this.epoch === epoch) this.completeHead();
        });
      }
    });
  }

  private nowOf(timers: Timers): number {
    const t = timers as { clock?: { monotonicMs(): number } };
    return t.clock?.monotonicMs() ?? 0;
  }

  private completeHead(): void {
    const op = this.queue.shift();
    if (op === undefined) return;
    if (op.fail || op.epoch !== this.epoch) {
      op.reject(new PersistenceError(this.failCode));
      return;
    }
    this.apply(op.call);
    op.resolve();
  }

  private apply(call: PersistenceCall): void {
    if (call.kind === 'group') {
      if (call.snapshot === null) this.groups.delete(call.groupId);
      else this.groups.set(call.groupId, call.snapshot);
      return;
    }
    let m = this.offsets.get(call.groupId);
    if (m === undefined) {
      m = new Map();
      this.offsets.set(call.groupId, m);
    }
    for (const c of call.commits) {
      const key = `${c.topic}:${c.partition}`;
      if (c.offset === null) m.delete(key);
      else m.set(key, c);
    }
  }
}

/**
 * Delayed produce ("purgatory" in Kafka's ReplicaManager): an acks=all
 * append is answered once the partition's high watermark covers it, i.e.
 * every in-sync replica has it. Each waiter is woken by high watermark
 * advances of its partition (Partition.onHighWatermarkAdvanced), by losing
 * leadership (NOT_LEADER_OR_FOLLOWER, as Kafka answers), or by its timeout
 * (the request's timeoutMs: REQUEST_TIMED_OUT). With one replica the high
 * watermark moves on the append itself, so nothing ever waits.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { TimerHandle, Timers } from '../util/timer.js';
import type { Partition } from './partition.js';

interface Waiter {
  /** The high watermark that commits the append (its last offset + 1). */
  readonly requiredOffset: bigint;
  readonly resolve: (errorCode: number) => void;
  timer: TimerHandle | undefined;
}

export class DelayedProduces {
  private readonly byPartition = new Map<Partition, Set<Waiter>>();

  constructor(private readonly timers: Timers) {}

  /**
   * Resolves with NONE once `p`'s high watermark reaches `requiredOffset`,
   * with NOT_LEADER_OR_FOLLOWER when `p` stops being led here, or with
   * REQUEST_TIMED_OUT after `timeoutMs`.
   */
  wait(p: Partition, requiredOffset: bigint, timeoutMs: number): Promise<number> {
    if (p.highWatermark >= requiredOffset) return Promise.resolve(ErrorCode.NONE);
    if (!p.isLeader) return Promise.resolve(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    return new Promise<number>((resolve) => {
      const waiter: Waiter = { requiredOffset, resolve, timer: undefined };
      let set = this.byPartition.get(p);
      if (!set) {
        set = new Set();
        this.byPartition.set(p, set);
      }
      set.add(waiter);
      waiter.timer = this.timers.schedule(Math.max(0, timeoutMs), () => this.finish(p, waiter, ErrorCode.REQUEST_TIMED_OUT));
    });
  }

  /** The high watermark of `p` moved up: completes the waiters it now covers. */
  onHighWatermarkAdvanced(p: Partition): void {
    const set = this.byPartition.get(p);
    if (!set) return;
    for (const w of set) if (p.highWatermark >= w.requiredOffset) this.finish(p, w, ErrorCode.NONE);
  }

  /** `p` is no longer led here (or is gone): every waiter answers NOT_LEADER_OR_FOLLOWER. */
  onLeadershipLost(p: Partition): void {
    this.failAll(p, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  }

  /**
   * Every waiter of `p` answers `errorCode` now (NOT_ENOUGH_REPLICAS_AFTER_APPEND
   * when the ISR fell below min.insync.replicas after the append: the batch
   * is written but cannot commit until the ISR grows again).
   */
  failAll(p: Partition, errorCode: number): void {
    const set = this.byPartition.get(p);
    if (!set) return;
    for (const w of [...set]) this.finish(p, w, errorCode);
  }

  /** How many appends are waiting (metrics, tests). */
  get size(): number {
    let n = 0;
    for (const set of this.byPartition.values()) n += set.size;
    return n;
  }

  private finish(p: Partition, w: Waiter, errorCode: number): void {
    const set = this.byPartition.get(p);
    if (!set?.delete(w)) return;
    if (set.size === 0) this.byPartition.delete(p);
    w.timer?.cancel();
    w.resolve(errorCode);
  }
}

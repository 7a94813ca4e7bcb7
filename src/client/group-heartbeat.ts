/**
 * The heartbeat schedule of a `GroupMember` (group.ts): one heartbeat every
 * interval while the member is stable, one at a time (the next is scheduled
 * when the previous one finished). What a heartbeat does and how its errors
 * are read stays in the member; this holds only the timer bookkeeping, so the
 * member's state machine does not carry it.
 */

export class HeartbeatSchedule {
  private timer: NodeJS.Timeout | null = null;
  private epoch = 0;
  private running: Promise<void> | null = null;

  /** `active`: whether heartbeats should go on (the member is stable); `beat`: one heartbeat, never rejecting. */
  constructor(
    private readonly intervalMs: number,
    private readonly active: () => boolean,
    private readonly beat: () => Promise<void>,
  ) {}

  /** The heartbeat under way, if any (await it before joining or leaving). */
  get inFlight(): Promise<void> | null {
    return this.running;
  }

  start(): void {
    this.stop();
    this.schedule(++this.epoch);
  }

  stop(): void {
    this.epoch++;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Each start gets an epoch; a chain from an earlier start ends instead of rescheduling. */
  private schedule(epoch: number): void {
    if (!this.active() || epoch !== this.epoch) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.beat().finally(() => {
        this.running = null;
        this.schedule(epoch);
      });
    }, this.intervalMs);
  }
}

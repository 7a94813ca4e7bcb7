/**
 * The one deadline timer of a `Connection` (connection.ts). Deadlines cost
 * no timer per request: each request records its deadline, and this timer is
 * armed for the earliest one known. When it fires the connection fails what
 * is overdue and re-arms for the earliest remaining deadline; a completed
 * request leaves the timer alone (it may fire for nothing, once). The timer
 * is unref'd: a pending request keeps the process alive through its socket,
 * not through the timer. Separate so the request pipeline does not carry the
 * timer bookkeeping.
 */

export class DeadlineTimer {
  /** The timer, and the deadline it is armed for (Infinity: not armed). */
  private timer: NodeJS.Timeout | null = null;
  private armedDeadline = Infinity;

  /** `onDeadline` runs when the timer fires (it is no longer armed then). */
  constructor(private readonly onDeadline: () => void) {}

  /** Makes sure the deadline timer fires by `deadline` (a performance.now() time). */
  armFor(deadline: number): void {
    if (deadline >= this.armedDeadline) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.armedDeadline = deadline;
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(deadline - performance.now())));
    this.timer.unref();
  }

  disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.armedDeadline = Infinity;
  }

  private fire(): void {
    this.timer = null;
    this.armedDeadline = Infinity;
    this.onDeadline();
  }
}

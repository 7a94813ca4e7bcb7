/**
 * The process's periodic timer, for the deterministic layers that need one
 * (the Raft driver takes it as `RaftTimer`): they never call setInterval
 * themselves. Unref'd: a timer alone does not keep the process alive.
 */
export interface PeriodicTimer {
  every(intervalMs: number, fn: () => void): () => void;
}

export const systemTimer: PeriodicTimer = {
  every(intervalMs, fn) {
    const t = setInterval(fn, intervalMs);
    t.unref();
    return () => clearInterval(t);
  },
};

/** A scheduled one-shot callback that can be cancelled. */
export interface TimerHandle {
  cancel(): void;
}

/**
 * One-shot timers as an injected dependency (delayed produce and fetch, the
 * group coordinator's session and rebalance timeouts): the deterministic
 * layers schedule through this, so a simulation or unit test drives them on
 * virtual time.
 */
export interface Timers {
  schedule(delayMs: number, fn: () => void): TimerHandle;
}

/** Timers on the real clock; unref'd, so a pending timer never keeps the process alive. */
export const systemTimers: Timers = {
  schedule(delayMs, fn) {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

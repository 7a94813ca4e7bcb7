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

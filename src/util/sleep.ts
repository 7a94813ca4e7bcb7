/**
 * `await sleep(ms)`: the one promise-returning delay of the library and the
 * CLI (retry backoffs, polling loops). Deterministic layers never call it:
 * they are driven by an injected clock and timer (clock.ts, timer.ts).
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

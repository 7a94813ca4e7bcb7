/**
 * Polls `probe` every 100 ms until it returns something other than null, and
 * returns that; fails the test after `waitMsMax` with what the probe last
 * said (its error message, or "not yet"). For waits on a cluster converging:
 * bounded in time, nothing about timing is asserted.
 */
import assert from 'node:assert/strict';

export async function until<T>(what: string, probe: () => Promise<T | null>, waitMsMax = 30_000): Promise<T> {
  const deadline = Date.now() + waitMsMax;
  let last = 'never asked';
  while (Date.now() < deadline) {
    try {
      const got = await probe();
      if (got !== null) return got;
      last = 'not yet';
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return assert.fail(`${what} within ${waitMsMax} ms; last: ${last}`);
}

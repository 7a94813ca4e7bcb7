/**
 * Lets the event loop turn while the Consumer hands out buffered batches.
 *
 * A batch that is already buffered is handed out through promises only
 * (microtasks), so an application looping over `batches()` never returns to
 * the event loop while the fetcher keeps data ready: a fetch of 1 MiB per
 * partition is tens of thousands of small records, and with the next fetch
 * pipelined behind it the loop can run for seconds. Meanwhile nothing else in
 * the process runs: no timer fires (heartbeats, commit intervals, linger) and
 * no other socket is read, so a Producer fed from the loop can neither send
 * nor see its acknowledgements, and everything it was given waits in memory
 * (measured with bench/streams/streams.mjs: a 1M-record consume/transform/
 * produce loop held all 500,000 output records until the input was consumed,
 * its Producer's metadata lookup answered only then). So after
 * HANDOUT_SLICE_MS_MAX of handing out without a turn, the next batch waits for
 * a setImmediate, which costs a few microseconds per slice. A slice that began
 * in the check phase (after an earlier setImmediate) ends in the next loop
 * iteration, so timers and I/O callbacks run at least every second slice.
 */

/** How long the Consumer hands out buffered batches before it lets the event loop turn. */
export const HANDOUT_SLICE_MS_MAX = 10;

export class EventLoopTurns {
  private sliceStartMs = performance.now();

  /** Whether the slice is over: the next batch should wait for `turn()`. */
  due(): boolean {
    return performance.now() - this.sliceStartMs >= HANDOUT_SLICE_MS_MAX;
  }

  /** Resolves on the next turn of the event loop, which starts a new slice. */
  async turn(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.turned();
  }

  /** The event loop turned (the consumer waited for data): a new slice starts. */
  turned(): void {
    this.sliceStartMs = performance.now();
  }
}

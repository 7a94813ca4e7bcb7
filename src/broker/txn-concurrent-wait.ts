/**
 * AddPartitionsToTxn (v0-3) and AddOffsetsToTxn from a producer whose
 * previous transaction is still writing its markers: Kafka answers
 * CONCURRENT_TRANSACTIONS at once and the client tries again after a flat
 * 20 ms (Java's client; ours too), so a producer running transactions back
 * to back loses 20 ms whenever its first add of a transaction overtakes the
 * previous one's markers (about every other transaction on one broker,
 * where markers take a few milliseconds). Instead the broker waits for that
 * marker phase to end (the coordinator's `markerPhase`), at most
 * `CONCURRENT_TXN_WAIT_MS_MAX`, and asks the coordinator again; only when the
 * phase is still going after that (a partition leader is unreachable) does
 * the producer get CONCURRENT_TRANSACTIONS. The answer is the one the
 * coordinator gives when asked, so nothing changes for correctness: the
 * request is only handled later, as if it had arrived later.
 */
import { ErrorCode } from '../protocol/errors.js';

/** Longest wait for a previous transaction's markers before answering CONCURRENT_TRANSACTIONS. */
export const CONCURRENT_TXN_WAIT_MS_MAX = 100;

export interface MarkerPhases {
  markerPhase(transactionalId: string): Promise<void> | null;
}

/** Runs `attempt` (a coordinator call answering one error code) again after the id's marker phase, as above. */
export async function afterMarkerPhase(coordinator: MarkerPhases, transactionalId: string, attempt: () => Promise<number>): Promise<number> {
  const deadline = performance.now() + CONCURRENT_TXN_WAIT_MS_MAX;
  for (;;) {
    const code = await attempt();
    if (code !== ErrorCode.CONCURRENT_TRANSACTIONS) return code;
    const phase = coordinator.markerPhase(transactionalId);
    const leftMs = deadline - performance.now();
    if (phase === null || leftMs <= 0) return code;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      phase.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), leftMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) return code;
  }
}

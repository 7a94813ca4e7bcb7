/**
 * The fetching side of a fetch session (KIP-227; Kafka's
 * FetchSessionHandler), one per broker fetched from. Pure state, no I/O: the
 * Consumer's fetcher and a follower's fetch transport build each Fetch from
 * `build()` and report its outcome with `handleResponse()` or `handleError()`.
 *
 * The first Fetch is full (sessionId 0, epoch 0: "create a session"); if the
 * broker answers with a session id, later Fetches are incremental: they name
 * only the partitions that were added or whose fetch parameters changed
 * since the last request, and forget the ones no longer wanted; the broker
 * keeps the rest and answers only for partitions with something new. The
 * epoch goes up by one per answered request.
 *
 * Recovery, as Kafka's client: FETCH_SESSION_ID_NOT_FOUND (the broker evicted
 * the session) starts over with sessionId 0; any other error, and a request
 * that got no answer (the broker may or may not have moved the epoch),
 * sends a full Fetch that names the old session (sessionId X, epoch 0): the
 * broker closes it and opens a new one. A broker without room for a session
 * answers sessionId 0 and every Fetch stays full.
 */
import { ErrorCode } from '../protocol/errors.js';

/** Fetch parameters of one partition; a change in any of them goes out in the next incremental Fetch. */
export interface SessionPartition {
  /** The topic's name (Fetch v12 and below) or id (v13+): what forgotten topics are keyed by. */
  readonly topicKey: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly logStartOffset: bigint;
  readonly partitionMaxBytes: number;
  readonly currentLeaderEpoch: number;
  readonly lastFetchedEpoch: number;
}

/** What to put in one Fetch. */
export interface SessionFetch<P extends SessionPartition> {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  /** Every wanted partition on a full Fetch; the added and changed ones on an incremental one. */
  readonly partitions: readonly P[];
  /** Partitions the session stops fetching (incremental Fetches only), by topic key. */
  readonly forgotten: readonly { topicKey: string; partitions: number[] }[];
  readonly full: boolean;
}

/** Kafka's FetchMetadata constants. */
export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
/** A sessionless Fetch (Fetch v7+ with this epoch, or any Fetch below v7). */
export const FINAL_EPOCH = -1;

const keyOf = (p: SessionPartition): string => `${p.topicKey}\u0000${p.partition}`;

function sameParameters(a: SessionPartition, b: SessionPartition): boolean {
  return (
    a.fetchOffset === b.fetchOffset &&
    a.logStartOffset === b.logStartOffset &&
    a.partitionMaxBytes === b.partitionMaxBytes &&
    a.currentLeaderEpoch === b.currentLeaderEpoch &&
    a.lastFetchedEpoch === b.lastFetchedEpoch
  );
}

export class FetchSessionHandler<P extends SessionPartition> {
  private sessionId = INVALID_SESSION_ID;
  private epoch = INITIAL_EPOCH;
  /** The partitions the broker's session holds once the last request is applied, in request order. */
  private session = new Map<string, P>();

  /** The session this handler is in (0: none yet); for logs and tests. */
  get currentSessionId(): number {
    return this.sessionId;
  }

  /** The Fetch for `wanted`: full when no session is open, else the difference from the last one. */
  build(wanted: readonly P[]): SessionFetch<P> {
    const next = new Map<string, P>();
    for (const p of wanted) next.set(keyOf(p), p);
    if (this.epoch === INITIAL_EPOCH) {
      this.session = next;
      return { sessionId: this.sessionId, sessionEpoch: INITIAL_EPOCH, partitions: [...next.values()], forgotten: [], full: true };
    }
    const changed: P[] = [];
    for (const [k, p] of next) {
      const before = this.session.get(k);
      if (before === undefined || !sameParameters(before, p)) changed.push(p);
    }
    const forgotten = new Map<string, number[]>();
    for (const [k, p] of this.session) {
      if (next.has(k)) continue;
      const list = forgotten.get(p.topicKey);
      if (list === undefined) forgotten.set(p.topicKey, [p.partition]);
      else list.push(p.partition);
    }
    this.session = next;
    return {
      sessionId: this.sessionId,
      sessionEpoch: this.epoch,
      partitions: changed,
      forgotten: [...forgotten].map(([topicKey, partitions]) => ({ topicKey, partitions })),
      full: false,
    };
  }

  /**
   * The broker answered the last built Fetch with this top-level error code
   * and session id. True when the answer is usable; false after a session
   * error, which the caller treats as an empty answer and fetches again at
   * once (the next Fetch is full).
   */
  handleResponse(errorCode: number, responseSessionId: number): boolean {
    if (errorCode !== 0) {
      if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) this.sessionId = INVALID_SESSION_ID;
      this.epoch = INITIAL_EPOCH;
      return false;
    }
    if (responseSessionId === INVALID_SESSION_ID) {
      // No session (the broker had no room, or closed it): the next Fetch is full again.
      this.sessionId = INVALID_SESSION_ID;
      this.epoch = INITIAL_EPOCH;
    } else if (this.epoch === INITIAL_EPOCH) {
      this.sessionId = responseSessionId;
      this.epoch = 1;
    } else {
      this.epoch = this.epoch >= 0x7fffffff ? 1 : this.epoch + 1; // 0 means "open a session": wrap to 1
    }
    return true;
  }

  /** The last Fetch got no answer: its effect on the session is unknown, so the next one is full and replaces it. */
  handleError(): void {
    this.epoch = INITIAL_EPOCH;
  }
}

/** Whether a Fetch-level error code is a session error the handler recovers from by itself. */
export function isFetchSessionError(errorCode: number): boolean {
  return errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND || errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH || errorCode === ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR;
}

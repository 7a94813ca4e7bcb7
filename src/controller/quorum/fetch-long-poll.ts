/**
 * The leader's long poll of Fetch (KRaft's behaviour), for RaftMetadataLog: a
 * Fetch whose answer tells the follower nothing new (no entries, no divergence
 * or snapshot id, no error, a high watermark it was already sent) is held until
 * the log grows, the high watermark moves, the epoch or role changes, or its
 * wait passes, then the node is asked again. Kept apart from
 * raft-metadata-log.ts (which drives the node) because it is its own piece of
 * bookkeeping: the held requests and the high watermark sent to each follower.
 */
import type { RaftNode } from '../raft/raft-node.js';
import type { FetchRequest, FetchResponse, NodeId, RaftMessage } from '../raft/types.js';

/** What the long poll needs from RaftMetadataLog. */
export interface FetchLongPollHost {
  /** Node time (the Clock's monotonic ms, shifted as the log's). */
  nowMs(): number;
  /** The metadata log is started (not new, failed or closed). */
  isStarted(): boolean;
  /** The leader's log end offset (entries). */
  endOffset(): number;
  /** Asks the node again: RaftEndpoint.receiveRequest. */
  answer(message: FetchRequest): RaftMessage | null;
}

/** A Fetch the leader holds until there is news for the follower (KRaft's long poll). */
interface ParkedFetch {
  readonly message: FetchRequest;
  readonly epoch: number;
  readonly highWatermark: number;
  readonly deadlineMs: number;
  readonly resolve: (answer: RaftMessage | null) => void;
}

export class FetchLongPoll {
  private parked: ParkedFetch[] = [];
  private completingParked = false;
  /** The high watermark last sent to each follower: a Fetch that would tell it something new is never held. */
  private readonly hwSent = new Map<NodeId, number>();

  constructor(private readonly host: FetchLongPollHost) {}

  /** The node's `answer` to `message` now if it carries news (or we do not lead), else held for up to `waitMs`. */
  answerOrHold(message: FetchRequest, answer: FetchResponse, node: RaftNode, waitMs: number): Promise<RaftMessage | null> {
    const news = answer.error !== 'none' || answer.entries.length > 0 || answer.divergingEpoch !== null || answer.snapshotId !== null || answer.highWatermark !== this.hwSent.get(message.from);
    this.hwSent.set(message.from, answer.highWatermark);
    if (news || node.roleName !== 'leader') return Promise.resolve(answer);
    return new Promise((resolve) => {
      this.parked.push({ message, epoch: node.epoch, highWatermark: node.highWatermark, deadlineMs: this.host.nowMs() + waitMs, resolve });
    });
  }

  /** Answers the held fetches that are due (see answerOrHold); runs after every step. */
  completeDue(node: RaftNode): void {
    if (this.completingParked || this.parked.length === 0) return;
    this.completingParked = true;
    try {
      for (;;) {
        const now = this.host.nowMs();
        const end = this.host.endOffset();
        const due = this.parked.filter(
          (p) => now >= p.deadlineMs || !this.host.isStarted() || node.roleName !== 'leader' || node.epoch !== p.epoch || node.highWatermark !== p.highWatermark || end > p.message.fetchOffset,
        );
        if (due.length === 0) return;
        this.parked = this.parked.filter((p) => !due.includes(p));
        for (const p of due) {
          const answer = this.host.isStarted() ? this.host.answer(p.message) : null;
          if (answer?.type === 'fetchResponse') this.hwSent.set(p.message.from, answer.highWatermark);
          p.resolve(answer);
        }
      }
    } finally {
      this.completingParked = false;
    }
  }

  /** Answers every held fetch with nothing (the log closes or fails). */
  releaseAll(): void {
    const parked = this.parked;
    this.parked = [];
    for (const p of parked) p.resolve(null);
  }

  /** A new leader epoch: no high watermark has been sent in it yet. */
  forgetSent(): void {
    this.hwSent.clear();
  }
}

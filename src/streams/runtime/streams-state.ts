/**
 * The states of a KafkaStreams instance and their allowed transitions,
 * exactly Kafka Streams' `KafkaStreams.State`: CREATED -> REBALANCING |
 * PENDING_SHUTDOWN; REBALANCING -> RUNNING | PENDING_SHUTDOWN
 * | PENDING_ERROR; RUNNING -> REBALANCING | PENDING_SHUTDOWN | PENDING_ERROR;
 * PENDING_SHUTDOWN -> NOT_RUNNING; PENDING_ERROR -> ERROR. A move to the
 * same state is a no-op.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';

/** A state of a KafkaStreams instance. */
export type StreamsStateName = 'CREATED' | 'REBALANCING' | 'RUNNING' | 'PENDING_SHUTDOWN' | 'NOT_RUNNING' | 'PENDING_ERROR' | 'ERROR';

/** Called with each state change. */
export type StateListener = (newState: StreamsStateName, oldState: StreamsStateName) => void;

const NEXT: Record<StreamsStateName, readonly StreamsStateName[]> = {
  CREATED: ['REBALANCING', 'PENDING_SHUTDOWN'],
  REBALANCING: ['RUNNING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  RUNNING: ['REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  PENDING_SHUTDOWN: ['NOT_RUNNING'],
  NOT_RUNNING: [],
  PENDING_ERROR: ['ERROR'],
  ERROR: [],
};

export class StreamsState {
  private state: StreamsStateName = 'CREATED';
  private readonly listeners: StateListener[] = [];

  get current(): StreamsStateName {
    return this.state;
  }

  addListener(listener: StateListener): void {
    this.listeners.push(listener);
  }

  /** Whether `next` may follow the current state. */
  canTransition(next: StreamsStateName): boolean {
    return next === this.state || NEXT[this.state].includes(next);
  }

  transition(next: StreamsStateName): void {
    const old = this.state;
    if (next === old) return;
    if (!NEXT[old].includes(next)) throw new StreamsError(StreamsErrorCode.STATE, `invalid state transition ${old} -> ${next}`);
    this.state = next;
    for (const l of this.listeners) l(next, old);
  }
}

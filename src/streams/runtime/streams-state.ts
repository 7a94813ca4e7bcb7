/**
 * The states of a KafkaStreams instance and their allowed transitions
 * (Kafka Streams' `KafkaStreams.State`); a move to the same state is a no-op.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';

/** A state of a KafkaStreams instance. */
export type StreamsStateName = 'CREATED' | 'REBALANCING' | 'RUNNING' | 'PENDING_SHUTDOWN' | 'NOT_RUNNING' | 'ERROR';

/** Called with each state change. */
export type StateListener = (newState: StreamsStateName, oldState: StreamsStateName) => void;

const NEXT: Record<StreamsStateName, readonly StreamsStateName[]> = {
  CREATED: ['REBALANCING', 'PENDING_SHUTDOWN', 'NOT_RUNNING'],
  REBALANCING: ['RUNNING', 'PENDING_SHUTDOWN'],
  RUNNING: ['REBALANCING', 'PENDING_SHUTDOWN'],
  PENDING_SHUTDOWN: ['NOT_RUNNING', 'ERROR'],
  NOT_RUNNING: [],
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

  transition(next: StreamsStateName): void {
    const old = this.state;
    if (next === old) return;
    if (!NEXT[old].includes(next)) throw new StreamsError(StreamsErrorCode.STATE, `invalid state transition ${old} -> ${next}`);
    this.state = next;
    for (const l of this.listeners) l(next, old);
  }
}

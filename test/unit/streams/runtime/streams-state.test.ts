/**
 * KafkaStreams' state machine is Kafka's KafkaStreams.State, transition for
 * transition; and the runtime config checks of this version's options
 * (standbys, application.server, stream threads).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamsState, type StreamsStateName } from '../../../../src/streams/runtime/streams-state.js';
import { parseHostInfo, resolveConfig } from '../../../../src/streams/runtime/config.js';
import { StreamsErrorCode } from '../../../../src/streams/index.js';

const ALL: StreamsStateName[] = ['CREATED', 'REBALANCING', 'RUNNING', 'PENDING_SHUTDOWN', 'NOT_RUNNING', 'PENDING_ERROR', 'ERROR'];
// Kafka 3.x: CREATED(1, 3), REBALANCING(2, 3, 5), RUNNING(1, 2, 3, 5), PENDING_SHUTDOWN(4), NOT_RUNNING, PENDING_ERROR(6), ERROR.
const KAFKA: Record<StreamsStateName, StreamsStateName[]> = {
  CREATED: ['REBALANCING', 'PENDING_SHUTDOWN'],
  REBALANCING: ['RUNNING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  RUNNING: ['REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  PENDING_SHUTDOWN: ['NOT_RUNNING'],
  NOT_RUNNING: [],
  PENDING_ERROR: ['ERROR'],
  ERROR: [],
};

/** A machine driven into `state` along allowed transitions. */
function at(state: StreamsStateName): StreamsState {
  const path: Record<StreamsStateName, StreamsStateName[]> = {
    CREATED: [],
    REBALANCING: ['REBALANCING'],
    RUNNING: ['REBALANCING', 'RUNNING'],
    PENDING_SHUTDOWN: ['PENDING_SHUTDOWN'],
    NOT_RUNNING: ['PENDING_SHUTDOWN', 'NOT_RUNNING'],
    PENDING_ERROR: ['REBALANCING', 'PENDING_ERROR'],
    ERROR: ['REBALANCING', 'PENDING_ERROR', 'ERROR'],
  };
  const s = new StreamsState();
  for (const next of path[state]) s.transition(next);
  return s;
}

test('every transition Kafka allows is allowed, every other one refused with ERR_STREAMS_STATE', () => {
  for (const from of ALL) {
    for (const to of ALL) {
      const s = at(from);
      const seen: string[] = [];
      s.addListener((n, o) => void seen.push(`${o}->${n}`));
      if (from === to) {
        s.transition(to); // a no-op, no listener call
        assert.deepEqual(seen, []);
      } else if (KAFKA[from].includes(to)) {
        s.transition(to);
        assert.deepEqual(seen, [`${from}->${to}`]);
        assert.equal(s.current, to);
      } else {
        assert.throws(() => s.transition(to), (e: { code?: string }) => e.code === StreamsErrorCode.STATE, `${from} -> ${to}`);
        assert.equal(s.current, from);
      }
    }
  }
});

test('config: standbys, application.server and stream threads are checked', () => {
  const base = { applicationId: 'app', bootstrapServers: 'h:1' };
  const c = resolveConfig(base);
  assert.equal(c.numStandbyReplicas, 0);
  assert.equal(c.applicationServer, null);
  assert.equal(c.numStreamThreads, 1);
  assert.equal(resolveConfig({ ...base, applicationServer: 'api-3.internal:8080', numStandbyReplicas: 2 }).numStandbyReplicas, 2);
  const refused = (extra: object, pattern: RegExp): void =>
    assert.throws(() => resolveConfig({ ...base, ...extra }), (e: { code?: string; message: string }) => e.code === StreamsErrorCode.CONFIG && pattern.test(e.message));
  refused({ numStreamThreads: 2 }, /numStreamThreads must be 1 .*run more instances/);
  refused({ numStandbyReplicas: -1 }, /numStandbyReplicas/);
  refused({ applicationServer: 'no-port' }, /applicationServer must be 'host:port'/);
  refused({ applicationServer: 'h:99999' }, /applicationServer/);
  assert.deepEqual(parseHostInfo('[::1]:9000'), { host: '::1', port: 9000 });
  assert.deepEqual(parseHostInfo('10.0.0.7:80'), { host: '10.0.0.7', port: 80 });
});

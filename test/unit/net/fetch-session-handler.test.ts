/**
 * FetchSessionHandler (KIP-227, the fetching side): what it sends, how it
 * recovers, and a seeded round trip against the broker's FetchSessionCache
 * through lost requests, lost answers and evicted sessions, checking after
 * every answered Fetch that the broker's session holds exactly the
 * partitions and positions the fetcher wants. FETCH_SESSION_SEED=n replays one seed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FetchSessionHandler, isFetchSessionError, type SessionPartition } from '../../../src/net/fetch-session-handler.js';
import { FetchSessionCache, partitionKey } from '../../../src/broker/fetch-sessions.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { SeededRandom } from '../../../src/util/random.js';
import { simulationSeeds } from '../../helpers/seeds.js';

function part(topicKey: string, partition: number, fetchOffset: bigint, extra: Partial<SessionPartition> = {}): SessionPartition {
  return { topicKey, partition, fetchOffset, logStartOffset: -1n, partitionMaxBytes: 1024, currentLeaderEpoch: 3, lastFetchedEpoch: -1, ...extra };
}

describe('FetchSessionHandler', () => {
  it('sends everything until the broker opens a session, then only what changed, and forgets what is no longer wanted', () => {
    const h = new FetchSessionHandler<SessionPartition>();
    const first = h.build([part('a', 0, 10n), part('a', 1, 20n), part('b', 0, 5n)]);
    assert.deepEqual([first.sessionId, first.sessionEpoch, first.full, first.partitions.length], [0, 0, true, 3]);
    assert.equal(h.handleResponse(ErrorCode.NONE, 77), true);

    const second = h.build([part('a', 0, 15n), part('a', 1, 20n), part('c', 2, 0n)]);
    assert.deepEqual([second.sessionId, second.sessionEpoch, second.full], [77, 1, false]);
    assert.deepEqual(second.partitions.map((p) => `${p.topicKey}-${p.partition}`), ['a-0', 'c-2'], 'a moved position and c is new; a-1 is unchanged');
    assert.deepEqual(second.forgotten, [{ topicKey: 'b', partitions: [0] }]);
    assert.equal(h.handleResponse(ErrorCode.NONE, 77), true);

    const third = h.build([part('a', 0, 15n), part('a', 1, 20n), part('c', 2, 0n, { currentLeaderEpoch: 4 })]);
    assert.deepEqual([third.sessionEpoch, third.partitions.map((p) => p.partition), third.forgotten], [2, [2], []], 'a leader epoch change is a change too');
  });

  it('a broker without room for a session (id 0) gets full Fetches every time', () => {
    const h = new FetchSessionHandler<SessionPartition>();
    h.build([part('a', 0, 1n)]);
    assert.equal(h.handleResponse(ErrorCode.NONE, 0), true);
    const again = h.build([part('a', 0, 1n)]);
    assert.deepEqual([again.sessionId, again.sessionEpoch, again.full, again.partitions.length], [0, 0, true, 1]);
  });

  it('FETCH_SESSION_ID_NOT_FOUND starts over without a session; other errors and lost answers replace the session (id kept, epoch 0)', () => {
    const h = new FetchSessionHandler<SessionPartition>();
    h.build([part('a', 0, 1n)]);
    h.handleResponse(ErrorCode.NONE, 9);
    h.build([part('a', 0, 2n)]);
    assert.equal(h.handleResponse(ErrorCode.INVALID_FETCH_SESSION_EPOCH, 0), false);
    const replace = h.build([part('a', 0, 2n)]);
    assert.deepEqual([replace.sessionId, replace.sessionEpoch, replace.full], [9, 0, true]);
    h.handleResponse(ErrorCode.NONE, 10);
    h.build([part('a', 0, 3n)]);
    h.handleError();
    const afterLoss = h.build([part('a', 0, 3n)]);
    assert.deepEqual([afterLoss.sessionId, afterLoss.sessionEpoch, afterLoss.full, afterLoss.partitions.length], [10, 0, true, 1]);
    h.handleResponse(ErrorCode.NONE, 11);
    h.build([part('a', 0, 4n)]);
    assert.equal(h.handleResponse(ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0), false);
    const fresh = h.build([part('a', 0, 4n)]);
    assert.deepEqual([fresh.sessionId, fresh.sessionEpoch, fresh.full], [0, 0, true]);
    assert.equal(isFetchSessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND), true);
    assert.equal(isFetchSessionError(ErrorCode.NOT_LEADER_OR_FOLLOWER), false);
  });
});

/** What the broker's session says a fetcher reads: key -> fetch offset and leader epoch. */
function brokerView(cache: FetchSessionCache, id: number): Map<string, string> | null {
  // The cache is only reachable through begin(); an empty incremental Fetch at the right epoch would move it, so read the internals the test owns.
  const session = (cache as unknown as { sessions: Map<number, { partitions: Map<string, { fetchOffset: bigint; currentLeaderEpoch: number }> }> }).sessions.get(id);
  if (session === undefined) return null;
  return new Map([...session.partitions].map(([k, p]) => [k, `${p.fetchOffset}@${p.currentLeaderEpoch}`]));
}

const wantedView = (wanted: readonly SessionPartition[]): Map<string, string> => new Map(wanted.map((p) => [partitionKey(p.topicKey, p.partition), `${p.fetchOffset}@${p.currentLeaderEpoch}`]));

describe('FetchSessionHandler with the broker FetchSessionCache', () => {
  const plan = simulationSeeds('FETCH_SESSION', 200, 100);
  const seeds = plan.seeds;
  it(`${seeds.length} seeded histories keep the broker's session equal to what the fetcher wants`, () => {
    console.log(plan.summary);
    for (const seed of seeds) {
      const random = new SeededRandom(seed);
      const cache = new FetchSessionCache({ maxSessions: 2, evictionMs: 0 });
      const h = new FetchSessionHandler<SessionPartition>();
      const positions = new Map<string, SessionPartition>();
      for (let step = 0; step < 60; step++) {
        // The fetcher's wish changes: partitions come and go, positions and epochs move.
        for (let i = 0; i < 3; i++) {
          const key = `t${random.int(3)}`;
          const partition = random.int(4);
          const k = `${key}-${partition}`;
          const roll = random.int(10);
          const before = positions.get(k);
          if (roll < 2) positions.delete(k);
          else if (before === undefined) positions.set(k, part(key, partition, BigInt(random.int(100))));
          else if (roll < 8) positions.set(k, { ...before, fetchOffset: before.fetchOffset + BigInt(random.int(3)) });
          else positions.set(k, { ...before, currentLeaderEpoch: before.currentLeaderEpoch + 1 });
        }
        const wanted = [...positions.values()];
        const built = h.build(wanted);
        const fate = random.int(20);
        if (fate === 0) {
          h.handleError(); // never reached the broker
          continue;
        }
        if (fate === 1) {
          // Another fetcher's full Fetch evicts sessions (2 slots, no idle time needed).
          cache.begin(0, 0, [], [], step);
          cache.begin(0, 0, [], [], step);
        }
        const requested = built.partitions.map((p) => ({ ...p, topic: p.topicKey, topicId: p.topicKey }));
        const forgotten = built.forgotten.flatMap((f) => f.partitions.map((partition) => ({ topic: f.topicKey, partition })));
        const context = cache.begin(built.sessionId, built.sessionEpoch, requested, forgotten, step);
        if (fate === 2) {
          h.handleError(); // reached the broker, the answer was lost
          continue;
        }
        const errorCode = context.kind === 'error' ? context.errorCode : 0;
        const sessionId = context.kind === 'full' || context.kind === 'incremental' ? context.session.id : 0;
        const usable = h.handleResponse(errorCode, sessionId);
        assert.equal(usable, context.kind !== 'error', `seed ${seed} step ${step}: usable answer`);
        if (!usable) assert.ok(isFetchSessionError(errorCode), `seed ${seed} step ${step}: only session errors here, got ${errorCode}`);
        if (context.kind === 'full' || context.kind === 'incremental') {
          assert.deepEqual(brokerView(cache, context.session.id), wantedView(wanted), `seed ${seed} step ${step}: the broker's session is what the fetcher wants (replay with FETCH_SESSION_SEED=${seed})`);
        }
      }
    }
  });
});

/**
 * Three RaftMetadataLogs wired by an in-memory transport (same request/answer
 * pairing as the network one, answers asynchronous so the leader's held
 * fetches are exercised), a manual clock and manual timers: followers refuse
 * appends naming the leader, leadership changes are announced, a leader cut
 * off from the others resigns and rejects its uncommitted append, and the
 * majority moves on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../../../src/storage/index.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { SeededRandom } from '../../../../src/util/random.js';
import type { MetadataRecord } from '../../../../src/controller/metadata/records.js';
import { MetadataImage } from '../../../../src/controller/metadata/image.js';
import { NotLeaderError, RaftMetadataLog, type LeaderChange, type RaftTimer } from '../../../../src/controller/quorum/raft-metadata-log.js';
import type { RaftTransport } from '../../../../src/controller/quorum/transport.js';
import type { Outbound, RaftMessage } from '../../../../src/controller/raft/types.js';

const STEP_MS = 5;
const STEPS_MAX = 4000;

class Cluster {
  readonly clock = new ManualClock();
  readonly timers = new Set<() => void>();
  readonly logs = new Map<number, RaftMetadataLog>();
  readonly images = new Map<number, MetadataImage>();
  readonly changes = new Map<number, LeaderChange[]>();
  private readonly delivers = new Map<number, (m: RaftMessage) => void>();
  readonly cut = new Set<number>();
  private inFlight = 0;

  readonly timer: RaftTimer = {
    every: (_ms, fn) => {
      this.timers.add(fn);
      return () => this.timers.delete(fn);
    },
  };

  async start(ids: readonly number[]): Promise<void> {
    for (const id of ids) {
      const fs = new MemoryFileSystem();
      fs.mkdirp('/d');
      const log = RaftMetadataLog.open({
        fs,
        clock: this.clock,
        random: new SeededRandom(id * 31),
        timer: this.timer,
        dataDir: '/d',
        nodeId: id,
        voters: ids.map((v) => ({ id: v, host: `h${v}`, port: 9000 + v })),
        clusterId: 'c',
        raft: { electionTimeoutMs: 100, fetchTimeoutMs: 300, requestTimeoutMs: 60 },
        transport: (deliver) => this.transport(id, deliver),
      });
      this.logs.set(id, log);
      const image = new MetadataImage('c');
      this.images.set(id, image);
      const seen: LeaderChange[] = [];
      this.changes.set(id, seen);
      log.onLeaderChange((c) => seen.push(c));
      await log.start((b) => {
        image.apply(b);
      });
    }
  }

  private transport(self: number, deliver: (m: RaftMessage) => void): RaftTransport {
    this.delivers.set(self, deliver);
    return { send: (out) => this.send(self, out), close: async () => undefined };
  }

  private send(from: number, out: Outbound): void {
    const target = this.logs.get(out.to);
    if (target === undefined || this.cut.has(from) || this.cut.has(out.to)) return;
    this.inFlight++;
    void (async () => {
      try {
        const m = out.message;
        const answer = m.type === 'fetch' ? await target.receiveFetch(m, 500) : target.receiveRequest(m);
        if (answer !== null && !this.cut.has(from) && !this.cut.has(out.to)) this.delivers.get(from)?.(answer);
      } finally {
        this.inFlight--;
      }
    })();
  }

  /** Advances time step by step (firing the timers, letting answers land) until `done`. */
  async until(what: string, done: () => boolean): Promise<void> {
    for (let i = 0; i < STEPS_MAX; i++) {
      if (done()) return;
      this.clock.advance(STEP_MS);
      for (const t of [...this.timers]) t();
      for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    }
    throw new Error(`not reached within ${STEPS_MAX} steps: ${what}`);
  }

  leader(among: readonly number[] = [...this.logs.keys()]): number | undefined {
    const leaders = among.filter((id) => this.logs.get(id)?.isLeader === true);
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  log(id: number): RaftMetadataLog {
    const l = this.logs.get(id);
    assert.ok(l !== undefined);
    return l;
  }

  async close(): Promise<void> {
    for (const l of this.logs.values()) await l.close();
  }
}

const record = (i: number): MetadataRecord[] => [{ type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: `k${i}`, value: `v${i}` } }];

test('followers refuse appends with the leader named; a cut-off leader resigns and rejects its pending append', async () => {
  const c = new Cluster();
  await c.start([1, 2, 3]);
  try {
    await c.until('a leader', () => c.leader() !== undefined);
    const leader = c.leader() as number;
    const pending = c.log(leader).append(record(1));
    await c.until('the append commits', () => [1, 2, 3].every((id) => c.images.get(id)?.configs(4, '').get('k1') === 'v1'));
    assert.deepEqual(await pending, { baseOffset: 1n, lastOffset: 1n });

    const follower = [1, 2, 3].find((id) => id !== leader) as number;
    await assert.rejects(c.log(follower).append(record(2)), (err: unknown) => {
      assert.ok(err instanceof NotLeaderError);
      assert.equal(err.code, 'ERR_TRIB_METADATA_NOT_LEADER');
      assert.equal(err.leaderId, leader);
      assert.deepEqual(err.leaderEndpoint, { id: leader, host: `h${leader}`, port: 9000 + leader });
      return true;
    });
    assert.deepEqual(c.changes.get(leader)?.at(-1), { leaderId: leader, epoch: c.log(leader).epoch, isLeader: true });
    assert.equal(c.changes.get(follower)?.at(-1)?.isLeader, false);
    assert.equal(c.changes.get(follower)?.at(-1)?.leaderId, leader);

    // Cut the leader off: its append cannot commit; it resigns (check-quorum) and rejects it.
    c.cut.add(leader);
    const stranded = c.log(leader).append(record(3));
    const rejected = assert.rejects(stranded, (err: unknown) => err instanceof NotLeaderError);
    const rest = [1, 2, 3].filter((id) => id !== leader);
    await c.until('a new leader among the others', () => c.leader(rest) !== undefined && c.log(leader).isLeader === false);
    await rejected;
    const second = c.leader(rest) as number;
    await Promise.all([c.log(second).append(record(4)), c.until('k4 on the majority', () => rest.every((id) => c.images.get(id)?.configs(4, '').get('k4') === 'v4'))]);

    // Healed: the old leader follows, drops its uncommitted entry and converges.
    c.cut.clear();
    await c.until('the old leader converges', () => c.images.get(leader)?.configs(4, '').get('k4') === 'v4');
    assert.equal(c.images.get(leader)?.configs(4, '').get('k3'), undefined, 'the stranded append never committed');
    const described = c.log(second).describeQuorum();
    assert.equal(described.isLeader, true);
    assert.equal(described.voters.length, 3);
    assert.ok(described.voters.every((v) => v.logEndOffset >= 0));
  } finally {
    await c.close();
  }
});

/**
 * RaftMetadataLog in observer mode: three voters and one observer (node 4, a
 * broker-only node) wired by an in-memory transport with a manual clock. The
 * observer only sends Fetch/FetchSnapshot to the voters, finds the leader,
 * delivers every committed batch to its image, refuses appends naming the
 * leader (so forwarding works), is listed by the leader's DescribeQuorum as
 * an observer, catches up from a snapshot, and follows a new leader when the
 * old one is cut off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../../../src/storage/index.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { SeededRandom } from '../../../../src/util/random.js';
import type { MetadataRecord } from '../../../../src/controller/metadata/records.js';
import { MetadataImage } from '../../../../src/controller/metadata/image.js';
import { NotLeaderError, RaftMetadataLog, type RaftTimer } from '../../../../src/controller/quorum/raft-metadata-log.js';
import type { RaftTransport } from '../../../../src/controller/quorum/transport.js';
import type { Outbound, RaftMessage } from '../../../../src/controller/raft/types.js';

const STEP_MS = 5;
const STEPS_MAX = 4000;
const VOTERS = [1, 2, 3];
const OBSERVER = 4;

class Cluster {
  readonly clock = new ManualClock();
  readonly timers = new Set<() => void>();
  readonly logs = new Map<number, RaftMetadataLog>();
  readonly images = new Map<number, MetadataImage>();
  /** Every message each node sent, by type (to check what an observer sends). */
  readonly sentTypes = new Map<number, Set<string>>();
  private readonly delivers = new Map<number, (m: RaftMessage) => void>();
  readonly cut = new Set<number>();

  readonly timer: RaftTimer = {
    every: (_ms, fn) => {
      this.timers.add(fn);
      return () => this.timers.delete(fn);
    },
  };

  async start(id: number, snapshotIntervalRecords = 0): Promise<void> {
    const fs = new MemoryFileSystem();
    fs.mkdirp('/d');
    const log = RaftMetadataLog.open({
      fs,
      clock: this.clock,
      random: new SeededRandom(id * 31),
      timer: this.timer,
      dataDir: '/d',
      nodeId: id,
      voters: VOTERS.map((v) => ({ id: v, host: `h${v}`, port: 9000 + v })),
      clusterId: 'c',
      raft: { electionTimeoutMs: 100, fetchTimeoutMs: 300, requestTimeoutMs: 60 },
      snapshotIntervalRecords,
      transport: (deliver) => this.transport(id, deliver),
    });
    this.logs.set(id, log);
    this.sentTypes.set(id, new Set());
    const image = new MetadataImage('c');
    this.images.set(id, image);
    await log.start((b) => {
      image.apply(b);
    });
  }

  private transport(self: number, deliver: (m: RaftMessage) => void): RaftTransport {
    this.delivers.set(self, deliver);
    return { send: (out) => this.send(self, out), close: async () => undefined };
  }

  private send(from: number, out: Outbound): void {
    this.sentTypes.get(from)?.add(`${out.message.type}->${VOTERS.includes(out.to) ? 'voter' : 'other'}`);
    const target = this.logs.get(out.to);
    if (target === undefined || this.cut.has(from) || this.cut.has(out.to)) return;
    void (async () => {
      const m = out.message;
      const answer = m.type === 'fetch' ? await target.receiveFetch(m, 500) : target.receiveRequest(m);
      if (answer !== null && !this.cut.has(from) && !this.cut.has(out.to)) this.delivers.get(from)?.(answer);
    })();
  }

  async until(what: string, done: () => boolean): Promise<void> {
    for (let i = 0; i < STEPS_MAX; i++) {
      if (done()) return;
      this.clock.advance(STEP_MS);
      for (const t of [...this.timers]) t();
      for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    }
    throw new Error(`not reached within ${STEPS_MAX} steps: ${what}`);
  }

  leader(among: readonly number[] = VOTERS): number | undefined {
    const leaders = among.filter((id) => this.logs.get(id)?.isLeader === true);
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  log(id: number): RaftMetadataLog {
    const l = this.logs.get(id);
    assert.ok(l !== undefined);
    return l;
  }

  config(id: number, key: string): string | undefined {
    return this.images.get(id)?.configs(4, '').get(key);
  }

  async close(): Promise<void> {
    for (const l of this.logs.values()) await l.close();
  }
}

const record = (i: number): MetadataRecord[] => [{ type: 'ConfigRecord', data: { resourceType: 4, resourceName: '', name: `k${i}`, value: `v${i}` } }];

test('an observer RaftMetadataLog replicates, refuses appends naming the leader, is listed by DescribeQuorum, and follows a new leader', async () => {
  const c = new Cluster();
  // Voters snapshot every 2 records, so the observer (started later) catches up from a snapshot.
  for (const id of VOTERS) await c.start(id, 2);
  try {
    await c.until('a leader', () => c.leader() !== undefined);
    const leader = c.leader() as number;
    for (let i = 1; i <= 5; i++) await Promise.all([c.log(leader).append(record(i)), c.until(`k${i} on the leader`, () => c.config(leader, `k${i}`) === `v${i}`)]);
    assert.ok(c.log(leader).logStartOffset > 0, 'the leader dropped its log prefix behind a snapshot');

    await c.start(OBSERVER);
    const obs = c.log(OBSERVER);
    assert.equal(obs.isObserver, true);
    assert.equal(c.log(leader).isObserver, false);
    await c.until('the observer catches up', () => c.config(OBSERVER, 'k5') === 'v5');
    assert.equal(obs.leaderId, leader);
    assert.ok(obs.logStartOffset > 0, 'it installed the leader snapshot');
    assert.equal(obs.isLeader, false);
    await Promise.all([c.log(leader).append(record(6)), c.until('k6 on the observer', () => c.config(OBSERVER, 'k6') === 'v6')]);

    await assert.rejects(obs.append(record(99)), (err: unknown) => {
      assert.ok(err instanceof NotLeaderError);
      assert.equal(err.leaderId, leader);
      assert.deepEqual(err.leaderEndpoint, { id: leader, host: `h${leader}`, port: 9000 + leader });
      return true;
    });
    const described = c.log(leader).describeQuorum();
    assert.deepEqual(described.voters.map((v) => v.replicaId), VOTERS);
    assert.deepEqual(described.observers.map((o) => o.replicaId), [OBSERVER]);
    assert.ok((described.observers[0]?.lastFetchTimestampMs ?? -1) >= 0);
    assert.deepEqual([...(c.sentTypes.get(OBSERVER) ?? [])].sort(), ['fetch->voter', 'fetchSnapshot->voter'], 'an observer sends only fetches, only to voters');

    // The leader is cut off: the voters elect another, and the observer follows it.
    c.cut.add(leader);
    const rest = VOTERS.filter((id) => id !== leader);
    await c.until('a new leader among the others', () => c.leader(rest) !== undefined);
    const second = c.leader(rest) as number;
    await Promise.all([c.log(second).append(record(7)), c.until('k7 on the observer', () => c.config(OBSERVER, 'k7') === 'v7')]);
    await c.until('the observer names the new leader', () => obs.leaderId === second);
    assert.ok(c.log(second).describeQuorum().observers.some((o) => o.replicaId === OBSERVER));
    assert.equal(c.images.get(OBSERVER)?.lastAppliedOffset, c.images.get(second)?.lastAppliedOffset, 'the observer applied exactly what the leader did');
  } finally {
    await c.close();
  }
});

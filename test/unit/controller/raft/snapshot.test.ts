/**
 * Raft snapshots (src/controller/raft): storage with a log start offset,
 * createSnapshot + prefix deletion, pollCommitted handing the snapshot to the
 * state machine, and a follower catching up through FetchSnapshot (chunked).
 * The seeded fault schedules with snapshots are in test/chaos/raft.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../../src/util/random.js';
import {
  DEFAULT_RAFT_TIMEOUTS,
  InMemoryRaftStorage,
  RaftNode,
  endOffsetForEpoch,
  epochAt,
  lastEpochOf,
  type CommittedEvent,
  type FetchResponse,
  type RaftEntry,
} from '../../../../src/controller/raft/index.js';
import { Net } from './net.js';

const e = (epoch: number, d: string): RaftEntry => ({ epoch, kind: 'data', data: Buffer.from(d) });
const text = (entries: readonly RaftEntry[]): string[] => entries.map((x) => `${x.epoch}:${Buffer.from(x.data).toString()}`);

/** A toy state machine: the data entries applied, in order, as text; loads snapshots of itself. */
class Applied {
  values: string[] = [];
  applied = 0;
  snapshots: number[] = [];
  take(node: RaftNode): void {
    for (let events: CommittedEvent[] = node.pollCommitted(3); events.length > 0; events = node.pollCommitted(3)) {
      for (const ev of events) {
        if (ev.kind === 'snapshot') {
          this.values = JSON.parse(Buffer.from(ev.snapshot.data).toString()) as string[];
          this.applied = ev.snapshot.endOffset;
          this.snapshots.push(ev.snapshot.endOffset);
        } else {
          assert.equal(ev.baseOffset, this.applied, 'entries follow what was applied');
          for (const x of ev.entries) if (x.kind === 'data') this.values.push(Buffer.from(x.data).toString());
          this.applied += ev.entries.length;
        }
      }
    }
  }
  encode(): Uint8Array {
    return Buffer.from(JSON.stringify(this.values));
  }
}

describe('raft snapshots: storage', () => {
  it('deleteBefore keeps offsets, hides the prefix, and the snapshot stands for the last deleted entry', () => {
    const s = new InMemoryRaftStorage();
    s.append([e(1, 'a'), e(1, 'b'), e(2, 'c'), e(3, 'd'), e(3, 'e')]);
    s.flush();
    assert.throws(() => s.deleteBefore(2), /snapshot covers/, 'no prefix deletion without a snapshot');
    s.writeSnapshot({ endOffset: 3, epoch: 2, data: Buffer.from('abc') });
    s.deleteBefore(3);
    assert.deepEqual([s.logStartOffset, s.endOffset, s.flushedEndOffset], [3, 5, 5]);
    assert.equal(s.entryAt(2), undefined);
    assert.equal(Buffer.from(s.entryAt(3)?.data ?? []).toString(), 'd');
    assert.deepEqual(text(s.read(3, 10)), ['3:d', '3:e']);
    assert.throws(() => s.read(2, 1), /within/);
    assert.equal(epochAt(s, 2), 2, 'the epoch of the snapshot’s last entry is known');
    assert.equal(epochAt(s, 1), undefined);
    assert.deepEqual(endOffsetForEpoch(s, 2), { epoch: 2, offset: 3 }, 'the snapshot boundary answers for deleted epochs');
    assert.deepEqual(endOffsetForEpoch(s, 1), { epoch: 0, offset: 0 }, 'epochs wholly below the snapshot are unknown');
    assert.deepEqual(endOffsetForEpoch(s, 9), { epoch: 3, offset: 5 });
    s.truncateTo(3);
    assert.equal(lastEpochOf(s), 2, 'an empty log after a snapshot: the snapshot’s epoch');
    assert.throws(() => s.truncateTo(2), /within/, 'never below the log start');
    s.append([e(4, 'f')]);
    s.crash(0);
    assert.deepEqual([s.logStartOffset, s.endOffset], [3, 3], 'a crash keeps the log start and the snapshot');
  });

  it('installSnapshot replaces the whole log', () => {
    const s = new InMemoryRaftStorage();
    s.append([e(1, 'a'), e(1, 'b')]);
    s.installSnapshot({ endOffset: 10, epoch: 4, data: Buffer.from('x') });
    assert.deepEqual([s.logStartOffset, s.endOffset, s.flushedEndOffset, lastEpochOf(s)], [10, 10, 10, 4]);
    assert.deepEqual(s.latestSnapshot()?.endOffset, 10);
  });
});

describe('raft snapshots: node', () => {
  it('createSnapshot needs applied, committed entries; drops the prefix; a restart loads the snapshot then the entries', () => {
    const net = new Net([1]);
    net.run(2_100);
    const node = net.node(1);
    const sm = new Applied();
    for (const d of ['a', 'b', 'c', 'd']) assert.ok(node.propose([Buffer.from(d)], net.nowMs).ok);
    assert.throws(() => node.createSnapshot(3, sm.encode()), /applied/, 'nothing applied yet');
    sm.take(node);
    assert.equal(sm.applied, 5);
    const snap = node.createSnapshot(3, Buffer.from(JSON.stringify(['a', 'b'])));
    assert.deepEqual([snap.endOffset, snap.epoch, node.logStartOffset], [3, 1, 3]);
    assert.throws(() => node.createSnapshot(3, sm.encode()), /ends after/);
    assert.deepEqual(node.readCommitted(0, 10), [], 'the prefix is gone');
    net.nodes.delete(1);
    net.start(1);
    const again = net.node(1);
    assert.equal(again.highWatermark, 3, 'a snapshot is committed by definition');
    const fresh = new Applied();
    fresh.take(again);
    assert.deepEqual(fresh.snapshots, [3]);
    assert.deepEqual(fresh.values, ['a', 'b'], 'only the snapshot until the high watermark is relearnt');
    net.run(2_100);
    fresh.take(again);
    assert.deepEqual(fresh.values, ['a', 'b', 'c', 'd']);
  });

  it('a restart finishes an interrupted install (snapshot beyond the log end) or deletion', () => {
    const storage = new InMemoryRaftStorage();
    storage.append([e(1, 'a'), e(1, 'b')]);
    storage.flush();
    storage.writeSnapshot({ endOffset: 7, epoch: 3, data: Buffer.from('[]') });
    const node = new RaftNode({ ...DEFAULT_RAFT_TIMEOUTS, nodeId: 1, voters: [1, 2, 3] }, storage, new SeededRandom(1), 0);
    assert.deepEqual([storage.logStartOffset, storage.endOffset, node.highWatermark], [7, 7, 7]);
    const other = new InMemoryRaftStorage();
    other.append([e(1, 'a'), e(1, 'b'), e(2, 'c')]);
    other.flush();
    other.writeSnapshot({ endOffset: 2, epoch: 1, data: Buffer.from('[]') });
    new RaftNode({ ...DEFAULT_RAFT_TIMEOUTS, nodeId: 1, voters: [1, 2, 3] }, other, new SeededRandom(1), 0);
    assert.deepEqual([other.logStartOffset, other.endOffset], [2, 3]);
  });

  it('a follower that was away while the leader snapshotted catches up through FetchSnapshot, in chunks', () => {
    const net = new Net([1, 2, 3], { snapshotChunkBytesMax: 8 });
    net.run(3_000);
    const leader = net.leader();
    const away = [...net.nodes.values()].find((n) => n !== leader);
    assert.ok(away !== undefined);
    const awayId = away.nodeId;
    net.nodes.delete(awayId);
    const sm = new Applied();
    for (let i = 0; i < 20; i++) assert.ok(leader.propose([Buffer.from(`v${i}`)], net.nowMs).ok);
    net.run(300);
    sm.take(leader);
    assert.equal(sm.values.length, 20);
    const snap = leader.createSnapshot(sm.applied, sm.encode());
    assert.ok(leader.propose([Buffer.from('after')], net.nowMs).ok);
    net.run(300);
    net.delivered.length = 0;
    net.start(awayId);
    net.run(4_000);
    const back = net.node(awayId);
    const storage = net.storage.get(awayId);
    assert.ok(storage !== undefined);
    const asked = net.delivered.filter((d) => d.to === leader.nodeId && d.message.type === 'fetchSnapshot');
    const size = snap.data.length;
    assert.ok(asked.length >= Math.ceil(size / 8), `${asked.length} FetchSnapshot chunks for ${size} bytes`);
    const answer = net.delivered.find((d): d is typeof d & { message: FetchResponse } => d.message.type === 'fetchResponse' && d.message.snapshotId !== null);
    assert.deepEqual(answer?.message.snapshotId, { offset: snap.endOffset, epoch: snap.epoch }, 'the leader pointed the follower at its snapshot');
    assert.deepEqual([storage.latestSnapshot()?.endOffset, storage.latestSnapshot()?.epoch], [snap.endOffset, snap.epoch]);
    assert.deepEqual(Buffer.from(storage.latestSnapshot()?.data ?? []), Buffer.from(snap.data), 'the chunks were reassembled');
    assert.equal(storage.logStartOffset, snap.endOffset);
    assert.equal(back.highWatermark, leader.highWatermark);
    const followerSm = new Applied();
    followerSm.take(back);
    assert.deepEqual(followerSm.snapshots, [snap.endOffset]);
    assert.deepEqual(followerSm.values, [...sm.values, 'after']);
  });

  it('a leader answers a fetch below its log start with its snapshot id, and a stale FetchSnapshot with snapshot_not_found', () => {
    const net = new Net([1, 2, 3]);
    net.run(3_000);
    const leader = net.leader();
    const follower = [...net.nodes.values()].find((n) => n !== leader);
    assert.ok(follower !== undefined);
    for (let i = 0; i < 5; i++) leader.propose([Buffer.from(`x${i}`)], net.nowMs);
    net.run(300);
    const sm = new Applied();
    sm.take(leader);
    const snap = leader.createSnapshot(sm.applied, sm.encode());
    const ask = (fetchOffset: number, lastFetchedEpoch: number) => {
      const out = leader.receive({ type: 'fetch', from: follower.nodeId, epoch: leader.epoch, fetchOffset, lastFetchedEpoch }, net.nowMs);
      const m = out[0]?.message;
      assert.ok(m?.type === 'fetchResponse');
      return m;
    };
    assert.deepEqual(ask(2, 1).snapshotId, { offset: snap.endOffset, epoch: snap.epoch });
    assert.deepEqual(ask(snap.endOffset, snap.epoch - 1).snapshotId, { offset: snap.endOffset, epoch: snap.epoch }, 'diverging at the boundary');
    assert.deepEqual(ask(snap.endOffset + 1, snap.epoch - 1).snapshotId, { offset: snap.endOffset, epoch: snap.epoch }, 'an epoch older than the snapshot’s');
    const ok = ask(snap.endOffset, snap.epoch);
    assert.equal(ok.snapshotId, null);
    assert.equal(ok.divergingEpoch, null);
    const stale = leader.receive({ type: 'fetchSnapshot', from: follower.nodeId, epoch: leader.epoch, snapshotId: { offset: 2, epoch: 1 }, position: 0 }, net.nowMs)[0]?.message;
    assert.ok(stale?.type === 'fetchSnapshotResponse');
    assert.equal(stale.error, 'snapshot_not_found');
    const chunk = leader.receive({ type: 'fetchSnapshot', from: follower.nodeId, epoch: leader.epoch, snapshotId: { offset: snap.endOffset, epoch: snap.epoch }, position: 3 }, net.nowMs)[0]?.message;
    assert.ok(chunk?.type === 'fetchSnapshotResponse');
    assert.deepEqual([chunk.error, chunk.position, chunk.size], ['none', 3, snap.data.length]);
    assert.deepEqual(Buffer.from(chunk.data), Buffer.from(snap.data).subarray(3));
  });
});

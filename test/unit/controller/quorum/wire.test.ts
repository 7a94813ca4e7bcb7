/**
 * Round trips of the quorum RPCs as Raft uses them: a random Raft message
 * goes to its Kafka form (src/controller/quorum/wire.ts), is encoded and
 * decoded by the schema codec at every version Raft may speak, and comes back
 * as the same message. Plus: malformed record bytes in a Fetch response are
 * refused, not asserted; Fetch v13+ names the metadata topic by its id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decode, encode } from '../../../../src/protocol/codec.js';
import type { Input, MessageSchema } from '../../../../src/protocol/schema.js';
import {
  BeginQuorumEpochRequest,
  FetchRequest as WireFetchRequest,
  FetchResponse as WireFetchResponse,
  FetchSnapshotRequest as WireFetchSnapshotRequest,
  FetchSnapshotResponse as WireFetchSnapshotResponse,
  VoteRequest as WireVoteRequest,
  VoteResponse as WireVoteResponse,
} from '../../../../src/protocol/messages/index.js';
import * as wire from '../../../../src/controller/quorum/wire.js';
import { buildLeaderChangeBatch } from '../../../../src/controller/quorum/snapshot-format.js';
import { encodeMetadataBatch } from '../../../../src/controller/metadata/batch.js';
import { METADATA_TOPIC_ID } from '../../../../src/controller/uuid.js';
import type { FetchRequest, FetchResponse, FetchSnapshotRequest, FetchSnapshotResponse, RaftEntry, VoteRequest, VoteResponse } from '../../../../src/controller/raft/types.js';

const RUNS = Number(process.env['ROUNDTRIP_RUNS'] ?? 100);
const SEED = process.env['RAFT_WIRE_SEED'] === undefined ? Date.now() % 0x7fffffff : Number(process.env['RAFT_WIRE_SEED']);
const params = { numRuns: RUNS, seed: SEED };

function through<S extends MessageSchema>(schema: S, version: number, value: Input<S>): ReturnType<typeof decode<S>> {
  return decode(schema, version, encode(schema, version, value));
}

const id = fc.integer({ min: 0, max: 1000 });
const epoch = fc.integer({ min: 0, max: 0x7fffffff });
const offset = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const offsetAndEpoch = fc.record({ offset, epoch }).map((r) => ({ ...r }));

const entry: fc.Arbitrary<RaftEntry> = fc.oneof(
  fc.record({ epoch, n: fc.integer({ min: 1, max: 4 }), v: fc.string({ maxLength: 20 }) }).map(({ epoch: e, n, v }) => ({
    epoch: e,
    kind: 'data' as const,
    data: withEpoch(encodeMetadataBatch(Array.from({ length: n }, (_, i) => ({ type: 'ConfigRecord' as const, data: { resourceType: 4, resourceName: '', name: `k${i}`, value: v } })), { timestampMs: 5 }), e),
  })),
  fc.record({ epoch, leader: id }).map(({ epoch: e, leader }) => ({ epoch: e, kind: 'leader_change' as const, data: buildLeaderChangeBatch(e, leader, [1, 2, 3], 5) })),
);

function withEpoch(batch: Buffer, e: number): Buffer {
  batch.writeInt32BE(e, 12);
  return batch;
}

test('Vote request and response round-trip at v0-2 (preVote needs v2)', () => {
  fc.assert(
    fc.property(id, id, epoch, fc.boolean(), epoch, offset, fc.boolean(), fc.option(id), fc.integer({ min: 0, max: 2 }), (from, to, e, preVote, lastEpoch, endOffset, granted, leaderId, version) => {
      const req: VoteRequest = { type: 'vote', from, epoch: e, preVote: version < 2 ? false : preVote, lastEpoch, endOffset };
      assert.deepEqual(wire.voteRequestFromWire(through(WireVoteRequest, version, wire.voteRequestToWire(req, to, 'c1'))), req);
      const res: VoteResponse = { type: 'voteResponse', from: to, epoch: e, preVote: req.preVote, granted, leaderId };
      assert.deepEqual(wire.voteResponseFromWire(through(WireVoteResponse, version, wire.voteResponseToWire(res)), req, to), res);
    }),
    params,
  );
});

test('BeginQuorumEpoch round-trips at v0-1', () => {
  fc.assert(
    fc.property(id, id, epoch, fc.integer({ min: 0, max: 1 }), (from, to, e, version) => {
      const m = { type: 'beginQuorumEpoch' as const, from, epoch: e };
      assert.deepEqual(wire.beginQuorumEpochFromWire(through(BeginQuorumEpochRequest, version, wire.beginQuorumEpochToWire(m, to, null))), m);
    }),
    params,
  );
});

test('Fetch request and response round-trip at v12-17, entries as record batches', () => {
  fc.assert(
    fc.property(
      id,
      id,
      epoch,
      offset,
      epoch,
      fc.integer({ min: 12, max: 17 }),
      fc.constantFrom<FetchResponse['error']>('none', 'fenced_epoch', 'not_leader'),
      fc.option(id),
      offset,
      fc.array(entry, { maxLength: 4 }),
      fc.option(offsetAndEpoch),
      fc.option(offsetAndEpoch),
      (from, leader, e, fetchOffset, lastFetchedEpoch, version, error, leaderId, hw, entries, divergingEpoch, snapshotId) => {
        const req: FetchRequest = { type: 'fetch', from, epoch: e, fetchOffset, lastFetchedEpoch };
        const wireReq = through(WireFetchRequest, version, wire.fetchRequestToWire(req));
        assert.ok(wire.isRaftFetch(wireReq));
        if (version >= 13) assert.equal(wireReq.topics[0]?.topicId, METADATA_TOPIC_ID);
        assert.deepEqual(wire.fetchRequestFromWire(wireReq, version), req);
        const res: FetchResponse = {
          type: 'fetchResponse',
          from: leader,
          epoch: e,
          error,
          leaderId,
          fetchOffset,
          lastFetchedEpoch,
          highWatermark: error === 'none' ? hw : 0,
          entries,
          divergingEpoch,
          snapshotId,
        };
        const back = wire.fetchResponseFromWire(through(WireFetchResponse, version, wire.fetchResponseToWire(res, 0)), req, leader);
        assert.ok(back !== null);
        assert.deepEqual({ ...back, entries: back.entries.map(plain) }, { ...res, entries: res.entries.map(plain) });
      },
    ),
    params,
  );
});

const plain = (e: RaftEntry): { epoch: number; kind: string; hex: string } => ({ epoch: e.epoch, kind: e.kind, hex: Buffer.from(e.data).toString('hex') });

test('FetchSnapshot request and response round-trip at v0', () => {
  fc.assert(
    fc.property(id, id, epoch, offsetAndEpoch, fc.integer({ min: 0, max: 2 ** 40 }), fc.uint8Array({ maxLength: 64 }), fc.constantFrom<FetchSnapshotResponse['error']>('none', 'fenced_epoch', 'not_leader', 'snapshot_not_found'), fc.option(id), (from, leader, e, snapshotId, position, data, error, leaderId) => {
      const req: FetchSnapshotRequest = { type: 'fetchSnapshot', from, epoch: e, snapshotId, position };
      assert.deepEqual(wire.fetchSnapshotRequestFromWire(through(WireFetchSnapshotRequest, 0, wire.fetchSnapshotRequestToWire(req, null, 1024))), req);
      const res: FetchSnapshotResponse = { type: 'fetchSnapshotResponse', from: leader, epoch: e, error, leaderId, snapshotId, position, size: position + data.length, data };
      const back = wire.fetchSnapshotResponseFromWire(through(WireFetchSnapshotResponse, 0, wire.fetchSnapshotResponseToWire(res)), req, leader);
      assert.ok(back !== null);
      assert.deepEqual({ ...back, data: Buffer.from(back.data).toString('hex') }, { ...res, data: Buffer.from(data).toString('hex') });
    }),
    params,
  );
});

test('records that are not whole, CRC-valid v2 batches are refused (null), never thrown on', () => {
  const good = encodeMetadataBatch([{ type: 'NoOpRecord', data: {} }], { timestampMs: 1 });
  assert.equal(wire.entriesFromRecords(good)?.length, 1);
  assert.equal(wire.entriesFromRecords(good.subarray(0, good.length - 1)), null);
  const flipped = Buffer.from(good);
  flipped.writeUInt8(flipped.readUInt8(flipped.length - 1) ^ 1, flipped.length - 1);
  assert.equal(wire.entriesFromRecords(flipped), null);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      const r = wire.entriesFromRecords(Buffer.from(bytes));
      assert.ok(r === null || Array.isArray(r));
    }),
    params,
  );
});

test('requests for another partition than __cluster_metadata-0 are not Raft messages', () => {
  const req = wire.voteRequestToWire({ type: 'vote', from: 1, epoch: 2, preVote: false, lastEpoch: 1, endOffset: 5 }, 2, null);
  const other = { ...req, topics: [{ topicName: 'orders', partitions: req.topics[0]?.partitions ?? [] }] };
  assert.equal(wire.voteRequestFromWire(through(WireVoteRequest, 2, other)), null);
  const p = req.topics[0]?.partitions[0];
  assert.ok(p !== undefined);
  const wrongPartition = { ...req, topics: [{ topicName: '__cluster_metadata', partitions: [{ ...p, partitionIndex: 1 }] }] };
  assert.equal(wire.voteRequestFromWire(through(WireVoteRequest, 2, wrongPartition)), null);
});

// ---- hand-built golden bytes (from the protocol spec, not our Writer) ----------------------

const i32 = (v: number): number[] => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
const i64 = (v: bigint): number[] => [...Buffer.from(BigInt.asUintN(64, v).toString(16).padStart(16, '0'), 'hex')];
const compactString = (s: string): number[] => [Buffer.byteLength(s) + 1, ...Buffer.from(s)];
const ZERO_UUID_BYTES = new Array<number>(16).fill(0);
const METADATA = compactString('__cluster_metadata');

test('golden: Vote v2 request (flexible, preVote) and v0 (no voterId, directory ids, preVote)', () => {
  const v2 = Buffer.from([
    ...compactString('c1'), // clusterId
    ...i32(2), // voterId
    2, // topics: 1
    ...METADATA,
    2, // partitions: 1
    ...i32(0), // partitionIndex
    ...i32(5), // replicaEpoch
    ...i32(1), // replicaId
    ...ZERO_UUID_BYTES, // replicaDirectoryId
    ...ZERO_UUID_BYTES, // voterDirectoryId
    ...i32(4), // lastEpoch
    ...i64(10n), // lastEndOffset
    1, // preVote
    0, // partition tags
    0, // topic tags
    0, // message tags
  ]);
  const req: VoteRequest = { type: 'vote', from: 1, epoch: 5, preVote: true, lastEpoch: 4, endOffset: 10 };
  assert.deepEqual(encode(WireVoteRequest, 2, wire.voteRequestToWire(req, 2, 'c1')), v2);
  assert.deepEqual(wire.voteRequestFromWire(decode(WireVoteRequest, 2, v2)), req);
  const v0 = Buffer.from([...compactString('c1'), 2, ...METADATA, 2, ...i32(0), ...i32(5), ...i32(1), ...i32(4), ...i64(10n), 0, 0, 0]);
  const real = { ...req, preVote: false };
  assert.deepEqual(encode(WireVoteRequest, 0, wire.voteRequestToWire(real, 2, 'c1')), v0);
  assert.deepEqual(wire.voteRequestFromWire(decode(WireVoteRequest, 0, v0)), real);
});

test('golden: FetchSnapshot v0 response with currentLeader as tagged field 0', () => {
  const chunk = [1, 2, 3];
  const bytes = Buffer.from([
    ...i32(0), // throttleTimeMs
    0,
    0, // errorCode
    2, // topics: 1
    ...METADATA,
    2, // partitions: 1
    ...i32(0), // index
    0,
    0, // errorCode
    ...i64(40n), // snapshotId.endOffset
    ...i32(3), // snapshotId.epoch
    0, // snapshotId tags
    ...i64(100n), // size
    ...i64(8n), // position
    chunk.length + 1,
    ...chunk, // unalignedRecords (compact records)
    1, // partition tags: 1
    0, // tag 0: currentLeader
    9, // its size
    ...i32(2), // leaderId
    ...i32(3), // leaderEpoch
    0, // currentLeader tags
    0, // topic tags
    0, // message tags
  ]);
  const res: FetchSnapshotResponse = { type: 'fetchSnapshotResponse', from: 2, epoch: 3, error: 'none', leaderId: 2, snapshotId: { offset: 40, epoch: 3 }, position: 8, size: 100, data: Buffer.from(chunk) };
  assert.deepEqual(encode(WireFetchSnapshotResponse, 0, wire.fetchSnapshotResponseToWire(res)), bytes);
  const sent: FetchSnapshotRequest = { type: 'fetchSnapshot', from: 1, epoch: 3, snapshotId: { offset: 40, epoch: 3 }, position: 8 };
  const back = wire.fetchSnapshotResponseFromWire(decode(WireFetchSnapshotResponse, 0, bytes), sent, 2);
  assert.deepEqual(back === null ? null : { ...back, data: Buffer.from(back.data) }, res);
});

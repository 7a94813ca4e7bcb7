/**
 * Raft messages (raft/types.ts) <-> KRaft wire RPCs: Vote (52),
 * BeginQuorumEpoch (53), Fetch (1) on `__cluster_metadata-0`, FetchSnapshot
 * (59). Pure functions; the transport and the handlers use them.
 *
 * Offsets on the wire are the Raft core's: they count ENTRIES (one entry = one
 * record batch), not records as KRaft's do. fetchOffset, highWatermark,
 * divergingEpoch.endOffset, snapshotId.endOffset, Vote's lastEndOffset and
 * DescribeQuorum's logEndOffset are entry offsets; the batches in `records`
 * keep their record offsets. Only Tributary controllers speak this dialect to
 * each other (a mixed Apache Kafka / Tributary quorum is not a goal).
 *
 * A response carries what the request asked about only partly (Kafka does not
 * echo fetchOffset or preVote), so `*FromWire` for responses takes the request
 * the caller sent. Bytes from the network are validated: anything malformed
 * gives null and the message is dropped (the core resends on its timers).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { batchCrcIsValid, batchSizeAt, BATCH_HEADER_BYTES, isControlBatch, readBatchHeader } from '../../protocol/record-batch/index.js';
import type { Infer, Input } from '../../protocol/schema.js';
import type { BeginQuorumEpochRequest as WireBeginQuorumEpochRequest, BeginQuorumEpochResponse as WireBeginQuorumEpochResponse } from '../../protocol/messages/53-begin-quorum-epoch.js';
import type { EndQuorumEpochRequest as WireEndQuorumEpochRequest, EndQuorumEpochResponse as WireEndQuorumEpochResponse } from '../../protocol/messages/54-end-quorum-epoch.js';
import type { FetchRequest as WireFetchRequest, FetchResponse as WireFetchResponse } from '../../protocol/messages/01-fetch.js';
import type { FetchSnapshotRequest as WireFetchSnapshotRequest, FetchSnapshotResponse as WireFetchSnapshotResponse } from '../../protocol/messages/59-fetch-snapshot.js';
import type { VoteRequest as WireVoteRequest, VoteResponse as WireVoteResponse } from '../../protocol/messages/52-vote.js';
import { METADATA_PARTITION, METADATA_TOPIC } from '../metadata-log.js';
import { METADATA_TOPIC_ID } from '../uuid.js';
import type {
  BeginQuorumEpoch,
  EndQuorumEpoch,
  FetchError,
  FetchRequest,
  FetchResponse,
  FetchSnapshotError,
  FetchSnapshotRequest,
  FetchSnapshotResponse,
  NodeId,
  RaftEntry,
  VoteRequest,
  VoteResponse,
} from '../raft/types.js';

const INT32_MAX = 0x7fffffff;

type In<S> = Input<S>;

function safeOffset(v: bigint): number | null {
  return v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
}

function isEpoch(v: number): boolean {
  return Number.isSafeInteger(v) && v >= 0;
}

function fetchErrorCode(e: FetchError | FetchSnapshotError): number {
  switch (e) {
    case 'none':
      return ErrorCode.NONE;
    case 'fenced_epoch':
      return ErrorCode.FENCED_LEADER_EPOCH;
    case 'not_leader':
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    case 'snapshot_not_found':
      return ErrorCode.SNAPSHOT_NOT_FOUND;
  }
}

function fetchErrorOf(code: number): FetchSnapshotError | null {
  if (code === ErrorCode.NONE) return 'none';
  if (code === ErrorCode.FENCED_LEADER_EPOCH) return 'fenced_epoch';
  if (code === ErrorCode.NOT_LEADER_OR_FOLLOWER) return 'not_leader';
  if (code === ErrorCode.SNAPSHOT_NOT_FOUND) return 'snapshot_not_found';
  return null;
}

/** The one partition of `__cluster_metadata` in a request/response topic list, or null. */
function onlyPartition<P extends { partitionIndex?: number; partition?: number; index?: number }>(topics: readonly { topicName?: string; topic?: string; name?: string; topicId?: string; partitions: readonly P[] }[]): P | null {
  if (topics.length !== 1) return null;
  const t = topics[0] as (typeof topics)[number];
  const named = t.topicName ?? t.topic ?? t.name;
  if (named !== METADATA_TOPIC && t.topicId !== METADATA_TOPIC_ID) return null;
  if (t.partitions.length !== 1) return null;
  const p = t.partitions[0] as P;
  const index = p.partitionIndex ?? p.partition ?? p.index;
  return index === METADATA_PARTITION ? p : null;
}

// ---- Vote (52) ----------------------------------------------------------------------------

export function voteRequestToWire(m: VoteRequest, to: NodeId, clusterId: string | null): In<typeof WireVoteRequest> {
  return {
    clusterId,
    voterId: to,
    topics: [
      {
        topicName: METADATA_TOPIC,
        partitions: [{ partitionIndex: METADATA_PARTITION, replicaEpoch: m.epoch, replicaId: m.from, lastEpoch: m.lastEpoch, lastEndOffset: BigInt(m.endOffset), preVote: m.preVote }],
      },
    ],
  };
}

export function voteRequestFromWire(r: Infer<typeof WireVoteRequest>): VoteRequest | null {
  const p = onlyPartition(r.topics);
  if (p === null) return null;
  const endOffset = safeOffset(p.lastEndOffset);
  if (endOffset === null || !isEpoch(p.replicaEpoch) || !isEpoch(p.lastEpoch) || p.replicaId < 0) return null;
  return { type: 'vote', from: p.replicaId, epoch: p.replicaEpoch, preVote: p.preVote, lastEpoch: p.lastEpoch, endOffset };
}

export function voteResponseToWire(m: VoteResponse): In<typeof WireVoteResponse> {
  return {
    errorCode: ErrorCode.NONE,
    topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, errorCode: ErrorCode.NONE, leaderId: m.leaderId ?? -1, leaderEpoch: m.epoch, voteGranted: m.granted }] }],
  };
}

export function voteResponseFromWire(r: Infer<typeof WireVoteResponse>, sent: VoteRequest, from: NodeId): VoteResponse | null {
  const p = onlyPartition(r.topics);
  if (r.errorCode !== ErrorCode.NONE || p === null || p.errorCode !== ErrorCode.NONE || !isEpoch(p.leaderEpoch)) return null;
  return { type: 'voteResponse', from, epoch: p.leaderEpoch, preVote: sent.preVote, granted: p.voteGranted, leaderId: p.leaderId < 0 ? null : p.leaderId };
}

// ---- BeginQuorumEpoch (53) ---------------------------------------------------------------------

export function beginQuorumEpochToWire(m: BeginQuorumEpoch, to: NodeId, clusterId: string | null): In<typeof WireBeginQuorumEpochRequest> {
  return {
    clusterId,
    voterId: to,
    topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, leaderId: m.from, leaderEpoch: m.epoch }] }],
    leaderEndpoints: [],
  };
}

export function beginQuorumEpochFromWire(r: Infer<typeof WireBeginQuorumEpochRequest>): BeginQuorumEpoch | null {
  const p = onlyPartition(r.topics);
  if (p === null || p.leaderId < 0 || !isEpoch(p.leaderEpoch)) return null;
  return { type: 'beginQuorumEpoch', from: p.leaderId, epoch: p.leaderEpoch };
}

export function beginQuorumEpochResponseToWire(errorCode: number, leaderId: NodeId | null, epoch: number): In<typeof WireBeginQuorumEpochResponse> {
  return { errorCode, topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, errorCode, leaderId: leaderId ?? -1, leaderEpoch: epoch }] }] };
}

// ---- EndQuorumEpoch (54) -------------------------------------------------------------------

/** Sent as v0 (preferredSuccessors); v1's preferredCandidates carry directory ids we do not use. */
export function endQuorumEpochToWire(m: EndQuorumEpoch, clusterId: string | null): In<typeof WireEndQuorumEpochRequest> {
  const partition = { partitionIndex: METADATA_PARTITION, leaderId: m.from, leaderEpoch: m.epoch, preferredSuccessors: [...m.preferredSuccessors] };
  return { clusterId, topics: [{ topicName: METADATA_TOPIC, partitions: [partition] }], leaderEndpoints: [] };
}

/** v0's preferredSuccessors or v1's preferredCandidates (ids only). */
export function endQuorumEpochFromWire(r: Infer<typeof WireEndQuorumEpochRequest>): EndQuorumEpoch | null {
  const p = onlyPartition(r.topics);
  if (p === null || p.leaderId < 0 || !isEpoch(p.leaderEpoch)) return null;
  const successors = p.preferredSuccessors.length > 0 ? p.preferredSuccessors : p.preferredCandidates.map((c) => c.candidateId);
  return { type: 'endQuorumEpoch', from: p.leaderId, epoch: p.leaderEpoch, preferredSuccessors: successors.filter((id) => id >= 0) };
}

export function endQuorumEpochResponseToWire(errorCode: number, leaderId: NodeId | null, epoch: number): In<typeof WireEndQuorumEpochResponse> {
  return { errorCode, topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: METADATA_PARTITION, errorCode, leaderId: leaderId ?? -1, leaderEpoch: epoch }] }] };
}

// ---- Fetch (1) -----------------------------------------------------------------------------

/** How long a follower lets the leader hold its Fetch when there is nothing new (KRaft long poll). */
export const RAFT_FETCH_MAX_WAIT_MS = 500;

export function fetchRequestToWire(m: FetchRequest): In<typeof WireFetchRequest> {
  return {
    replicaId: m.from,
    replicaState: { replicaId: m.from, replicaEpoch: -1n },
    maxWaitMs: RAFT_FETCH_MAX_WAIT_MS,
    minBytes: 0,
    maxBytes: INT32_MAX,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: METADATA_TOPIC,
        topicId: METADATA_TOPIC_ID,
        partitions: [
          {
            partition: METADATA_PARTITION,
            currentLeaderEpoch: m.epoch,
            fetchOffset: BigInt(m.fetchOffset),
            lastFetchedEpoch: m.lastFetchedEpoch,
            logStartOffset: -1n,
            partitionMaxBytes: INT32_MAX,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

/** True when a Fetch is Raft's (the metadata partition, by name before v13 or by the sentinel id). */
export function isRaftFetch(r: Infer<typeof WireFetchRequest>): boolean {
  return r.topics.some((t) => t.topic === METADATA_TOPIC || t.topicId === METADATA_TOPIC_ID);
}

/** The core's Fetch plus how long the follower lets the leader hold it. */
export function fetchRequestFromWire(r: Infer<typeof WireFetchRequest>, version: number): FetchRequest | null {
  const p = onlyPartition(r.topics);
  const from = version >= 15 ? r.replicaState.replicaId : r.replicaId;
  if (p === null || from < 0) return null;
  const fetchOffset = safeOffset(p.fetchOffset);
  if (fetchOffset === null || !isEpoch(p.currentLeaderEpoch) || !isEpoch(p.lastFetchedEpoch)) return null;
  return { type: 'fetch', from, epoch: p.currentLeaderEpoch, fetchOffset, lastFetchedEpoch: p.lastFetchedEpoch };
}

/** A fetch answered with an error before the core saw it (bad request). */
export function fetchErrorResponseToWire(errorCode: number): In<typeof WireFetchResponse> {
  return {
    errorCode,
    responses: [{ topic: METADATA_TOPIC, topicId: METADATA_TOPIC_ID, partitions: [{ partitionIndex: METADATA_PARTITION, errorCode, highWatermark: -1n, abortedTransactions: null, records: null }] }],
  };
}

export function fetchResponseToWire(m: FetchResponse, logStartOffset: number): In<typeof WireFetchResponse> {
  const records = m.entries.length === 0 ? null : Buffer.concat(m.entries.map((e) => Buffer.from(e.data.buffer, e.data.byteOffset, e.data.byteLength)));
  return {
    errorCode: ErrorCode.NONE,
    responses: [
      {
        topic: METADATA_TOPIC,
        topicId: METADATA_TOPIC_ID,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION,
            errorCode: fetchErrorCode(m.error),
            highWatermark: BigInt(m.highWatermark),
            lastStableOffset: BigInt(m.highWatermark),
            logStartOffset: BigInt(logStartOffset),
            ...(m.divergingEpoch === null ? {} : { divergingEpoch: { epoch: m.divergingEpoch.epoch, endOffset: BigInt(m.divergingEpoch.offset) } }),
            currentLeader: { leaderId: m.leaderId ?? -1, leaderEpoch: m.epoch },
            ...(m.snapshotId === null ? {} : { snapshotId: { endOffset: BigInt(m.snapshotId.offset), epoch: m.snapshotId.epoch } }),
            abortedTransactions: null,
            records,
          },
        ],
      },
    ],
  };
}

/** Splits `records` into entries (one whole, CRC-valid v2 batch each); null when anything is off. */
export function entriesFromRecords(records: Buffer | null): RaftEntry[] | null {
  if (records === null || records.length === 0) return [];
  const out: RaftEntry[] = [];
  let p = 0;
  while (p < records.length) {
    if (records.length - p < BATCH_HEADER_BYTES) return null;
    const size = batchSizeAt(records, p);
    if (size < BATCH_HEADER_BYTES || p + size > records.length) return null;
    const bytes = Buffer.from(records.subarray(p, p + size));
    if (bytes.readInt8(16) !== 2 || !batchCrcIsValid(bytes)) return null;
    const h = readBatchHeader(bytes);
    if (h.lastOffsetDelta < 0 || !isEpoch(h.partitionLeaderEpoch)) return null;
    out.push({ epoch: h.partitionLeaderEpoch, kind: isControlBatch(h.attributes) ? 'leader_change' : 'data', data: bytes });
    p += size;
  }
  return out;
}

export function fetchResponseFromWire(r: Infer<typeof WireFetchResponse>, sent: FetchRequest, from: NodeId): FetchResponse | null {
  const t = r.responses[0];
  if (r.responses.length !== 1 || t === undefined || t.partitions.length !== 1) return null;
  const p = t.partitions[0] as (typeof t.partitions)[number];
  const error = fetchErrorOf(p.errorCode);
  if (error === null || error === 'snapshot_not_found' || !isEpoch(p.currentLeader.leaderEpoch)) return null;
  const highWatermark = error === 'none' ? safeOffset(p.highWatermark) : 0;
  const entries = entriesFromRecords(Buffer.isBuffer(p.records) ? p.records : null);
  if (highWatermark === null || entries === null) return null;
  let divergingEpoch = null;
  if (p.divergingEpoch.epoch >= 0) {
    const offset = safeOffset(p.divergingEpoch.endOffset);
    if (offset === null) return null;
    divergingEpoch = { epoch: p.divergingEpoch.epoch, offset };
  }
  let snapshotId = null;
  if (p.snapshotId.epoch >= 0) {
    const offset = safeOffset(p.snapshotId.endOffset);
    if (offset === null) return null;
    snapshotId = { epoch: p.snapshotId.epoch, offset };
  }
  return {
    type: 'fetchResponse',
    from,
    epoch: p.currentLeader.leaderEpoch,
    error,
    leaderId: p.currentLeader.leaderId < 0 ? null : p.currentLeader.leaderId,
    fetchOffset: sent.fetchOffset,
    lastFetchedEpoch: sent.lastFetchedEpoch,
    highWatermark,
    entries,
    divergingEpoch,
    snapshotId,
  };
}

// ---- FetchSnapshot (59) ----------------------------------------------------------------------

export function fetchSnapshotRequestToWire(m: FetchSnapshotRequest, clusterId: string | null, maxBytes: number): In<typeof WireFetchSnapshotRequest> {
  return {
    clusterId,
    replicaId: m.from,
    maxBytes,
    topics: [
      {
        name: METADATA_TOPIC,
        partitions: [
          { partition: METADATA_PARTITION, currentLeaderEpoch: m.epoch, snapshotId: { endOffset: BigInt(m.snapshotId.offset), epoch: m.snapshotId.epoch }, position: BigInt(m.position) },
        ],
      },
    ],
  };
}

export function fetchSnapshotRequestFromWire(r: Infer<typeof WireFetchSnapshotRequest>): FetchSnapshotRequest | null {
  const p = onlyPartition(r.topics);
  if (p === null || r.replicaId < 0 || !isEpoch(p.currentLeaderEpoch) || !isEpoch(p.snapshotId.epoch)) return null;
  const offset = safeOffset(p.snapshotId.endOffset);
  const position = safeOffset(p.position);
  if (offset === null || position === null) return null;
  return { type: 'fetchSnapshot', from: r.replicaId, epoch: p.currentLeaderEpoch, snapshotId: { offset, epoch: p.snapshotId.epoch }, position };
}

export function fetchSnapshotResponseToWire(m: FetchSnapshotResponse): In<typeof WireFetchSnapshotResponse> {
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    topics: [
      {
        name: METADATA_TOPIC,
        partitions: [
          {
            index: METADATA_PARTITION,
            errorCode: fetchErrorCode(m.error),
            snapshotId: { endOffset: BigInt(m.snapshotId.offset), epoch: m.snapshotId.epoch },
            currentLeader: { leaderId: m.leaderId ?? -1, leaderEpoch: m.epoch },
            size: BigInt(m.size),
            position: BigInt(m.position),
            unalignedRecords: Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength),
          },
        ],
      },
    ],
  };
}

export function fetchSnapshotErrorResponseToWire(errorCode: number): In<typeof WireFetchSnapshotResponse> {
  return { throttleTimeMs: 0, errorCode, topics: [] };
}

export function fetchSnapshotResponseFromWire(r: Infer<typeof WireFetchSnapshotResponse>, sent: FetchSnapshotRequest, from: NodeId): FetchSnapshotResponse | null {
  const p = onlyPartition(r.topics);
  if (r.errorCode !== ErrorCode.NONE || p === null) return null;
  const error = fetchErrorOf(p.errorCode);
  const size = safeOffset(p.size);
  const position = safeOffset(p.position);
  if (error === null || size === null || position === null || !isEpoch(p.currentLeader.leaderEpoch)) return null;
  return {
    type: 'fetchSnapshotResponse',
    from,
    epoch: p.currentLeader.leaderEpoch,
    error,
    leaderId: p.currentLeader.leaderId < 0 ? null : p.currentLeader.leaderId,
    snapshotId: sent.snapshotId,
    position,
    size,
    data: Buffer.isBuffer(p.unalignedRecords) ? p.unalignedRecords : Buffer.alloc(0),
  };
}

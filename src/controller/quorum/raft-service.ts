/**
 * RaftService: what the broker's handlers call to answer the quorum RPCs
 * (Vote 52, BeginQuorumEpoch 53, EndQuorumEpoch 54, DescribeQuorum 55, FetchSnapshot 59 and the
 * raft branch of Fetch 1). A node without one (broker-only) answers these
 * APIs with UNSUPPORTED_VERSION. Requests are translated to Raft messages
 * (wire.ts), fed to the node, and the node's answer translated back.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { Infer, Input } from '../../protocol/schema.js';
import type { BeginQuorumEpochRequest, BeginQuorumEpochResponse } from '../../protocol/messages/53-begin-quorum-epoch.js';
import type { EndQuorumEpochRequest, EndQuorumEpochResponse } from '../../protocol/messages/54-end-quorum-epoch.js';
import type { DescribeQuorumRequest, DescribeQuorumResponse } from '../../protocol/messages/55-describe-quorum.js';
import type { FetchRequest, FetchResponse } from '../../protocol/messages/01-fetch.js';
import type { FetchSnapshotRequest, FetchSnapshotResponse } from '../../protocol/messages/59-fetch-snapshot.js';
import type { VoteRequest, VoteResponse } from '../../protocol/messages/52-vote.js';
import { METADATA_PARTITION, METADATA_TOPIC } from '../metadata-log.js';
import type { FetchRequest as RaftFetchRequest, NodeId, RaftMessage } from '../raft/types.js';
import {
  beginQuorumEpochFromWire,
  beginQuorumEpochResponseToWire,
  endQuorumEpochFromWire,
  endQuorumEpochResponseToWire,
  fetchErrorResponseToWire,
  fetchRequestFromWire,
  fetchResponseToWire,
  fetchSnapshotErrorResponseToWire,
  fetchSnapshotRequestFromWire,
  fetchSnapshotResponseToWire,
  voteRequestFromWire,
  voteResponseToWire,
} from './wire.js';

/** One voter as the leader sees it (DescribeQuorum). Offsets count entries. */
export interface VoterState {
  readonly replicaId: NodeId;
  /** Last validated fetch position (the leader: its own end offset); -1 when unknown. */
  readonly logEndOffset: number;
  /** Wall-clock ms of its last fetch; -1 when unknown (and for the leader itself). */
  readonly lastFetchTimestampMs: number;
  /** Wall-clock ms when it last fetched at the leader's end offset; -1 when never. */
  readonly lastCaughtUpTimestampMs: number;
}

export interface QuorumDescription {
  readonly leaderId: NodeId | null;
  readonly epoch: number;
  readonly highWatermark: number;
  readonly isLeader: boolean;
  readonly voters: readonly VoterState[];
  /** Non-voters fetching from the leader (broker-only nodes), KRaft's DescribeQuorum Observers. */
  readonly observers: readonly VoterState[];
}

/** What the service needs from the log (RaftMetadataLog implements it). */
export interface RaftEndpoint {
  readonly clusterId: string | null;
  /** Feeds one request to the node; returns the node's answer to its sender, if any. */
  receiveRequest(message: RaftMessage): RaftMessage | null;
  /** A Fetch: answered at once when there is news for the follower, else held up to `maxWaitMs` (long poll). */
  receiveFetch(message: RaftFetchRequest, maxWaitMs: number): Promise<RaftMessage | null>;
  /** The node's current fetch-able log start (entries), for Fetch responses. */
  readonly logStartOffset: number;
  readonly epoch: number;
  readonly leaderId: NodeId | null;
  describeQuorum(): QuorumDescription;
}

export class RaftService {
  constructor(private readonly endpoint: RaftEndpoint) {}

  private clusterOk(clusterId: string | null): boolean {
    return clusterId === null || this.endpoint.clusterId === null || clusterId === this.endpoint.clusterId;
  }

  vote(req: Infer<typeof VoteRequest>): Input<typeof VoteResponse> {
    if (!this.clusterOk(req.clusterId)) return { errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, topics: [] };
    const msg = voteRequestFromWire(req);
    if (msg === null) return { errorCode: ErrorCode.INVALID_REQUEST, topics: [] };
    const answer = this.endpoint.receiveRequest(msg);
    if (answer === null || answer.type !== 'voteResponse') return { errorCode: ErrorCode.INVALID_REQUEST, topics: [] };
    return voteResponseToWire(answer);
  }

  beginQuorumEpoch(req: Infer<typeof BeginQuorumEpochRequest>): Input<typeof BeginQuorumEpochResponse> {
    if (!this.clusterOk(req.clusterId)) return { errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, topics: [] };
    const msg = beginQuorumEpochFromWire(req);
    if (msg === null) return { errorCode: ErrorCode.INVALID_REQUEST, topics: [] };
    this.endpoint.receiveRequest(msg);
    return beginQuorumEpochResponseToWire(ErrorCode.NONE, this.endpoint.leaderId, this.endpoint.epoch);
  }

  /** A resigning leader's EndQuorumEpoch: the node starts an election (see RaftNode.resign). */
  endQuorumEpoch(req: Infer<typeof EndQuorumEpochRequest>): Input<typeof EndQuorumEpochResponse> {
    if (!this.clusterOk(req.clusterId)) return { errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, topics: [] };
    const msg = endQuorumEpochFromWire(req);
    if (msg === null) return { errorCode: ErrorCode.INVALID_REQUEST, topics: [] };
    this.endpoint.receiveRequest(msg);
    return endQuorumEpochResponseToWire(ErrorCode.NONE, this.endpoint.leaderId, this.endpoint.epoch);
  }

  async fetch(req: Infer<typeof FetchRequest>, version: number): Promise<Input<typeof FetchResponse>> {
    if (!this.clusterOk(req.clusterId)) return fetchErrorResponseToWire(ErrorCode.INCONSISTENT_CLUSTER_ID);
    const msg = fetchRequestFromWire(req, version);
    if (msg === null) return fetchErrorResponseToWire(ErrorCode.INVALID_REQUEST);
    const answer = await this.endpoint.receiveFetch(msg, Math.max(0, req.maxWaitMs));
    // The core drops requests it finds invalid (offsets it cannot place): answer so the client moves on.
    if (answer === null || answer.type !== 'fetchResponse') return fetchErrorResponseToWire(ErrorCode.INVALID_REQUEST);
    return fetchResponseToWire(answer, this.endpoint.logStartOffset);
  }

  fetchSnapshot(req: Infer<typeof FetchSnapshotRequest>): Input<typeof FetchSnapshotResponse> {
    if (!this.clusterOk(req.clusterId)) return fetchSnapshotErrorResponseToWire(ErrorCode.INCONSISTENT_CLUSTER_ID);
    const msg = fetchSnapshotRequestFromWire(req);
    if (msg === null) return fetchSnapshotErrorResponseToWire(ErrorCode.INVALID_REQUEST);
    const answer = this.endpoint.receiveRequest(msg);
    if (answer === null || answer.type !== 'fetchSnapshotResponse') return fetchSnapshotErrorResponseToWire(ErrorCode.INVALID_REQUEST);
    return fetchSnapshotResponseToWire(answer);
  }

  /** The leader answers with every voter's progress; others with NOT_LEADER_OR_FOLLOWER (and the leader they know). */
  describeQuorum(req: Infer<typeof DescribeQuorumRequest>): Input<typeof DescribeQuorumResponse> {
    const asked = req.topics.find((t) => t.topicName === METADATA_TOPIC)?.partitions.some((p) => p.partitionIndex === METADATA_PARTITION) ?? false;
    if (!asked) return { errorCode: ErrorCode.INVALID_REQUEST, topics: [] };
    const d = this.endpoint.describeQuorum();
    const base = { partitionIndex: METADATA_PARTITION, leaderId: d.leaderId ?? -1, leaderEpoch: d.epoch };
    if (!d.isLeader) {
      return { errorCode: ErrorCode.NONE, topics: [{ topicName: METADATA_TOPIC, partitions: [{ ...base, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, highWatermark: -1n, currentVoters: [], observers: [] }] }] };
    }
    const toWire = (v: VoterState): { replicaId: number; logEndOffset: bigint; lastFetchTimestamp: bigint; lastCaughtUpTimestamp: bigint } => ({
      replicaId: v.replicaId,
      logEndOffset: BigInt(v.logEndOffset),
      lastFetchTimestamp: BigInt(v.lastFetchTimestampMs),
      lastCaughtUpTimestamp: BigInt(v.lastCaughtUpTimestampMs),
    });
    const currentVoters = d.voters.map(toWire);
    const observers = d.observers.map(toWire);
    return {
      errorCode: ErrorCode.NONE,
      topics: [{ topicName: METADATA_TOPIC, partitions: [{ ...base, errorCode: ErrorCode.NONE, highWatermark: BigInt(d.highWatermark), currentVoters, observers }] }],
    };
  }
}

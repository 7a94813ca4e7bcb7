/**
 * RaftTransport: how a RaftMetadataLog reaches the other voters.
 *
 * Outbound only: the node's requests (Vote, BeginQuorumEpoch, Fetch,
 * FetchSnapshot) go out as Kafka requests over one client Connection per
 * other voter (src/net/connection.ts: framing, version negotiation,
 * pipelining); each response is turned back into a Raft message and handed to
 * `deliver`. Inbound requests are answered by the node's server (handlers
 * 52/53/55/59 and the raft branch of Fetch, through `RaftService`).
 *
 * Fire and forget: a message that cannot be sent (peer down, connecting) is
 * dropped, except the last few queued while a connection is being opened; the
 * core resends on its timers, so nothing here retries. A failed connection is
 * reopened on the next send after `reconnectBackoffMs`.
 *
 * Peer loss: a connect that fails (refused, reset, timed out) or a connection
 * the peer closes or resets (a killed process's sockets are reset by its kernel at
 * once) is reported through `onPeerUnreachable`, so the node need not wait
 * for its fetch timeout to learn that its leader is gone (RaftNode
 * `leaderUnreachable`). Request timeouts are not reported: a slow peer is not
 * a dead one, and the fetch timeout covers it.
 */
import { Connection, type ConnectionSecurity } from '../../net/connection.js';
import { ConnectionClosedError, RequestTimeoutError } from '../../net/errors.js';
import { EndQuorumEpochRequest, EndQuorumEpochResponse } from '../../protocol/messages/54-end-quorum-epoch.js';
import { BeginQuorumEpochRequest, BeginQuorumEpochResponse } from '../../protocol/messages/53-begin-quorum-epoch.js';
import { FetchRequest as WireFetchRequest, FetchResponse as WireFetchResponse } from '../../protocol/messages/01-fetch.js';
import { FetchSnapshotRequest as WireFetchSnapshotRequest, FetchSnapshotResponse as WireFetchSnapshotResponse } from '../../protocol/messages/59-fetch-snapshot.js';
import { VoteRequest as WireVoteRequest, VoteResponse as WireVoteResponse } from '../../protocol/messages/52-vote.js';
import type { Clock } from '../../util/clock.js';
import type { NodeId, Outbound, RaftMessage } from '../raft/types.js';
import {
  beginQuorumEpochToWire,
  endQuorumEpochToWire,
  fetchRequestToWire,
  fetchResponseFromWire,
  fetchSnapshotRequestToWire,
  fetchSnapshotResponseFromWire,
  voteRequestToWire,
  voteResponseFromWire,
} from './wire.js';

export interface VoterEndpoint {
  readonly id: NodeId;
  readonly host: string;
  readonly port: number;
}

export interface RaftTransport {
  /** Sends one request to `out.to`; its answer (if any) comes back through the transport's `deliver`. */
  send(out: Outbound): void;
  close(): Promise<void>;
}

export interface KafkaRaftTransportOptions {
  self: NodeId;
  voters: readonly VoterEndpoint[];
  clusterId: string | null;
  clock: Clock;
  deliver: (message: RaftMessage) => void;
  /** Per request; a timed-out request closes its connection (Connection's rule). */
  requestTimeoutMs: number;
  connectTimeoutMs?: number | undefined;
  reconnectBackoffMs?: number | undefined;
  snapshotChunkBytesMax: number;
  /** Connection and protocol problems (rate-limited by the caller's logger). */
  onWarning?: ((message: string) => void) | undefined;
  /** The connection to a voter failed or was closed/reset by it (not a request timeout); called on every such failure. */
  onPeerUnreachable?: ((id: NodeId) => void) | undefined;
  /** TLS and/or SASL of the controller listener (the node's own credentials); absent = PLAINTEXT. */
  security?: ConnectionSecurity | undefined;
}

/** Messages held per peer while its connection opens (older ones are dropped). */
const QUEUED_WHILE_CONNECTING_MAX = 8;
/** Fetch versions Raft can use: v12 (names) up to v17 (topic ids, replicaState). */
const FETCH_VERSION_MIN = 12;
const FETCH_VERSION_MAX = 17;

interface Peer {
  readonly endpoint: VoterEndpoint;
  connection: Connection | null;
  connecting: boolean;
  queued: Outbound[];
  retryAtMs: number;
  /** A connect failure was reported; the next one is not, until a connection succeeds. */
  warned: boolean;
  /** The last request failure reported for this peer (the same one is not repeated). */
  lastWarning: string;
}

export class KafkaRaftTransport implements RaftTransport {
  private readonly peers = new Map<NodeId, Peer>();
  private closed = false;

  constructor(private readonly opts: KafkaRaftTransportOptions) {
    for (const v of opts.voters) {
      if (v.id !== opts.self) this.peers.set(v.id, { endpoint: v, connection: null, connecting: false, queued: [], retryAtMs: 0, warned: false, lastWarning: '' });
    }
  }

  send(out: Outbound): void {
    const peer = this.peers.get(out.to);
    if (this.closed || peer === undefined) return;
    const conn = peer.connection;
    if (conn !== null && !conn.isClosed) return this.write(peer, conn, out);
    peer.connection = null;
    peer.queued.push(out);
    if (peer.queued.length > QUEUED_WHILE_CONNECTING_MAX) peer.queued.shift();
    this.connect(peer);
  }

  private connect(peer: Peer): void {
    const now = this.opts.clock.monotonicMs();
    if (peer.connecting || now < peer.retryAtMs) return;
    peer.connecting = true;
    const { host, port } = peer.endpoint;
    Connection.connect({
      host,
      port,
      clientId: `raft-${this.opts.self}`,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? this.opts.requestTimeoutMs,
      ...this.opts.security,
    }).then(
      (conn) => {
        peer.connecting = false;
        if (this.closed) return conn.destroy();
        peer.connection = conn;
        peer.warned = false;
        peer.lastWarning = '';
        const queued = peer.queued;
        peer.queued = [];
        for (const out of queued) this.write(peer, conn, out);
      },
      (err: unknown) => {
        peer.connecting = false;
        peer.queued = [];
        peer.retryAtMs = this.opts.clock.monotonicMs() + (this.opts.reconnectBackoffMs ?? 100);
        this.unreachable(peer);
        if (peer.warned) return;
        peer.warned = true;
        this.warn(`raft: cannot connect to voter ${peer.endpoint.id} at ${host}:${port}: ${(err as Error).message}`);
      },
    );
  }

  private write(peer: Peer, conn: Connection, out: Outbound): void {
    const m = out.message;
    const to = out.to;
    const deliver = (msg: RaftMessage | null): void => {
      if (msg !== null && !this.closed) this.opts.deliver(msg);
    };
    const failed = (err: unknown): void => {
      if (conn.isClosed && peer.connection === conn) peer.connection = null;
      if (err instanceof ConnectionClosedError && !(err.cause instanceof RequestTimeoutError)) this.unreachable(peer);
      const warning = `raft: ${m.type} to voter ${to} failed: ${(err as Error).message}`;
      if (!this.closed && !conn.isClosed && warning !== peer.lastWarning) {
        peer.lastWarning = warning;
        this.warn(warning);
      }
    };
    try {
      switch (m.type) {
        case 'vote': {
          const v = conn.pickVersion(52, 0, 2);
          // Before v2 a request cannot say "pre-vote"; sending it as a real vote would bump epochs.
          if (m.preVote && v < 2) return;
          conn.send({ request: WireVoteRequest, response: WireVoteResponse }, v, voteRequestToWire(m, to, this.opts.clusterId)).then((r) => deliver(voteResponseFromWire(r, m, to)), failed);
          return;
        }
        case 'beginQuorumEpoch': {
          const v = conn.pickVersion(53, 0, 1);
          // The core has no use for the answer: a higher epoch reaches it through fetches and votes.
          conn.send({ request: BeginQuorumEpochRequest, response: BeginQuorumEpochResponse }, v, beginQuorumEpochToWire(m, to, this.opts.clusterId)).then(() => undefined, failed);
          return;
        }
        case 'endQuorumEpoch': {
          const v = conn.pickVersion(54, 0, 0); // v0: preferredSuccessors by id (wire.ts)
          // The answer tells the core nothing it will not learn from the election that follows.
          conn.send({ request: EndQuorumEpochRequest, response: EndQuorumEpochResponse }, v, endQuorumEpochToWire(m, this.opts.clusterId)).then(() => undefined, failed);
          return;
        }
        case 'fetch': {
          const v = conn.pickVersion(1, FETCH_VERSION_MIN, FETCH_VERSION_MAX);
          conn.send({ request: WireFetchRequest, response: WireFetchResponse }, v, { ...fetchRequestToWire(m), clusterId: this.opts.clusterId }).then((r) => deliver(fetchResponseFromWire(r, m, to)), failed);
          return;
        }
        case 'fetchSnapshot': {
          const v = conn.pickVersion(59, 0, 0);
          conn
            .send({ request: WireFetchSnapshotRequest, response: WireFetchSnapshotResponse }, v, fetchSnapshotRequestToWire(m, this.opts.clusterId, this.opts.snapshotChunkBytesMax))
            .then((r) => deliver(fetchSnapshotResponseFromWire(r, m, to)), failed);
          return;
        }
        default:
          // Responses answer inbound requests through RaftService; they are never sent on their own.
          return;
      }
    } catch (err) {
      failed(err); // UnsupportedVersionError: the peer does not speak this API (not a controller?)
    }
  }

  private unreachable(peer: Peer): void {
    if (!this.closed) this.opts.onPeerUnreachable?.(peer.endpoint.id);
  }

  private warn(message: string): void {
    this.opts.onWarning?.(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    const closing: Promise<void>[] = [];
    for (const p of this.peers.values()) {
      if (p.connection !== null) closing.push(p.connection.close().catch(() => undefined));
      p.connection = null;
      p.queued = [];
    }
    await Promise.all(closing);
  }
}

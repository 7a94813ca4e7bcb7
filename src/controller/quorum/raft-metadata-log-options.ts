/**
 * What RaftMetadataLog's users configure and get back, apart from the class:
 * its options and defaults, the RaftTimer it is driven by, NotLeaderError and
 * the LeaderChange event. Kept apart from raft-metadata-log.ts so that the boot
 * path, the broker and the tests can read the contract without the driver;
 * raft-metadata-log.ts re-exports every name.
 */
import type { Clock } from '../../util/clock.js';
import type { Random } from '../../util/random.js';
import type { FileSystem, LogConfig } from '../../storage/index.js';
import { MetadataLogError } from '../metadata-log.js';
import type { NodeId, RaftConfig, RaftMessage } from '../raft/types.js';
import type { RaftTransport, VoterEndpoint } from './transport.js';
import type { ConnectionSecurity } from '../../net/connection-options.js';

/** One periodic timer; returns its cancel function. The process supplies it (util/timer.ts: systemTimer). */
export interface RaftTimer {
  every(intervalMs: number, fn: () => void): () => void;
}

export type RaftTimeouts = Omit<RaftConfig, 'nodeId' | 'voters'>;

export interface RaftMetadataLogOptions {
  fs: FileSystem;
  clock: Clock;
  random: Random;
  timer: RaftTimer;
  dataDir: string;
  nodeId: NodeId;
  /** controller.quorum.voters: every voter with its controller listener; all nodes get the same list. */
  voters: readonly VoterEndpoint[];
  /** Checked on every quorum RPC (INCONSISTENT_CLUSTER_ID); null = not checked. */
  clusterId: string | null;
  raft?: Partial<RaftTimeouts> | undefined;
  /** Default 10 ms. */
  tickIntervalMs?: number | undefined;
  /** Default 10 000 records; 0 = never. */
  snapshotIntervalRecords?: number | undefined;
  /** Default 16 MiB; 0 = never. */
  snapshotIntervalBytes?: number | undefined;
  /** Replaces the network transport (tests); gets the function that feeds answers back. */
  transport?: ((deliver: (message: RaftMessage) => void) => RaftTransport) | undefined;
  logConfig?: Partial<LogConfig> | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /** TLS/SASL of the controller listener, for the network transport; absent = PLAINTEXT. */
  security?: ConnectionSecurity | undefined;
}

export const RAFT_TICK_INTERVAL_MS_DEFAULT = 10;
/** How long `resign()` waits for another voter to take over before it gives up waiting. */
export const RESIGN_WAIT_MS_DEFAULT = 2_000;
/** The leader long-polls, so an idle follower's empty answer already waited: re-fetch soon. */
export const FETCH_BACKOFF_MS_DEFAULT = 10;
export const SNAPSHOT_INTERVAL_RECORDS_DEFAULT = 10_000;
export const SNAPSHOT_INTERVAL_BYTES_DEFAULT = 16 * 1024 * 1024;

/** ERR_TRIB_METADATA_NOT_LEADER with where to go instead (G2 forwards there). */
export class NotLeaderError extends MetadataLogError {
  constructor(
    readonly leaderId: NodeId | null,
    readonly leaderEndpoint: VoterEndpoint | null,
    message: string,
  ) {
    super('ERR_TRIB_METADATA_NOT_LEADER', message);
    this.name = 'NotLeaderError';
  }
}

export interface LeaderChange {
  readonly leaderId: NodeId | null;
  readonly epoch: number;
  /** This node is the active leader (may append). */
  readonly isLeader: boolean;
}

/**
 * The data path's request and result shapes: appends (who appends, acks,
 * per-partition results) and fetches (what to read, where the fetcher's log
 * diverged, what was read). ReplicaManager takes and returns these; the
 * Produce and Fetch handlers and the follower fetchers build them.
 */
import type { ReadAllocator } from '../storage/fs.js';
import type { AbortedTxn } from '../storage/txn-index.js';

/**
 * Who is appending: a producing client, a coordinator writing its internal
 * topic, a follower copying its leader, or an exact-mode mirror copying
 * another cluster's partition into a mirror topic it leads (mirror-append.ts).
 */
export type AppendOrigin = 'client' | 'coordinator' | 'replica' | 'mirror';

export interface AppendEntry {
  readonly topic: string;
  readonly partition: number;
  /** The record batch as received (a client's bytes are validated before anything is written). */
  readonly records: unknown;
}

export interface AppendRequest {
  readonly origin: AppendOrigin;
  /** 0, 1 or -1 (all); anything else answers INVALID_REQUIRED_ACKS. */
  readonly acks: number;
  /** How long an acks=all append waits for the high watermark (REQUEST_TIMED_OUT after). */
  readonly timeoutMs: number;
  readonly entries: readonly AppendEntry[];
  /** The Produce version of a client append (zstd needs v7, magic errors differ below v3). */
  readonly produceVersion?: number;
  /** For the debug log of rejected batches. */
  readonly clientId?: string | null;
  /** Produce v3+ transactionalId: transactional batches need it (and it names the transaction to verify, KIP-890). */
  readonly transactionalId?: string | null;
}

export interface PartitionAppendResult {
  readonly topic: string;
  readonly partition: number;
  errorCode: number;
  errorMessage: string | null;
  baseOffset: bigint;
  logAppendTimeMs: bigint;
  logStartOffset: bigint;
  /** The high watermark that commits this append (its last offset + 1), -1 on failure. */
  requiredOffset: bigint;
  /** What this call wrote (0 for failures and idempotent duplicates): traffic metrics. */
  appendedBytes: number;
  appendedRecords: number;
}

export interface FetchPartition {
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly partitionMaxBytes: number;
  /** -1 = not checked; else stale epochs get FENCED_LEADER_EPOCH, newer ones UNKNOWN_LEADER_EPOCH (KIP-320). */
  readonly currentLeaderEpoch: number;
  /** The epoch of the last batch the fetcher has (Fetch v12+), -1 = unknown: checked for divergence (KIP-320). */
  readonly lastFetchedEpoch?: number;
}

/** Where a fetcher's log diverged from the leader's: truncate to at most `endOffset` (Fetch v12+ DivergingEpoch). */
export interface DivergingEpoch {
  readonly epoch: number;
  readonly endOffset: bigint;
}

export interface FetchRequestParams {
  /** -1 (or absent) for consumers; a broker id for a follower, which reads up to the log end and reports its position. */
  readonly replicaId?: number;
  /**
   * A consumer's rack (Fetch v11+ rackId, '' when it gave none); set, the
   * consumer may read from a follower and the leader may name a preferred
   * read replica (KIP-392). Absent (older Fetch): leaders only.
   */
  readonly clientRack?: string | undefined;
  readonly topics: readonly { readonly topic: string; readonly partitions: readonly FetchPartition[] }[];
  readonly readCommitted: boolean;
  /** Total bytes over every partition; the first partition with data returns at least one whole batch (KIP-74). */
  readonly maxBytes: number;
  readonly minBytes: number;
  readonly maxWaitMs: number;
  /** Where log data is read into (the broker's buffer pool), and where unsent buffers go back. */
  readonly allocate?: ReadAllocator;
  readonly release?: (buffer: Buffer) => void;
}

export interface FetchPartitionResult {
  readonly partition: number;
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  readonly chunks: Buffer[];
  readonly bytes: number;
  /** Set (with no records) when the fetcher's lastFetchedEpoch diverges from this log. */
  readonly divergingEpoch?: DivergingEpoch;
  /** Set (with no records) when the consumer should read this partition from that replica (KIP-392). */
  readonly preferredReadReplica?: number;
  /** read_committed reads with records: the aborted transactions overlapping the range read up to the LSO. */
  readonly abortedTransactions?: readonly AbortedTxn[];
}

export interface FetchResult {
  readonly topics: { topic: string; partitions: FetchPartitionResult[] }[];
  /** Every buffer the results point into (from `allocate`): release them once the response is written. */
  readonly buffers: Buffer[];
}

export interface ReadResult {
  errorCode: number;
  divergingEpoch?: DivergingEpoch;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  chunks: Buffer[];
  bytes: number;
  abortedTransactions?: readonly AbortedTxn[];
}

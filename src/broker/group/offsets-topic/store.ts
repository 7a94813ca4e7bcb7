/**
 * GroupPersistence over __consumer_offsets: every storeGroup / storeOffsets
 * call becomes ONE record batch (all or nothing, as Kafka writes one batch
 * per commit request) appended to the group's partition on this broker, the
 * leader. The call resolves once the high watermark covers the batch.
 *
 * Ordering: the append happens synchronously inside the call, so batches
 * reach the log in the order the coordinator made the calls; only the wait
 * for the high watermark is asynchronous.
 *
 * Limits (each failure is an OffsetsStoreError 'too_large'):
 * - at most OFFSETS_BATCH_RECORDS_MAX records per call (checked before encoding);
 * - the built batch (after compression) at most `batchBytesMax`, default
 *   Kafka's max.message.bytes default (1 MiB + 12), and at most the log's
 *   segment.bytes (Kafka's RECORD_LIST_TOO_LARGE).
 */
import { Compression } from '../../../protocol/record-batch/header.js';
import { buildRecordBatchSync, type RecordInput } from '../../../protocol/record-batch/builder.js';
import type { Partition } from '../../../replication/partition.js';
import { StorageError } from '../../../storage/errors.js';
import { invariant } from '../../../util/assert.js';
import type { Clock } from '../../../util/clock.js';
import type { CommittedOffset, GroupPersistence, GroupSnapshot, OffsetTombstone } from '../types.js';
import { OffsetsStoreError, wireErrorFor } from './errors.js';

/**
 * Attaches the wire code Kafka answers for a failed store (see wireErrorFor)
 * as `errorCode`, which the coordinator passes on to the client.
 */
function withWireCode(stored: 'offsets' | 'group', work: Promise<void>): Promise<void> {
  return work.catch((err: unknown) => {
    if (err instanceof OffsetsStoreError) err.errorCode = wireErrorFor(err.kind, stored);
    throw err;
  });
}
import { partitionForGroup } from './partitioner.js';
import { encodeGroupMetadataKey, encodeGroupMetadataValue, encodeOffsetCommitKey, encodeOffsetCommitValue } from './records.js';

/** Most records one store call may write (a commit of this many partitions is already unusual). */
export const OFFSETS_BATCH_RECORDS_MAX = 65_536;
/** Kafka's max.message.bytes default: the largest batch a topic accepts. */
export const OFFSETS_BATCH_BYTES_MAX_DEFAULT = 1_048_588;

export interface OffsetsTopicStoreOptions {
  /** offsets.topic.num.partitions of the existing topic. */
  readonly numPartitions: number;
  /**
   * This broker's replica of __consumer_offsets-<partition>, or undefined when
   * not hosted here: `(n) => replicaManager.get('__consumer_offsets', n)`.
   */
  readonly partitionFor: (partition: number) => Partition | undefined;
  readonly clock: Clock;
  /** Codec id (offsets.topic.compression.codec); zstd is refused (the append path is synchronous). */
  readonly compression?: number;
  /** Default OFFSETS_BATCH_BYTES_MAX_DEFAULT; pass the topic's max.message.bytes. */
  readonly batchBytesMax?: number;
  /**
   * Resolves when the high watermark of `partition` is past `lastOffset`,
   * rejects with OffsetsStoreError ('not_coordinator' on leadership loss,
   * 'timeout'). Default: resolves when it already is (one replica: the
   * high watermark moves on append), else rejects 'timeout' at once.
   */
  readonly awaitCommitted?: (partition: Partition, lastOffset: bigint) => Promise<void>;
  /** Called after each append (wake delayed fetches: `replicaManager.delayedFetches.onAppend(p)`). */
  readonly onAppended?: (partition: Partition) => void;
}

export class OffsetsTopicStore implements GroupPersistence {
  private readonly numPartitions: number;
  private readonly compression: number;
  private readonly batchBytesMax: number;
  private readonly awaitCommitted: (partition: Partition, lastOffset: bigint) => Promise<void>;

  constructor(private readonly opts: OffsetsTopicStoreOptions) {
    invariant(Number.isInteger(opts.numPartitions) && opts.numPartitions >= 1, 'numPartitions >= 1');
    this.numPartitions = opts.numPartitions;
    this.compression = opts.compression ?? Compression.None;
    invariant(this.compression !== Compression.Zstd, 'zstd is not supported for __consumer_offsets writes');
    this.batchBytesMax = opts.batchBytesMax ?? OFFSETS_BATCH_BYTES_MAX_DEFAULT;
    this.awaitCommitted = opts.awaitCommitted ?? highWatermarkCovers;
  }

  /** The __consumer_offsets partition that holds this group. */
  partitionOf(groupId: string): number {
    return partitionForGroup(groupId, this.numPartitions);
  }

  storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void> {
    return withWireCode('group', this.run(groupId, () => {
      invariant(snapshot === null || snapshot.groupId === groupId, 'the snapshot belongs to the group');
      const value = snapshot === null ? null : encodeGroupMetadataValue(snapshot);
      return [{ key: encodeGroupMetadataKey(groupId), value }];
    }));
  }

  storeOffsets(groupId: string, commits: readonly (CommittedOffset | OffsetTombstone)[]): Promise<void> {
    return withWireCode('offsets', this.storeOffsetsRaw(groupId, commits));
  }

  private storeOffsetsRaw(groupId: string, commits: readonly (CommittedOffset | OffsetTombstone)[]): Promise<void> {
    if (commits.length === 0) return Promise.resolve();
    if (commits.length > OFFSETS_BATCH_RECORDS_MAX) {
      return Promise.reject(
        new OffsetsStoreError('too_large', `${commits.length} offsets in one commit exceed ${OFFSETS_BATCH_RECORDS_MAX}`),
      );
    }
    return this.run(groupId, () =>
      commits.map((c) => ({
        key: encodeOffsetCommitKey(groupId, c.topic, c.partition),
        value: c.offset === null ? null : encodeOffsetCommitValue(c),
      })),
    );
  }

  /** Encodes, appends synchronously, then waits for the high watermark. */
  private run(groupId: string, records: () => RecordInput[]): Promise<void> {
    let committed: Promise<void>;
    try {
      committed = this.append(groupId, records);
    } catch (e) {
      return Promise.reject(e);
    }
    return committed;
  }

  private append(groupId: string, makeRecords: () => RecordInput[]): Promise<void> {
    const index = this.partitionOf(groupId);
    const p = this.opts.partitionFor(index);
    if (p === undefined) {
      throw new OffsetsStoreError('not_available', `__consumer_offsets-${index} (group '${groupId}') is not hosted on this broker`);
    }
    if (!p.isLeader) {
      throw new OffsetsStoreError('not_coordinator', `this broker is not the leader of __consumer_offsets-${index} (leader ${p.leaderId})`);
    }
    const batch = this.build(makeRecords, p);
    const limit = Math.min(this.batchBytesMax, p.log.config.segmentBytes);
    if (batch.length > limit) {
      throw new OffsetsStoreError('too_large', `a batch of ${batch.length} bytes for group '${groupId}' exceeds ${limit} bytes`);
    }
    let lastOffset: bigint;
    try {
      lastOffset = p.appendAsLeader(batch).lastOffset;
    } catch (e) {
      if (e instanceof StorageError) {
        throw new OffsetsStoreError('storage', `append to __consumer_offsets-${index} failed: ${e.message}`, { cause: e });
      }
      throw e;
    }
    this.opts.onAppended?.(p);
    return this.awaitCommitted(p, lastOffset);
  }

  private build(makeRecords: () => RecordInput[], p: Partition): Buffer {
    try {
      return buildRecordBatchSync({
        records: makeRecords(),
        compression: this.compression,
        timestampMs: this.opts.clock.nowMs(),
        partitionLeaderEpoch: p.leaderEpoch,
      });
    } catch (e) {
      // A string longer than an int16 length (group id, topic, metadata) or a batch over 2 GiB.
      if (e instanceof RangeError && /too long|exceeds/.test(e.message)) {
        throw new OffsetsStoreError('too_large', e.message, { cause: e });
      }
      throw e;
    }
  }
}

/** The default wait: with one replica the high watermark moved on append. */
function highWatermarkCovers(partition: Partition, lastOffset: bigint): Promise<void> {
  if (partition.highWatermark > lastOffset) return Promise.resolve();
  return Promise.reject(
    new OffsetsStoreError(
      'timeout',
      `high watermark ${partition.highWatermark} of ${partition.topic}-${partition.partition} does not cover offset ${lastOffset} ` +
        '(no replication wait was configured)',
    ),
  );
}

/**
 * The leader's append of batches copied from another cluster's partition by
 * `tributary mirror` in exact mode (origin `mirror`, the MirrorAppend API,
 * docs/mirror.md). It is the follower append (`appendReplicated`) done by a
 * leader, with the checks that keep a mirror topic identical to its source:
 *
 * - the topic's `mirror.state` is `active` (anything else: POLICY_VIOLATION;
 *   an ordinary or promoted topic never takes copied batches);
 * - whole, CRC-checked magic-2 batches, offsets contiguous from batch to
 *   batch (a gap, which a compacted source may have, cannot be stored: our
 *   log assigns consecutive offsets);
 * - the first batch starts exactly at the log end offset; anything else
 *   (someone else wrote, or the mirror skipped a range) is OFFSET_OUT_OF_RANGE
 *   with the log end in the answer, and nothing is written. One exception:
 *   a partition holding no records (log start = log end) restarts empty at
 *   the first batch's offset, so a source whose log no longer starts at 0
 *   can be copied from its log start.
 *
 * Nothing is re-stamped but the partition leader epoch (bytes 12-15, outside
 * the CRC): it is each cluster's own history, which this cluster's followers
 * use to find where they diverge (the source's epochs mean nothing in it).
 * Offsets, timestamps, producer ids, epochs and sequences, control batches
 * and transaction markers stay as the source wrote them; the producer state
 * and the transaction index follow the batches as on a follower, without the
 * idempotence checks a client batch gets (the source made them).
 *
 * After `tributary mirror promote`, mirror.promoted.offsets says where each
 * partition's copy ended: a client batch's producer is first forgotten below
 * it (ProducerStateManager.forgetBelow), since the copied ids were the
 * source cluster's and this cluster may hand out the same ids again.
 */
import { ErrorCode } from '../protocol/errors.js';
import { Offsets, batchSizeAt, setPartitionLeaderEpoch } from '../protocol/record-batch/header.js';
import { StorageError } from '../storage/errors.js';
import { appendFailure, checkReplicatedBatches, type AppendFailure } from './append-validator.js';
import type { Partition } from './partition.js';
import { restartEmptyLeaderAt } from './log-truncation.js';
import type { TopicRules } from './topic-rules.js';

export interface MirrorAppended {
  readonly ok: true;
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  readonly bytes: number;
  readonly offsetCount: number;
}

/** The first offset gap between consecutive batches of `whole` (base offsets as sent), or null. */
export function offsetGap(whole: Buffer): { expected: bigint; found: bigint } | null {
  let next: bigint | null = null;
  for (let p = 0; p < whole.length; p += batchSizeAt(whole, p)) {
    const base = whole.readBigInt64BE(p + Offsets.baseOffset);
    if (next !== null && base !== next) return { expected: next, found: base };
    next = base + BigInt(whole.readInt32BE(p + Offsets.lastOffsetDelta)) + 1n;
  }
  return null;
}

/** Checks and appends copied batches to `p` as its leader; see the file comment for the rules. */
export function appendMirrored(p: Partition, records: unknown, rules: TopicRules): MirrorAppended | AppendFailure {
  const where = `${p.topic}-${p.partition}`;
  if (rules.mirrorState !== 'active') {
    return appendFailure(ErrorCode.POLICY_VIOLATION, `${p.topic} is not an active mirror topic (mirror.state=${rules.mirrorState ?? 'none'}): it takes no mirrored batches`);
  }
  if (!p.isLeader) return appendFailure(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${p.leaderId} leads ${where}`);
  if (!Buffer.isBuffer(records) || records.length === 0) return appendFailure(ErrorCode.CORRUPT_MESSAGE, 'no record batch');
  const checked = checkReplicatedBatches(records);
  if (!checked.ok) return checked;
  const whole = checked.wholeBytes === records.length ? records : records.subarray(0, checked.wholeBytes);
  const gap = offsetGap(whole);
  if (gap !== null) {
    return appendFailure(ErrorCode.INVALID_REQUEST, `mirrored batches of ${where} have an offset gap (${gap.expected} expected, ${gap.found} found): exact mode needs contiguous offsets`);
  }
  const empty = p.logStartOffset === p.logEndOffset;
  if (checked.baseOffset !== p.logEndOffset && !(empty && checked.baseOffset > p.logEndOffset)) {
    return appendFailure(ErrorCode.OFFSET_OUT_OF_RANGE, `mirrored batches start at ${checked.baseOffset}, ${where} ends at ${p.logEndOffset}`);
  }
  try {
    if (checked.baseOffset !== p.logEndOffset) restartEmptyLeaderAt(p, checked.baseOffset);
    for (let at = 0; at < whole.length; at += batchSizeAt(whole, at)) setPartitionLeaderEpoch(whole, p.leaderEpoch, at);
    const r = p.appendAsLeader(whole);
    return { ok: true, baseOffset: r.baseOffset, lastOffset: r.lastOffset, bytes: whole.length, offsetCount: checked.offsetCount };
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    return appendFailure(ErrorCode.KAFKA_STORAGE_ERROR, `append to ${where} failed: ${err.message}`);
  }
}

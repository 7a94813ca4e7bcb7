/**
 * Exact mode, one partition: copies the source partition's stored batches,
 * as bytes, into the same partition of the target's mirror topic at the same
 * offsets (MirrorAppend, src/replication/mirror-append.ts). The target's log
 * end is the copy position: nothing else is stored, so a restart, a crash or
 * a second copier resumes exactly there, with no duplicate and no gap.
 *
 * Before it copies (and whenever the target refuses a batch as not starting
 * at its log end), the copier checks that the target is still a copy of the
 * source: the target's last batch must equal the source's batch at the same
 * offsets (every byte but the partition leader epoch, which is each
 * cluster's own). A target written by someone else, or a source that lost
 * or rewrote records the target has, stops the partition with an
 * ExactMirrorError naming where they differ: nothing more is copied, so the
 * two never diverge further.
 */
import { ErrorCode } from '../protocol/errors.js';
import { Offsets } from '../protocol/record-batch/header.js';
import { fetchRawBatches, listOffsetsMany, mirrorAppend, type Cluster } from '../client/index.js';

/** A partition that cannot be copied exactly; replication of it stops with this reason. */
export class ExactMirrorError extends Error {
  override readonly name = 'ExactMirrorError';
}

export interface CopierOptions {
  readonly source: Cluster;
  readonly target: Cluster;
  readonly sourceTopic: string;
  readonly targetTopic: string;
  readonly partition: number;
  /** MirrorAppend acks: -1 waits for the target's in-sync replicas. */
  readonly acks: 1 | -1;
  readonly fetchMaxBytes: number;
  readonly log: (m: string) => void;
  /** Called after every copied chunk: bytes, offsets, largest batch timestamp. */
  readonly onCopied: (bytes: number, offsets: number, maxTimestampMs: bigint) => void;
}

const FETCH_WAIT_MS = 500;
const RETRY_BACKOFF_MS = 200;
/** Retriable errors in a row before the partition stops. */
const RETRIES_MAX = 150;
const RETRIABLE = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.KAFKA_STORAGE_ERROR,
]);

function lastOffsetOf(batch: Buffer): bigint {
  return batch.readBigInt64BE(Offsets.baseOffset) + BigInt(batch.readInt32BE(Offsets.lastOffsetDelta));
}

/** The target refused because the topic was promoted (`tributary mirror promote`): not a failure, the copy just ends. */
function isPromoted(errorCode: number, message: string | null): boolean {
  return errorCode === ErrorCode.POLICY_VIOLATION && (message ?? '').includes('mirror.state=promoted');
}

/** Equal batches, but for the partition leader epoch (bytes 12-15, outside the CRC, each cluster's own). */
export function sameBatch(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && a.subarray(0, Offsets.partitionLeaderEpoch).equals(b.subarray(0, Offsets.partitionLeaderEpoch))
    && a.subarray(Offsets.partitionLeaderEpoch + 4).equals(b.subarray(Offsets.partitionLeaderEpoch + 4));
}

export class PartitionCopier {
  private stopped = false;
  private retries = 0;
  private readonly where: string;

  constructor(private readonly o: CopierOptions) {
    this.where = `${o.targetTopic}-${o.partition}`;
  }

  stop(): void {
    this.stopped = true;
  }

  /** Copies until stop(); rejects with ExactMirrorError (or a non-retriable client error) when the partition cannot go on. */
  async run(): Promise<void> {
    const o = this.o;
    let next = await this.resumePoint();
    if (this.stopped) return;
    o.log(`${this.where}: copying from ${o.sourceTopic}-${o.partition} at offset ${next}`);
    while (!this.stopped) {
      const f = await fetchRawBatches(o.source, o.sourceTopic, o.partition, next, { maxWaitMs: FETCH_WAIT_MS, partitionMaxBytes: o.fetchMaxBytes });
      if (f.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
        next = await this.outOfRange(next);
        continue;
      }
      if (f.errorCode !== ErrorCode.NONE) {
        await this.retry(o.source, `fetching ${o.sourceTopic}-${o.partition}`, f.errorCode);
        continue;
      }
      const first = f.batches[0];
      if (first === undefined) continue;
      const base = first.readBigInt64BE(Offsets.baseOffset);
      if (base < next) throw new ExactMirrorError(`${this.where}: the source batch at ${base}..${lastOffsetOf(first)} straddles the copy position ${next}: the source log was rewritten`);
      const chunk = f.batches.length === 1 ? first : Buffer.concat(f.batches);
      const r = await mirrorAppend(o.target, o.targetTopic, o.partition, chunk, { acks: o.acks });
      if (r.errorCode === ErrorCode.NONE) {
        this.retries = 0;
        let maxTs = -1n;
        for (const b of f.batches) {
          const ts = b.readBigInt64BE(Offsets.maxTimestamp);
          if (ts > maxTs) maxTs = ts;
        }
        o.onCopied(chunk.length, Number(r.logEndOffset - next), maxTs);
        next = r.logEndOffset;
      } else if (isPromoted(r.errorCode, r.errorMessage)) {
        o.log(`${this.where} was promoted: copying into it stops`);
        return;
      } else if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
        o.log(`${this.where}: ${r.errorMessage ?? 'not at the log end'}; checking the target again`);
        next = await this.resumePoint();
      } else if (RETRIABLE.has(r.errorCode)) {
        await this.retry(o.target, `appending to ${this.where}`, r.errorCode);
      } else {
        throw new ExactMirrorError(`${this.where}: ${r.errorMessage ?? `error ${r.errorCode}`}`);
      }
    }
  }

  private async retry(cluster: Cluster, what: string, errorCode: number): Promise<void> {
    if (!RETRIABLE.has(errorCode) || ++this.retries > RETRIES_MAX) throw new ExactMirrorError(`${this.where}: ${what} failed with error ${errorCode}`);
    await cluster.refreshMetadata([cluster === this.o.source ? this.o.sourceTopic : this.o.targetTopic]).catch(() => undefined);
    await new Promise((r) => setTimeout(r, RETRY_BACKOFF_MS));
  }

  /**
   * Where copying resumes: the target's log end, after checking that the
   * target is a copy of the source so far (see the file comment). Waits
   * while the target's high watermark is below its log end (a copy not yet
   * on every in-sync replica cannot be read back to compare).
   */
  private async resumePoint(): Promise<bigint> {
    const o = this.o;
    for (;;) {
      if (this.stopped) return 0n;
      const probe = await mirrorAppend(o.target, o.targetTopic, o.partition, null);
      if (probe.errorCode !== ErrorCode.NONE) {
        if (isPromoted(probe.errorCode, probe.errorMessage)) {
          this.stopped = true;
          return 0n;
        }
        if (!RETRIABLE.has(probe.errorCode)) throw new ExactMirrorError(`${this.where}: ${probe.errorMessage ?? `error ${probe.errorCode}`}`);
        await this.retry(o.target, `probing ${this.where}`, probe.errorCode);
        continue;
      }
      const end = probe.logEndOffset;
      if (end === probe.logStartOffset) return end;
      if (probe.highWatermark < end) {
        await this.retry(o.target, `waiting for the high watermark of ${this.where}`, ErrorCode.NOT_ENOUGH_REPLICAS);
        continue;
      }
      await this.verifyLastBatch(end);
      return end;
    }
  }

  private async verifyLastBatch(end: bigint): Promise<void> {
    const o = this.o;
    const at = end - 1n;
    const t = await fetchRawBatches(o.target, o.targetTopic, o.partition, at, { maxWaitMs: 0, partitionMaxBytes: o.fetchMaxBytes });
    const mine = t.batches.find((b) => lastOffsetOf(b) === at);
    if (t.errorCode !== ErrorCode.NONE || mine === undefined) throw new ExactMirrorError(`${this.where}: cannot read its last batch back (error ${t.errorCode})`);
    const s = await fetchRawBatches(o.source, o.sourceTopic, o.partition, at, { maxWaitMs: 0, partitionMaxBytes: o.fetchMaxBytes });
    if (s.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      const [start, sourceEnd] = await this.sourceBounds();
      if (at >= sourceEnd) throw new ExactMirrorError(`${this.where} holds offsets up to ${at}, the source ${o.sourceTopic}-${o.partition} ends at ${sourceEnd}: the source lost records or was re-created`);
      if (at < start) {
        o.log(`${this.where}: the source no longer holds offset ${at} (log start ${start}); the last batch cannot be compared`);
        return;
      }
    }
    const theirs = s.batches[0];
    if (theirs === undefined || !sameBatch(mine, theirs)) {
      const base = mine.readBigInt64BE(Offsets.baseOffset);
      throw new ExactMirrorError(`${this.where} diverged from ${o.sourceTopic}-${o.partition}: its batch at offsets ${base}..${at} differs from the source's; the mirror topic was written by someone else (mirror.state changed?), so replication of this partition stops`);
    }
  }

  /** The source refuses `next`: restart an empty target at the source's log start, else the records are gone. */
  private async outOfRange(next: bigint): Promise<bigint> {
    const [start, end] = await this.sourceBounds();
    const probe = await mirrorAppend(this.o.target, this.o.targetTopic, this.o.partition, null);
    const targetEmpty = probe.errorCode === ErrorCode.NONE && probe.logEndOffset === probe.logStartOffset;
    if (next < start && targetEmpty) return start;
    if (next < start) throw new ExactMirrorError(`${this.where}: the source deleted offsets ${next}..${start - 1n} before they were copied (retention outran the mirror)`);
    if (next > end) throw new ExactMirrorError(`${this.where} ends at ${next}, past the source's end ${end}: the source lost records or was re-created`);
    return next;
  }

  private async sourceBounds(): Promise<[bigint, bigint]> {
    const o = this.o;
    const [start, end] = await listOffsetsMany(o.source, [
      { topic: o.sourceTopic, partition: o.partition, spec: 'earliest' },
      { topic: o.sourceTopic, partition: o.partition, spec: 'latest' },
    ]);
    return [start?.offset ?? 0n, end?.offset ?? 0n];
  }
}

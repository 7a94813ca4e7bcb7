/**
 * __transaction_state on the coordinator runtime: writing one record per
 * transition (TxnPersistence) and loading a partition when this broker
 * becomes its leader (the latest record per transactional id, tombstones
 * applied: what compaction would keep).
 *
 * A load reads [log start, high watermark) in bounded chunks with a yield
 * between them; a batch or record that does not decode is skipped and
 * counted (bad bytes never stop a load), storage errors propagate.
 */
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { buildRecordBatchSync } from '../../protocol/record-batch/builder.js';
import { BATCH_HEADER_BYTES, isControlBatch, lastOffsetOf, readBatchHeader } from '../../protocol/record-batch/header.js';
import { decodeRecordBatch, iterateBatches } from '../../protocol/record-batch/reader.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Partition } from '../../replication/partition.js';
import type { Clock } from '../../util/clock.js';
import type { CoordinatorWriter } from '../runtime/coordinator-runtime.js';
import { decodeTxnKey, decodeTxnValue, encodeTxnKey, encodeTxnValue, type TxnLogEntry } from './records.js';
import type { TxnPersistence } from './types.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
/** Bytes per log read while loading (Kafka's transaction.state.log.load.buffer.size default is 5 MiB; steps stay short). */
export const TXN_LOAD_READ_BYTES = 1024 * 1024;

export class TxnLogStore implements TxnPersistence {
  constructor(
    private readonly writer: CoordinatorWriter,
    private readonly clock: Clock,
  ) {}

  write(partition: number, transactionalId: string, entry: TxnLogEntry | null): Promise<number> {
    const p = this.writer.partition(partition);
    if (p === undefined || !p.isLeader) return Promise.resolve(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    let batch: Buffer;
    try {
      batch = buildRecordBatchSync({
        records: [{ key: encodeTxnKey(transactionalId), value: entry === null ? null : encodeTxnValue(entry) }],
        timestampMs: this.clock.nowMs(),
        partitionLeaderEpoch: p.leaderEpoch,
      });
    } catch (e) {
      if (e instanceof RangeError) return Promise.resolve(ErrorCode.RECORD_LIST_TOO_LARGE);
      throw e;
    }
    return this.writer.append(partition, batch).then((o) => o.errorCode);
  }
}

export interface TxnLoadResult {
  readonly entries: Map<string, TxnLogEntry>;
  readonly skippedRecords: number;
  readonly batches: number;
}

/** Replays one partition's log into the latest entry per transactional id. */
export async function loadTxnPartition(partition: Partition, readBytesMax = TXN_LOAD_READ_BYTES): Promise<TxnLoadResult> {
  const latest = new Map<string, TxnLogEntry | null>();
  const stats = { skippedRecords: 0, batches: 0 };
  const endOffset = partition.highWatermark;
  let offset = partition.logStartOffset;
  while (offset < endOffset) {
    const r = partition.log.read(offset, readBytesMax, { maxOffsetExclusive: endOffset, minOneBatch: true });
    if (r.kind === 'offset_out_of_range') {
      if (offset < r.logStartOffset) {
        offset = r.logStartOffset;
        continue;
      }
      break;
    }
    let next = offset;
    for (const chunk of r.chunks) {
      for (const batch of wholeBatches(chunk)) {
        if (batch.length < BATCH_HEADER_BYTES) continue;
        const last = lastOffsetOf(readBatchHeader(batch));
        if (last < next) continue;
        await applyBatch(batch, latest, stats);
        next = last + 1n;
      }
    }
    if (next <= offset) break;
    offset = next;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const entries = new Map<string, TxnLogEntry>();
  for (const [id, e] of latest) if (e !== null) entries.set(id, e);
  return { entries, ...stats };
}

async function applyBatch(batch: Buffer, latest: Map<string, TxnLogEntry | null>, stats: { skippedRecords: number; batches: number }): Promise<void> {
  let decoded;
  try {
    decoded = await decodeRecordBatch(batch);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    stats.skippedRecords++;
    return;
  }
  stats.batches++;
  if (isControlBatch(decoded.header.attributes)) return;
  for (const r of decoded.records) {
    if (r.key === null) {
      stats.skippedRecords++;
      continue;
    }
    try {
      latest.set(decodeTxnKey(r.key), r.value === null ? null : decodeTxnValue(r.value));
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      stats.skippedRecords++;
    }
  }
}

function* wholeBatches(buf: Buffer): Generator<Buffer, void, undefined> {
  try {
    yield* iterateBatches(buf);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
  }
}

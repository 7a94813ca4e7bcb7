/**
 * Test-only: transactional data batches and commit/abort markers, built with
 * the protocol's builder (what a transactional producer and the transaction
 * coordinator write).
 */
import { buildControlBatch, buildRecordBatchSync, ControlRecordType } from '../../../src/protocol/record-batch/builder.js';

/** A transactional (or, with `transactional: false`, idempotent) batch of `count` records. */
export function txnBatch(producerId: bigint, baseSequence: number, count = 1, opts: { epoch?: number; transactional?: boolean; key?: string } = {}): Buffer {
  return buildRecordBatchSync({
    records: Array.from({ length: count }, (_, i) => ({ key: opts.key ?? `k${i}`, value: `v${baseSequence + i}` })),
    producerId,
    producerEpoch: opts.epoch ?? 0,
    baseSequence,
    transactional: opts.transactional ?? true,
    timestampMs: 1_700_000_000_000,
  });
}

export function marker(producerId: bigint, commit: boolean, opts: { epoch?: number; coordinatorEpoch?: number } = {}): Buffer {
  return buildControlBatch({
    type: commit ? ControlRecordType.Commit : ControlRecordType.Abort,
    producerId,
    producerEpoch: opts.epoch ?? 0,
    coordinatorEpoch: opts.coordinatorEpoch ?? 0,
    timestampMs: 1_700_000_000_000,
  });
}

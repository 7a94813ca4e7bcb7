/** Test-only: idempotent batches (producer id, epoch, base sequence in the header) for the producer state tests. */
import { crc32c } from '@node-rs/crc32';
import { CRC_START, Offsets } from '../../../../src/protocol/record-batch/header.js';
import { simpleBatch } from '../batch-fixture.js';

export interface IdempotentSpec {
  producerId: bigint;
  epoch: number;
  baseSequence: number;
  /** Records in the batch (lastOffsetDelta = count - 1). */
  count?: number;
  timestampMs?: bigint;
  control?: boolean;
}

export function idempotentBatch(spec: IdempotentSpec): Buffer {
  const b = simpleBatch(spec.count ?? 1, 8, spec.timestampMs ?? 1_700_000_000_000n);
  b.writeBigInt64BE(spec.producerId, Offsets.producerId);
  b.writeInt16BE(spec.epoch, Offsets.producerEpoch);
  b.writeInt32BE(spec.baseSequence, Offsets.baseSequence);
  if (spec.control === true) b.writeInt16BE(0x20, Offsets.attributes);
  b.writeUInt32BE(crc32c(b.subarray(CRC_START)) >>> 0, Offsets.crc);
  return b;
}

/** The header fields Partition.appendClientBatch takes. */
export function headerOf(spec: IdempotentSpec): { producerId: bigint; epoch: number; baseSequence: number; lastOffsetDelta: number } {
  return { producerId: spec.producerId, epoch: spec.epoch, baseSequence: spec.baseSequence, lastOffsetDelta: (spec.count ?? 1) - 1 };
}

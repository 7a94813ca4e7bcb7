/**
 * The produce-path rule of compacted topics: every record needs a key
 * (Kafka's LogValidator answers INVALID_RECORD otherwise). Records are opaque
 * on the hot path (docs/architecture.md), so this decompresses the batch and
 * walks its records; the broker calls it only for topics whose cleanup.policy
 * includes `compact`.
 */
import { decodeRecordBatch } from '../../protocol/record-batch/reader.js';

/**
 * True when any record of the batch (exactly one whole batch, CRC-checked
 * by the caller or here) has a null key. Control batches never do: their
 * records always carry a key. Throws DecodeError on a malformed batch.
 */
export async function batchHasNullKey(batch: Buffer): Promise<boolean> {
  const { records } = await decodeRecordBatch(batch);
  for (const record of records) if (record.key === null) return true;
  return false;
}

/**
 * key -> offset of its latest record in the dirty section (Kafka's
 * SkimpyOffsetMap). Kafka stores a 16-byte MD5 of each key in a fixed
 * buffer; this keeps the exact key bytes (as a latin1 string) in a Map, so
 * there are no collisions, and bounds memory by a number of entries
 * (`entriesMax`, Kafka's log.cleaner.dedupe.buffer.size in spirit).
 * Offsets are numbers: they stay below 2^53.
 */
import { invariant } from '../../util/assert.js';

export const OFFSET_MAP_ENTRIES_MAX_DEFAULT = 1_000_000;

export class OffsetMap {
  private readonly entries = new Map<string, number>();

  constructor(readonly entriesMax = OFFSET_MAP_ENTRIES_MAX_DEFAULT) {
    invariant(Number.isSafeInteger(entriesMax) && entriesMax >= 1, 'offset map holds at least one entry');
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether `more` new keys might not fit. */
  wouldOverflow(more: number): boolean {
    return this.entries.size + more > this.entriesMax;
  }

  /** Records `offset` for `key`; offsets of one key only go up. */
  put(key: Buffer, offset: number): void {
    invariant(Number.isSafeInteger(offset) && offset >= 0, 'offsets are safe integers');
    this.entries.set(key.toString('latin1'), offset);
  }

  get(key: Buffer): number | undefined {
    return this.entries.get(key.toString('latin1'));
  }
}

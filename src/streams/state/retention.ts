/**
 * Retention of a time-keyed store (Kafka's segmented window stores): the
 * store's keys are grouped into segments of `segmentIntervalMs` by the time
 * each key holds (a window start, a record timestamp); once the largest time
 * put (the store's observed stream time) is more than `retentionMs` past a
 * whole segment, the segment's keys are deleted, so the store holds about
 * retention + one segment of data whatever runs through it. Reads and puts
 * older than observed time - retention are treated as gone, as Kafka's are,
 * even before their segment is dropped.
 */
import assert from 'node:assert/strict';

/** Where the store's keys carry their time. */
export type KeyTime = (key: Buffer) => number;

export class Retention {
  /** The largest time put so far (-1 before the first). */
  observedMs = -1;
  readonly segmentIntervalMs: number;
  /** Keys (latin1 → bytes) by segment id. */
  private readonly segments = new Map<number, Map<string, Buffer>>();

  constructor(
    readonly retentionMs: number,
    private readonly timeOf: KeyTime,
  ) {
    assert.ok(Number.isFinite(retentionMs) && retentionMs >= 0, `retention must be a non-negative number of ms, got ${retentionMs}`);
    // Half the retention per segment (as Kafka's default) bounds the extra data kept to half the retention.
    this.segmentIntervalMs = Math.max(1, Math.floor(retentionMs / 2));
  }

  /** Whether data of `timeMs` is past retention. */
  isExpired(timeMs: number): boolean {
    return timeMs <= this.observedMs - this.retentionMs;
  }

  /** The earliest time still retained (for clamping reads). */
  get earliestMs(): number {
    return this.observedMs - this.retentionMs + 1;
  }

  /** Notes a key written (a put or a restored record); a null value forgets it. */
  track(key: Buffer, deleted: boolean): void {
    const time = this.timeOf(key);
    const id = Math.floor(time / this.segmentIntervalMs);
    const latin = key.toString('latin1');
    if (deleted) {
      this.segments.get(id)?.delete(latin);
      return;
    }
    let seg = this.segments.get(id);
    if (seg === undefined) this.segments.set(id, (seg = new Map()));
    seg.set(latin, key);
    if (time > this.observedMs) this.observedMs = time;
  }

  /** Removes and returns the keys of every segment wholly past retention. */
  takeExpired(): Buffer[] {
    const cutoffMs = this.observedMs - this.retentionMs; // times <= cutoff are expired
    const out: Buffer[] = [];
    for (const [id, keys] of this.segments) {
      if ((id + 1) * this.segmentIntervalMs - 1 > cutoffMs) continue;
      for (const key of keys.values()) out.push(key);
      this.segments.delete(id);
    }
    return out;
  }

  /** The number of keys tracked. */
  get size(): number {
    let n = 0;
    for (const s of this.segments.values()) n += s.size;
    return n;
  }

  clear(): void {
    this.segments.clear();
    this.observedMs = -1;
  }
}

/**
 * Time windows (Kafka Streams' `TimeWindows`, `Window`, `Windowed` and the
 * time-windowed serde): fixed-size windows aligned to the epoch, tumbling
 * (advance = size) or hopping (advance < size), with a grace period after
 * the window end during which out-of-order records are still added.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import { sessionWindowedSerdeFrom } from './session-windows.js';

/** A window [start, end) in epoch ms. */
export interface Window {
  start: number;
  end: number;
}

/** A key and the window it is aggregated in. */
export interface Windowed<K> {
  key: K;
  window: Window;
}

/** Fixed-size windows. */
export class TimeWindows {
  private constructor(
    /** Window size (ms). */
    readonly sizeMs: number,
    /** Distance between window starts (ms); equal to the size for tumbling windows. */
    readonly advanceMs: number,
    /** How long after a window's end records are still accepted (ms). */
    readonly graceMs: number,
  ) {}

  /** Tumbling windows of `sizeMs` that close at their end. */
  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return TimeWindows.of(sizeMs, sizeMs, 0);
  }

  /** Tumbling windows of `sizeMs` that accept late records for `graceMs` after their end. */
  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    return TimeWindows.of(sizeMs, sizeMs, graceMs);
  }

  /** Hopping windows: a new window starts every `advanceMs` (0 < advance <= size). */
  advanceBy(advanceMs: number): TimeWindows {
    if (!Number.isInteger(advanceMs) || advanceMs <= 0 || advanceMs > this.sizeMs) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `window advance must be in (0, size=${this.sizeMs}], got ${advanceMs}`);
    return new TimeWindows(this.sizeMs, advanceMs, this.graceMs);
  }

  /** The windows that contain `timestamp`, oldest first. */
  windowsFor(timestamp: number): Window[] {
    const out: Window[] = [];
    const lastStart = timestamp - (timestamp % this.advanceMs);
    for (let start = lastStart; start > timestamp - this.sizeMs && start >= 0; start -= this.advanceMs) out.unshift({ start, end: start + this.sizeMs });
    return out;
  }

  private static of(sizeMs: number, advanceMs: number, graceMs: number): TimeWindows {
    if (!Number.isInteger(sizeMs) || sizeMs <= 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `window size must be a positive integer of ms, got ${sizeMs}`);
    if (!Number.isInteger(graceMs) || graceMs < 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `grace must be a non-negative integer of ms, got ${graceMs}`);
    return new TimeWindows(sizeMs, advanceMs, graceMs);
  }
}

/** Serdes of windowed keys. */
export const WindowedSerdes = {
  /**
   * Kafka's TimeWindowedSerde layout: the inner key's bytes, then the window
   * start as 8 big-endian bytes; the end is start + `windowSizeMs`.
   */
  timeWindowedSerdeFrom<K>(inner: Serde<K>, windowSizeMs: number): Serde<Windowed<K>> {
    return {
      serialize(topic, data) {
        if (data === null || data === undefined) return null;
        const key = inner.serialize(topic, data.key) ?? Buffer.alloc(0);
        const out = Buffer.allocUnsafe(key.length + 8);
        key.copy(out);
        out.writeBigInt64BE(BigInt(data.window.start), key.length);
        return out;
      },
      deserialize(topic, data) {
        if (data === null) return null;
        if (data.length < 8) throw new StreamsError(StreamsErrorCode.SERDE, `a windowed key of topic '${topic}' has ${data.length} bytes, fewer than 8`);
        const start = Number(data.readBigInt64BE(data.length - 8));
        return { key: inner.deserialize(topic, data.subarray(0, data.length - 8)) as K, window: { start, end: start + windowSizeMs } };
      },
    };
  },
  /** Kafka's SessionWindowedSerde layout: the inner key's bytes, the session end, the session start (8 big-endian bytes each). */
  sessionWindowedSerdeFrom,
} as const;

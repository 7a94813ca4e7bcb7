/**
 * Session windows (Kafka Streams' `SessionWindows`): a session of a key is
 * a run of records with no gap between neighbours longer than the
 * inactivity gap. A session window is [first record time, last record time],
 * both ends inclusive; a record that falls within the gap of two sessions
 * merges them into one. Grace bounds how late an out-of-order record may be:
 * a session is closed once its end + gap + grace is behind stream time.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import type { Windowed } from './windows.js';

/** Windows that grow with activity and close after a gap of inactivity. */
export class SessionWindows {
  private constructor(
    /** The longest gap (ms) between two records of one session. */
    readonly inactivityGapMs: number,
    /** How long (ms) after a session could last be extended records are still accepted. */
    readonly graceMs: number,
  ) {}

  /** Sessions split by gaps longer than `inactivityGapMs`; closed as soon as the gap has passed. */
  static ofInactivityGapWithNoGrace(inactivityGapMs: number): SessionWindows {
    return SessionWindows.of(inactivityGapMs, 0);
  }

  /** Sessions split by gaps longer than `inactivityGapMs`, accepting late records for `graceMs` more. */
  static ofInactivityGapAndGrace(inactivityGapMs: number, graceMs: number): SessionWindows {
    return SessionWindows.of(inactivityGapMs, graceMs);
  }

  private static of(gapMs: number, graceMs: number): SessionWindows {
    if (!Number.isInteger(gapMs) || gapMs <= 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `inactivity gap must be a positive integer of ms, got ${gapMs}`);
    if (!Number.isInteger(graceMs) || graceMs < 0) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `grace must be a non-negative integer of ms, got ${graceMs}`);
    return new SessionWindows(gapMs, graceMs);
  }
}

/**
 * Kafka's SessionWindowedSerde layout: the inner key's bytes, then the
 * session end and start, each as 8 big-endian bytes.
 */
export function sessionWindowedSerdeFrom<K>(inner: Serde<K>): Serde<Windowed<K>> {
  return {
    serialize(topic, data) {
      if (data === null || data === undefined) return null;
      return sessionKeyBytes(inner.serialize(topic, data.key) ?? Buffer.alloc(0), data.window.start, data.window.end);
    },
    deserialize(topic, data) {
      if (data === null) return null;
      if (data.length < 16) throw new StreamsError(StreamsErrorCode.SERDE, `a session-windowed key of topic '${topic}' has ${data.length} bytes, fewer than 16`);
      const { keyBytes, start, end } = parseSessionKey(data);
      return { key: inner.deserialize(topic, keyBytes) as K, window: { start, end } };
    },
  };
}

/** `<key><end: int64 BE><start: int64 BE>`: a key's sessions are adjacent and ordered by end. */
export function sessionKeyBytes(key: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(key.length + 16);
  key.copy(out);
  out.writeBigInt64BE(BigInt(end), key.length);
  out.writeBigInt64BE(BigInt(start), key.length + 8);
  return out;
}

/** The parts of a `sessionKeyBytes` buffer (at least 16 bytes long). */
export function parseSessionKey(data: Buffer): { keyBytes: Buffer; start: number; end: number } {
  return { keyBytes: data.subarray(0, data.length - 16), end: Number(data.readBigInt64BE(data.length - 16)), start: Number(data.readBigInt64BE(data.length - 8)) };
}

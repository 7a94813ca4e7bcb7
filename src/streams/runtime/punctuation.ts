/**
 * Punctuation schedules of a task (Kafka's PunctuationQueue): each fires at
 * most once per check, with the current time; a schedule that fell behind
 * skips the missed intervals rather than firing once per interval.
 */
import type { Cancellable, PunctuationType } from '../processor/processor.js';

interface Schedule {
  intervalMs: number;
  nextMs: number;
  cancelled: boolean;
  run: (timestamp: number) => void;
}

/** The stream-time and wall-clock schedules of one task. */
export class Punctuations {
  private readonly streamTime: Schedule[] = [];
  private readonly wallClock: Schedule[] = [];

  add(type: PunctuationType, intervalMs: number, startMs: number, run: (timestamp: number) => void): Cancellable {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new RangeError(`punctuation interval must be at least 1 ms, got ${intervalMs}`);
    const schedule: Schedule = { intervalMs, nextMs: startMs, cancelled: false, run };
    (type === 'STREAM_TIME' ? this.streamTime : this.wallClock).push(schedule);
    return { cancel: () => void (schedule.cancelled = true) };
  }

  /** Whether any stream-time schedule exists (checked after every record, so cheap). */
  get hasStreamTime(): boolean {
    return this.streamTime.length > 0;
  }

  /** Fires the stream-time schedules due at `nowMs`; returns whether any fired. */
  streamTimeAdvanced(nowMs: number): boolean {
    return fire(this.streamTime, nowMs);
  }

  /** Fires the wall-clock schedules due at `nowMs`; returns whether any fired. */
  wallClockAdvanced(nowMs: number): boolean {
    return fire(this.wallClock, nowMs);
  }
}

function fire(schedules: Schedule[], nowMs: number): boolean {
  if (schedules.length === 0) return false;
  let fired = false;
  for (const s of [...schedules]) {
    if (s.cancelled) {
      schedules.splice(schedules.indexOf(s), 1);
      continue;
    }
    if (nowMs < s.nextMs) continue;
    const behind = nowMs - s.nextMs;
    s.nextMs = nowMs - (behind % s.intervalMs) + s.intervalMs;
    s.run(nowMs);
    fired = true;
  }
  return fired;
}

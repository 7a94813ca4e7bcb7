/**
 * `suppress(Suppressed.untilWindowCloses())`: keeps the latest update of
 * each windowed key and forwards it once, when the stream time this node has
 * seen reaches the window's end plus grace (nothing can change it any more).
 * The buffer is in memory: results not yet emitted when a task closes are
 * recomputed only if their input is reprocessed.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { StreamRecord } from '../processor/record.js';
import type { Change } from './change.js';
import type { Windowed } from './windows.js';

/** How `suppress()` holds back updates. */
export interface Suppressed {
  readonly kind: 'untilWindowCloses';
}

/** Suppression configs. */
export const Suppressed = {
  /** One final result per window, when it closes. */
  untilWindowCloses: (): Suppressed => ({ kind: 'untilWindowCloses' }),
} as const;

function identity(key: Windowed<unknown>): string {
  const k = key.key;
  const text = typeof k === 'object' && k !== null && !Buffer.isBuffer(k) ? JSON.stringify(k) : Buffer.isBuffer(k) ? k.toString('hex') : `${typeof k}:${String(k)}`;
  return `${key.window.start}|${key.window.end}|${text}`;
}

export function suppressUntilWindowCloses(graceMs: number): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext;
    let streamTimeMs = -1;
    const buffer = new Map<string, StreamRecord<Windowed<unknown>, Change<unknown>>>();
    return {
      init: (c) => void (context = c),
      process(record) {
        streamTimeMs = Math.max(streamTimeMs, record.timestamp);
        const r = record as StreamRecord<Windowed<unknown>, Change<unknown>>;
        // A tombstone (a session merged away) replaces what was buffered for its window and is not emitted (as Kafka's final-results suppression).
        if (r.value.newValue !== null) buffer.set(identity(r.key), r);
        else buffer.delete(identity(r.key));
        const due = [...buffer.entries()].filter(([, b]) => b.key.window.end + graceMs <= streamTimeMs).sort(([, a], [, b]) => a.key.window.end - b.key.window.end);
        for (const [id, b] of due) {
          buffer.delete(id);
          context.forward(b.withValue<Change<unknown>>({ newValue: b.value.newValue, oldValue: null }));
        }
      },
    };
  };
}

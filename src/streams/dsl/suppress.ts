/**
 * `suppress(Suppressed.untilWindowCloses())`: keeps the latest update of
 * each windowed key and forwards it once, when the stream time this node has
 * seen reaches the window's end plus grace (nothing can change it any more).
 * The buffer (`KTABLE-SUPPRESS-STATE-STORE-<n>`) is in memory with a
 * changelog, so results not emitted yet survive a restart or a move of the
 * task.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { StreamRecord } from '../processor/record.js';
import type { Serde } from '../serdes.js';
import type { ChangelogConfig, StoreBuilder } from '../state/store.js';
import { SuppressionBuffer } from '../state/suppression-buffer.js';
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

/** The buffer store of a suppress node (logged: a restarted task gets back what it had not emitted). */
export function suppressionBufferBuilder(name: string, keySerde: Serde<unknown> | undefined, valueSerde: Serde<unknown> | undefined, logging = true, config: ChangelogConfig = {}): StoreBuilder<SuppressionBuffer> {
  return {
    name,
    loggingEnabled: logging,
    changelogConfig: config,
    build: () => new SuppressionBuffer(name, keySerde, valueSerde, logging),
    withLoggingDisabled: () => suppressionBufferBuilder(name, keySerde, valueSerde, false, {}),
    withLoggingEnabled: (c = {}) => suppressionBufferBuilder(name, keySerde, valueSerde, true, { ...c }),
  };
}

export function suppressUntilWindowCloses(graceMs: number, storeName: string): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext;
    let buffer: SuppressionBuffer;
    let streamTimeMs = -1;
    return {
      init(c) {
        context = c;
        buffer = c.getStateStore<SuppressionBuffer>(storeName);
      },
      process(record) {
        streamTimeMs = Math.max(streamTimeMs, record.timestamp);
        const r = record as StreamRecord<Windowed<unknown>, Change<unknown>>;
        const { key, window } = r.key;
        // A tombstone (a session merged away) replaces what was buffered for its window and is not emitted (as Kafka's final-results suppression).
        if (r.value.newValue !== null) buffer.put({ key, start: window.start, end: window.end, value: r.value.newValue, timestamp: r.timestamp });
        else buffer.delete(key, window.start, window.end);
        for (const b of buffer.takeDue(streamTimeMs, graceMs)) {
          const windowed: Windowed<unknown> = { key: b.key, window: { start: b.start, end: b.end } };
          context.forward(r.withKey(windowed).withValue<Change<unknown>>({ newValue: b.value, oldValue: null }).withTimestamp(b.timestamp));
        }
      },
    };
  };
}

/**
 * The Processor API (Kafka Streams' `Processor`, `ProcessorContext`,
 * `Punctuator`): what a node of a topology implements and what it can call.
 */
import type { StateStore } from '../state/store.js';
import type { StreamRecord } from './record.js';

/** When a punctuator fires: as stream time (record timestamps) or wall-clock time passes. */
export type PunctuationType = 'STREAM_TIME' | 'WALL_CLOCK_TIME';

/** A scheduled punctuation, which `cancel()` stops. */
export interface Cancellable {
  /** Stops further calls. */
  cancel(): void;
}

/** Where the record being processed came from (absent for punctuations). */
export interface RecordMetadata {
  topic: string;
  partition: number;
  offset: bigint;
}

/** What a processor can do besides receiving records. */
export interface ProcessorContext<KOut = unknown, VOut = unknown> {
  /** The application id (`applicationId` of the config). */
  readonly applicationId: string;
  /** The task this processor instance belongs to, `<subtopology>_<partition>`. */
  readonly taskId: string;
  /** Sends a record to every child node, or only to the named one. */
  forward<K extends KOut, V extends VOut>(record: StreamRecord<K, V>, childName?: string): void;
  /** A store connected to this processor (by `addStateStore` or `connectProcessorAndStateStores`). */
  getStateStore<S extends StateStore>(name: string): S;
  /** Calls `punctuator(timestamp)` every `intervalMs` of stream time or wall-clock time. */
  schedule(intervalMs: number, type: PunctuationType, punctuator: (timestamp: number) => void): Cancellable;
  /** The source of the record being processed, or null inside a punctuation. */
  recordMetadata(): RecordMetadata | null;
  /** The largest record timestamp this task has seen (-1 before the first). */
  currentStreamTimeMs(): number;
  /** Wall-clock time as the runtime (or the test driver) sees it. */
  currentSystemTimeMs(): number;
  /** Asks the runtime to commit soon (it commits every commitIntervalMs anyway). */
  commit(): void;
}

/** A node of a topology that receives records, one at a time, per task. */
export interface Processor<KIn = unknown, VIn = unknown, KOut = unknown, VOut = unknown> {
  /** Called once before the first record, with the context to keep. */
  init?(context: ProcessorContext<KOut, VOut>): void;
  /** Called with each record forwarded to this node. */
  process(record: StreamRecord<KIn, VIn>): void;
  /** Called once when the task closes. */
  close?(): void;
}

/** Makes one processor per task. */
export type ProcessorSupplier<KIn = unknown, VIn = unknown, KOut = unknown, VOut = unknown> = () => Processor<KIn, VIn, KOut, VOut>;

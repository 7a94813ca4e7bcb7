/**
 * What a DSL operator that keeps no state does to one record, described as
 * data so that a task can run it on a record's fields (key, value,
 * timestamp, headers) instead of on a StreamRecord.
 *
 * The DSL's filter, mapValues, map, flatMap, flatMapValues, selectKey and peek hand the user's
 * function only the key and value; they are also ordinary processors (the
 * supplier still makes one per task), which is what runs when a record
 * reaches them from a processor of your own. A task that sees a step on a
 * node's supplier calls the step instead and passes the fields on, so a
 * chain such as `stream().filter().mapValues().to()` allocates no
 * StreamRecord per record and hop: the record a source read goes to the
 * sink as fields, and a StreamRecord is made only when a processor that
 * takes one (your own, or a stateful DSL one) is reached.
 */
import type { KeyValue } from './record.js';
import type { ProcessorSupplier } from './processor.js';

/** One record-to-record(s) function of the DSL, in the shape its operator takes. */
export type StatelessStep =
  /** Passes the record on when `keep` returns a truthy value (filter; filterNot negates). */
  | { kind: 'filter'; keep: (key: unknown, value: unknown) => unknown }
  /** Replaces the value. */
  | { kind: 'mapValues'; map: (value: unknown, key: unknown) => unknown }
  /** Replaces the key. */
  | { kind: 'selectKey'; select: (key: unknown, value: unknown) => unknown }
  /** Replaces key and value. */
  | { kind: 'map'; map: (key: unknown, value: unknown) => KeyValue<unknown, unknown> }
  /** Replaces key and value by each pair `map` returns, in order. */
  | { kind: 'flatMap'; map: (key: unknown, value: unknown) => Iterable<KeyValue<unknown, unknown>> }
  /** Replaces the value by each value `map` returns, in order. */
  | { kind: 'flatMapValues'; map: (value: unknown, key: unknown) => Iterable<unknown> }
  /** Calls `action` and passes the record on. */
  | { kind: 'peek'; action: (key: unknown, value: unknown) => void };

/** A processor supplier that also describes its processor as a step. */
type StepSupplier = ProcessorSupplier & { readonly statelessStep?: StatelessStep };

/** Marks `supplier` as doing what `step` describes (the processors it makes must do exactly that). */
export function withStatelessStep(supplier: ProcessorSupplier, step: StatelessStep): ProcessorSupplier {
  return Object.assign(supplier, { statelessStep: step });
}

/** The step a supplier's processors perform, or null for any other processor. */
export function statelessStepOf(supplier: ProcessorSupplier): StatelessStep | null {
  return (supplier as StepSupplier).statelessStep ?? null;
}

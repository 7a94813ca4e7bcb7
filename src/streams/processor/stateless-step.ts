/**
 * What a DSL operator that keeps no state does to one record, described as
 * data, and the one function that carries it out (`runStatelessStep`).
 *
 * The DSL's filter, filterNot, mapValues, map, flatMap, flatMapValues,
 * selectKey, peek and foreach hand the user's function only the key and
 * value, and merge, a split's branches and a repartition's key filter need
 * no more either. Each is added to the topology as `statelessProcessor(step)`: an
 * ordinary processor (the supplier still makes one per task, and it runs the
 * step on the StreamRecord it receives) that also carries its step. A task
 * that sees the step runs it on the record's fields (key, value, timestamp,
 * headers) instead and passes the fields on, so a chain such as
 * `stream().filter().mapValues().to()` allocates no StreamRecord per record
 * and hop: the record a source read goes to the sink as fields, and a
 * StreamRecord is made only when a processor that takes one (your own, or a
 * stateful DSL one) is reached. Both ways go through `runStatelessStep`, so
 * what an operator does is written once, here.
 */
import type { ProcessorContext, ProcessorSupplier } from './processor.js';
import { StreamRecord, type KeyValue, type StreamHeaders } from './record.js';

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
  | { kind: 'peek'; action: (key: unknown, value: unknown) => void }
  /** Calls `action` and passes nothing on (a terminal operation). */
  | { kind: 'foreach'; action: (key: unknown, value: unknown) => void };

/**
 * Where a step sends each record it emits. `target` is what the caller
 * passed to `runStatelessStep`, and `record` the StreamRecord the step was
 * given when it passes that record on unchanged (null when the key or value
 * changed, or when the caller had none). Timestamp and headers always pass
 * through. A task is its own StepOutput (the method is its hot-path
 * forward), and its state travels as `target`: no function is made per
 * record, and no extra call sits between a step and the next node.
 */
export interface StepOutput<T> {
  forwardFields(target: T, key: unknown, value: unknown, timestamp: number, headers: StreamHeaders, record: StreamRecord<unknown, unknown> | null): void;
}

/**
 * Carries out `step` on one record, given as its fields (and its
 * StreamRecord when the caller has one), passing each record the operator
 * forwards, in order, to `out`.
 */
export function runStatelessStep<T>(step: StatelessStep, out: StepOutput<T>, target: T, key: unknown, value: unknown, timestamp: number, headers: StreamHeaders, record: StreamRecord<unknown, unknown> | null): void {
  switch (step.kind) {
    case 'filter':
      if (step.keep(key, value)) out.forwardFields(target, key, value, timestamp, headers, record);
      return;
    case 'mapValues':
      return out.forwardFields(target, key, step.map(value, key), timestamp, headers, null);
    case 'selectKey':
      return out.forwardFields(target, step.select(key, value), value, timestamp, headers, null);
    case 'map': {
      const kv = step.map(key, value);
      return out.forwardFields(target, kv.key, kv.value, timestamp, headers, null);
    }
    case 'flatMap':
      for (const kv of step.map(key, value)) out.forwardFields(target, kv.key, kv.value, timestamp, headers, null);
      return;
    case 'flatMapValues':
      for (const v of step.map(value, key)) out.forwardFields(target, key, v, timestamp, headers, null);
      return;
    case 'peek':
      step.action(key, value);
      return out.forwardFields(target, key, value, timestamp, headers, record);
    case 'foreach':
      return step.action(key, value);
  }
}

/** A processor supplier that also describes its processor as a step. */
type StepSupplier = ProcessorSupplier & { readonly statelessStep: StatelessStep };

/** The processor path's output: forwards the record given when unchanged, else a new one of the fields. */
const TO_CONTEXT: StepOutput<ProcessorContext> = {
  forwardFields: (context, key, value, timestamp, headers, record) => context.forward(record ?? new StreamRecord(key, value, timestamp, headers)),
};

/**
 * The processor of a DSL stateless operator: runs `step` on each
 * StreamRecord it receives and forwards what it emits. The supplier carries
 * the step for a task to run on fields instead (`statelessStepOf`); both
 * paths run the same `runStatelessStep`.
 */
export function statelessProcessor(step: StatelessStep): ProcessorSupplier {
  const supplier: ProcessorSupplier = () => {
    let context: ProcessorContext | null = null;
    return {
      init: (c) => void (context = c),
      process: (r) => runStatelessStep(step, TO_CONTEXT, context as ProcessorContext, r.key, r.value, r.timestamp, r.headers, r),
    };
  };
  const withStep: StepSupplier = Object.assign(supplier, { statelessStep: step });
  return withStep;
}

/** The step a supplier's processors perform, or null for any other processor. */
export function statelessStepOf(supplier: ProcessorSupplier): StatelessStep | null {
  return (supplier as Partial<StepSupplier>).statelessStep ?? null;
}

/**
 * Join processors with Kafka Streams' semantics (the join tables of the
 * Kafka Streams developer guide): stream-table joins look the table up when
 * a stream record arrives (table updates trigger nothing); table-table joins
 * run on an update of either side and look the other side up.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { KeyValueStore } from '../state/store.js';
import type { Change, ValueGetter, ValueGetterSupplier } from './change.js';

/** Inner, left or outer. */
export type JoinMode = 'inner' | 'left' | 'outer';

/**
 * A stream record joined with the table's value for its key. Null values are
 * dropped; a null key is dropped by the inner join and joined with null by
 * the left join (KIP-962).
 */
export function streamTableJoin<K, V, VT, VR>(getter: ValueGetterSupplier<K, VT>, joiner: (value: V, tableValue: VT | null) => VR, left: boolean): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext | null = null;
    let lookup: ValueGetter<K, VT> | null = null;
    return {
      init(c) {
        context = c;
        lookup = getter.get(c);
      },
      process(record) {
        if (record.value === null || record.value === undefined) return;
        const noKey = record.key === null || record.key === undefined;
        if (noKey && !left) return;
        const tableValue = noKey ? null : (lookup as ValueGetter<K, VT>)(record.key as K);
        if (tableValue === null && !left) return;
        (context as ProcessorContext).forward(record.withValue(joiner(record.value as V, tableValue)));
      },
    };
  };
}

/** The join value of a left value and a right value under `mode` (null: no result). */
export function joinValues<VL, VR, VO>(mode: JoinMode, joiner: (left: VL | null, right: VR | null) => VO, left: VL | null, right: VR | null): VO | null {
  if (mode === 'inner') return left !== null && right !== null ? joiner(left, right) : null;
  if (mode === 'left') return left !== null ? joiner(left, right) : null;
  return left !== null || right !== null ? joiner(left, right) : null;
}

/**
 * One side of a table-table join: on an update of this side, the join of its
 * new and old value with the other side's current value. As Kafka does, an
 * inner join (and the right side of a left join) emits nothing while the
 * other side is absent; otherwise the change is forwarded even if it deletes.
 */
export function tableTableJoinSide<K, VL, VR, VO>(
  mode: JoinMode,
  thisIsLeft: boolean,
  other: ValueGetterSupplier<K, unknown>,
  joiner: (left: VL | null, right: VR | null) => VO,
  storeName: string | null,
): ProcessorSupplier {
  return (): Processor => {
    let context: ProcessorContext | null = null;
    let lookup: ValueGetter<K, unknown> | null = null;
    let store: KeyValueStore<K, VO> | null = null;
    return {
      init(c) {
        context = c;
        lookup = other.get(c);
        if (storeName !== null) store = c.getStateStore<KeyValueStore<K, VO>>(storeName);
      },
      process(record) {
        if (record.key === null || record.key === undefined) return;
        const key = record.key as K;
        const change = record.value as Change<unknown>;
        const otherValue = (lookup as ValueGetter<K, unknown>)(key);
        const needsOther = mode === 'inner' || (mode === 'left' && !thisIsLeft);
        if (needsOther && otherValue === null) return;
        const join = (mine: unknown): VO | null =>
          thisIsLeft ? joinValues(mode, joiner, mine as VL | null, otherValue as VR | null) : joinValues(mode, joiner, otherValue as VL | null, mine as VR | null);
        const newValue = mode === 'left' && !thisIsLeft ? joiner(otherValue as VL, change.newValue as VR | null) : join(change.newValue);
        const oldValue = mode === 'left' && !thisIsLeft ? (change.oldValue === null ? null : joiner(otherValue as VL, change.oldValue as VR)) : join(change.oldValue);
        store?.put(key, newValue);
        (context as ProcessorContext).forward(record.withValue<Change<VO>>({ newValue, oldValue }));
      },
    };
  };
}

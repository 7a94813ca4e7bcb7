/**
 * The processors of a foreign-key table-table join (KIP-213, Kafka's
 * `SubscriptionSendProcessorSupplier`, `SubscriptionReceiveProcessorSupplier`,
 * `SubscriptionJoinProcessorSupplier`, `ForeignTableJoinProcessorSupplier`,
 * `ResponseJoinProcessorSupplier`). The left table (key K, value V) sends a
 * subscription to the partition of its row's foreign key; the right table
 * (key KO, value VO) keeps the subscriptions of each of its keys and answers
 * each one, and again each time its row changes; the left side joins a
 * response with its current row unless the row changed since (hash check).
 * Byte layouts: `fk-join-wire.ts`.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../processor/processor.js';
import type { StreamRecord } from '../processor/record.js';
import type { Serde } from '../serdes.js';
import type { KeyValueStore } from '../state/store.js';
import { changeForwarder, type Change, type ValueGetter, type ValueGetterSupplier } from './change.js';
import { combinedKey, combinedKeyPrefix, Instruction, primaryKeyOf, sameHash, valueHash, type Subscription, type SubscriptionResponse } from './fk-join-wire.js';

type Run = (record: StreamRecord<unknown, unknown>) => void;

function processor(build: (context: ProcessorContext) => Run): ProcessorSupplier {
  return (): Processor => {
    let run: Run | null = null;
    return { init: (c) => void (run = build(c)), process: (r) => (run as Run)(r) };
  };
}

/** What the left side's send processor needs. */
export interface SendOptions<K, V, KO, VR> {
  extractor: (value: V) => KO | null;
  joiner: (value: V, foreignValue: null) => VR;
  leftJoin: boolean;
  keySerde: Serde<K>;
  valueSerde: Serde<V>;
  foreignKeySerde: Serde<KO>;
  /** The topic names given to serializers. */
  subscriptionTopic: string;
  sinkNode: string;
  outputNode: string;
}

/**
 * Left table changes into subscriptions (Kafka's instructions): a row that
 * moves from one foreign key to another unsubscribes from the old one; a new
 * or updated row subscribes, asking for a null answer when the right side
 * has no row so an earlier result is unset. A left-join row without a
 * foreign key is joined with null here, as no right row can match it.
 */
export function subscriptionSend<K, V, KO, VR>(o: SendOptions<K, V, KO, VR>): ProcessorSupplier {
  return processor((context) => {
    const partition = Number(context.taskId.slice(context.taskId.indexOf('_') + 1));
    const fkBytes = (fk: KO | null): Buffer | null => (fk === null || fk === undefined ? null : o.foreignKeySerde.serialize(o.subscriptionTopic, fk));
    return (record) => {
      if (record.key === null || record.key === undefined) return;
      const change = record.value as Change<V>;
      const oldFk = change.oldValue === null ? null : fkBytes(o.extractor(change.oldValue));
      const newFkValue = change.newValue === null ? null : o.extractor(change.newValue);
      const newFk = fkBytes(newFkValue);
      const hash = valueHash(change.newValue === null ? null : o.valueSerde.serialize(o.subscriptionTopic, change.newValue));
      const primaryKey = o.keySerde.serialize(o.subscriptionTopic, record.key as K) as Buffer;
      const send = (fkValue: unknown, instruction: Instruction): void =>
        context.forward(record.withKey(fkValue).withValue<Subscription>({ instruction, hash, primaryPartition: partition, primaryKey }), o.sinkNode);
      const oldFkValue = change.oldValue === null ? null : o.extractor(change.oldValue);
      if (oldFk !== null && (newFk === null || !oldFk.equals(newFk))) {
        // Leaving oldFk: a deleted row (or an inner-join row without a foreign key) unsets its result through the answer.
        const propagate = change.newValue === null || (newFk === null && !o.leftJoin);
        send(oldFkValue, propagate ? Instruction.DeleteKeyAndPropagate : Instruction.DeleteKeyNoPropagate);
      }
      if (newFk !== null) {
        const onlyIfFound = change.oldValue === null && !o.leftJoin;
        send(newFkValue, onlyIfFound ? Instruction.PropagateOnlyIfFkValAvailable : Instruction.PropagateNullIfNoFkValAvailable);
      } else if (o.leftJoin && change.newValue !== null) {
        context.forward(record.withValue(o.joiner(change.newValue, null)), o.outputNode);
      } else if (o.leftJoin && change.newValue === null && change.oldValue !== null && oldFk === null) {
        context.forward(record.withValue(null), o.outputNode); // its result was (old, null): unset it
      }
    };
  });
}

/** Right side: keeps (or removes) the subscription under `[fk][pk]`, then passes it to the join. */
export function subscriptionReceive<KO>(storeName: string, foreignKeySerde: Serde<KO>, topic: string): ProcessorSupplier {
  return processor((context) => {
    const store = context.getStateStore<KeyValueStore<Buffer, Subscription>>(storeName);
    return (record) => {
      if (record.key === null || record.key === undefined || record.value === null) return;
      const s = record.value as Subscription;
      const key = combinedKey(foreignKeySerde.serialize(topic, record.key as KO) as Buffer, s.primaryKey);
      if (s.instruction === Instruction.DeleteKeyNoPropagate || s.instruction === Instruction.DeleteKeyAndPropagate) store.delete(key);
      else store.put(key, s);
      context.forward(record);
    };
  });
}

/** Right side: answers a subscription with the right table's current value for its foreign key. */
export function subscriptionJoin<KO, VO>(right: ValueGetterSupplier<KO, VO>): ProcessorSupplier {
  return processor((context) => {
    const lookup: ValueGetter<KO, VO> = right.get(context);
    return (record) => {
      const s = record.value as Subscription;
      if (s.instruction === Instruction.DeleteKeyNoPropagate) return;
      const foreignValue = s.instruction === Instruction.DeleteKeyAndPropagate ? null : lookup(record.key as KO);
      if (foreignValue === null && s.instruction === Instruction.PropagateOnlyIfFkValAvailable) return;
      context.forward(record.withKey(s.primaryKey).withValue<SubscriptionResponse<VO>>({ hash: s.hash, primaryPartition: s.primaryPartition, foreignValue }));
    };
  });
}

/** Right side: a change of a right row answers every subscriber of its key with the new value. */
export function foreignTableJoin<KO, VO>(storeName: string, foreignKeySerde: Serde<KO>, topic: string): ProcessorSupplier {
  return processor((context) => {
    const store = context.getStateStore<KeyValueStore<Buffer, Subscription>>(storeName);
    return (record) => {
      if (record.key === null || record.key === undefined) return;
      const change = record.value as Change<VO>;
      if (change.newValue === null && change.oldValue === null) return;
      const prefix = combinedKeyPrefix(foreignKeySerde.serialize(topic, record.key as KO) as Buffer);
      for (const { key, value } of store.range(prefix, null)) {
        if (!key.subarray(0, prefix.length).equals(prefix)) break; // past this foreign key's range
        context.forward(record.withKey(primaryKeyOf(key)).withValue<SubscriptionResponse<VO>>({ hash: value.hash, primaryPartition: value.primaryPartition, foreignValue: change.newValue }));
      }
    };
  });
}

/**
 * Left side: joins an answer with the row it answers, if the row is still
 * what was sent (same hash); an inner join with no right row, or a deleted
 * left row, gives null (a tombstone downstream).
 */
export function responseResolve<K, V, VO, VR>(left: ValueGetterSupplier<K, V>, valueSerde: Serde<V>, topic: string, joiner: (value: V, foreignValue: VO | null) => VR, leftJoin: boolean): ProcessorSupplier {
  return processor((context) => {
    const lookup = left.get(context);
    return (record) => {
      if (record.key === null || record.key === undefined || record.value === null) return;
      const response = record.value as SubscriptionResponse<VO>;
      const current = lookup(record.key as K);
      if (!sameHash(response.hash, valueHash(current === null ? null : valueSerde.serialize(topic, current)))) return; // stale: a newer answer follows
      const result = current === null || (response.foreignValue === null && !leftJoin) ? null : joiner(current, response.foreignValue);
      context.forward(record.withValue(result));
    };
  });
}

/** The join's result table: keeps the result (when materialized) and forwards it as a change. */
export function foreignKeyJoinOutput<K, VR>(storeName: string | null): ProcessorSupplier {
  return processor((context) => {
    const store = storeName === null ? null : context.getStateStore<KeyValueStore<K, VR>>(storeName);
    const forward = changeForwarder(context, store);
    return (record) => {
      const key = record.key as K;
      const newValue = (record.value ?? null) as VR | null;
      const oldValue = store === null ? null : store.get(key);
      store?.put(key, newValue);
      forward(record, newValue, oldValue);
    };
  });
}

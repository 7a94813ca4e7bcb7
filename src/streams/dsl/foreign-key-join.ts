/**
 * Wires a foreign-key table-table join (KIP-213) into the topology, as Kafka
 * does: the left table's sub-topology sends subscriptions through
 * `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-<n>-topic` (keyed by the
 * foreign key, sized like the right table's input), the right table's
 * sub-topology keeps them in `KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-<n>`
 * and answers through `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-<n>-topic`
 * (to the left row's partition), and the left side resolves the answers into
 * the result table. Neither table needs to be co-partitioned with the other;
 * each internal topic is co-partitioned with the side that reads it.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import { Serdes, type Serde } from '../serdes.js';
import { Stores } from '../state/stores.js';
import { storeGetter, type ValueGetterSupplier } from './change.js';
import { responseSerde, subscriptionSerde, type SubscriptionResponse } from './fk-join-wire.js';
import { foreignKeyJoinOutput, foreignTableJoin, responseResolve, subscriptionJoin, subscriptionReceive, subscriptionSend } from './fk-join-processors.js';
import type { TableState } from './ktable.js';
import type { Materialized } from './options.js';

/** The two sides and the functions of a foreign-key join. */
export interface ForeignKeyJoinSpec<K, V, KO, VO, VR> {
  left: TableState<K, V>;
  right: TableState<KO, VO>;
  extractor: (value: V) => KO | null;
  joiner: (value: V, foreignValue: VO | null) => VR;
  leftJoin: boolean;
  materialized: Materialized<K, VR> | undefined;
}

function required<T>(serde: Serde<T> | undefined, what: string): Serde<T> {
  if (serde === undefined) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `a foreign-key join needs ${what} (give it in Consumed or Materialized): it serializes it into its internal topics`);
  return serde;
}

/** Adds the join's nodes, topics and stores; returns the result table's state. */
export function addForeignKeyJoin<K, V, KO, VO, VR>(spec: ForeignKeyJoinSpec<K, V, KO, VO, VR>): TableState<K, VR> {
  const { left, right } = spec;
  const g = left.graph;
  if (right.graph !== g) throw new StreamsError(StreamsErrorCode.TOPOLOGY, 'cannot join a table of another StreamsBuilder');
  const keySerde = required(left.keySerde, "the left table's key serde");
  const valueSerde = required(left.valueSerde, "the left table's value serde");
  const foreignKeySerde = required(right.keySerde, "the right table's key serde");
  const responses = responseSerde(required(right.valueSerde, "the right table's value serde"));
  const responseTopic = `${g.name('KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE')}-topic`;
  const subscriptionTopic = `${g.name('KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION')}-topic`;
  const sendNode = g.name('KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION');
  const sinkNode = g.name('KTABLE-SINK');
  const outputNode = g.name('KTABLE-FK-JOIN-OUTPUT');
  const t = g.topology;

  // Left side: rows become subscriptions keyed by their foreign key.
  g.processor(sendNode, subscriptionSend<K, V, KO, VR>({ extractor: spec.extractor, joiner: spec.joiner, leftJoin: spec.leftJoin, keySerde, valueSerde, foreignKeySerde, subscriptionTopic, sinkNode, outputNode }), [left.node]);
  t.addSink(sinkNode, subscriptionTopic, { keySerde: foreignKeySerde, valueSerde: subscriptionSerde }, sendNode);

  // Right side: the subscriptions of each right key, answered now and on each change of the right row.
  const subscriptionSource = g.name('KTABLE-SOURCE');
  t.addSource(subscriptionSource, subscriptionTopic, { keySerde: foreignKeySerde, valueSerde: subscriptionSerde });
  const store = g.name('KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE');
  const supplier = spec.materialized?.storeType === 'persistent' ? Stores.persistentKeyValueStore(store) : Stores.inMemoryKeyValueStore(store);
  t.addStateStore(Stores.keyValueStoreBuilder(supplier, Serdes.ByteArray(), subscriptionSerde));
  const receiveNode = g.processor(g.name('KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR'), subscriptionReceive(store, foreignKeySerde, subscriptionTopic), [subscriptionSource], [store]);
  const joinNode = g.processor(g.name('KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR'), subscriptionJoin(right.getter), [receiveNode], right.getter.stores);
  const foreignNode = g.processor(g.name('KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR'), foreignTableJoin(store, foreignKeySerde, subscriptionTopic), [right.node], [store]);
  // Answers go to the partition the left row lives in (it came with the subscription).
  const toPrimary = (_topic: string, _key: unknown, value: SubscriptionResponse<VO>, n: number): number | undefined => (value.primaryPartition < n ? value.primaryPartition : undefined);
  t.addSink(g.name('KTABLE-SINK'), responseTopic, { keySerde: Serdes.ByteArray(), valueSerde: responses, partitioner: toPrimary as never }, joinNode, foreignNode);

  // Left side again: answers joined with the current row, unless it changed since.
  const responseSource = g.name('KTABLE-SOURCE');
  t.addSource(responseSource, responseTopic, { keySerde, valueSerde: responses });
  const resolveNode = g.name('KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR');
  g.processor(resolveNode, responseResolve<K, V, VO, VR>(left.getter, valueSerde, responseTopic, spec.joiner, spec.leftJoin), [responseSource], left.getter.stores);
  const resultStore = spec.materialized === undefined ? null : g.keyValueStore<K, VR>(spec.materialized, 'KTABLE-FK-JOIN-OUTPUT-STATE-STORE', keySerde, spec.materialized.valueSerde);
  g.processor(outputNode, foreignKeyJoinOutput<K, VR>(resultStore), [resolveNode, sendNode], resultStore === null ? [] : [resultStore]);

  t.addInternalTopic(subscriptionTopic, null, receiveNode);
  t.addInternalTopic(responseTopic, null, resolveNode);
  t.addCopartitionedNode(receiveNode);
  t.addCopartitionedNode(resolveNode);
  const getter: ValueGetterSupplier<K, VR> = resultStore !== null ? storeGetter<K, VR>(resultStore) : unmaterialized(outputNode);
  return { graph: g, node: outputNode, keySerde, valueSerde: spec.materialized?.valueSerde, getter, storeName: resultStore };
}

/** A join result without a store cannot be looked up (by a later join): say how to fix it. */
function unmaterialized<K, VR>(node: string): ValueGetterSupplier<K, VR> {
  return {
    stores: [],
    get() {
      throw new StreamsError(StreamsErrorCode.TOPOLOGY, `the foreign-key join result '${node}' has no store to look up: pass a Materialized to join()/leftJoin()`);
    },
  };
}

/**
 * `addGlobalStore` with a user processor against a real broker
 * (startCluster): the store is bootstrapped from every partition of its topic
 * through the processor before any task runs, follows the topic, is read by
 * a stream processor and by interactive queries (read-only), and a restarted
 * instance rebuilds it through the processor (a non-idempotent processor
 * that counts updates gives the same counts, not twice them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../helpers/until.js';
import { produceStrings, readStringMap, useStreamsCluster } from '../../helpers/streams-cluster.js';
import { KafkaStreams, Serdes, Stores, Topology, type KeyValueStore, type Processor, type ProcessorContext } from '../../../src/streams/index.js';

const S = Serdes.String();
const stateDir = mkdtempSync(join(tmpdir(), 'streams-global-store-'));
const sc = useStreamsCluster({}, () => rmSync(stateDir, { recursive: true, force: true }));
const produce = (topic: string, records: [string, string | null][]): Promise<void> => produceStrings(sc.bootstrap, topic, records);
const read = (topic: string, count: number): Promise<Map<string, string | null>> => readStringMap(sc, topic, { count });

/** Stores `<updates>|<NAME>` per product: what the store holds is not what the topic holds. */
function catalogueProcessor(): Processor<string, string, void, void> {
  let store: KeyValueStore<string, string>;
  return {
    init: (c) => void (store = c.getStateStore('catalogue')),
    process(record) {
      if (record.value === null) return void store.delete(record.key);
      const updates = Number((store.get(record.key) ?? '0|').split('|')[0]) + 1;
      store.put(record.key, `${updates}|${record.value.toUpperCase()}`);
    },
  };
}

function topology(products: string, orders: string, out: string): Topology {
  return new Topology()
    .addGlobalStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('catalogue'), S, S).withLoggingDisabled(), 'CatalogueSource', { keySerde: S, valueSerde: S }, products, 'CatalogueUpdater', catalogueProcessor)
    .addSource('Orders', orders, { keySerde: S, valueSerde: S })
    .addProcessor('Enrich', (): Processor<string, string, string, string> => {
      let context: ProcessorContext<string, string>;
      let catalogue: KeyValueStore<string, string>;
      return {
        init(c) {
          context = c;
          catalogue = c.getStateStore('catalogue');
        },
        process: (r) => context.forward(r.withValue(`${r.value}:${catalogue.get(r.value) ?? 'unknown'}`)),
      };
    }, 'Orders')
    .addSink('Out', out, { keySerde: S, valueSerde: S }, 'Enrich');
}

test('addGlobalStore on a cluster: bootstrapped through the processor, follows the topic, queryable, rebuilt the same after a restart', async () => {
  const id = Date.now();
  const [products, orders, out] = [`gs-products-${id}`, `gs-orders-${id}`, `gs-out-${id}`];
  await sc.admin.createTopics([{ name: products, numPartitions: 3 }, { name: orders, numPartitions: 2 }, { name: out, numPartitions: 1 }]);
  await produce(products, [['p1', 'apple'], ['p1', 'green apple'], ['p2', 'pear'], ['p3', 'plum'], ['p3', null]]);
  await produce(orders, [['o1', 'p1'], ['o2', 'p3']]);
  const config = { applicationId: `gstore-${id}`, bootstrapServers: sc.bootstrap, commitIntervalMs: 200, stateDir };
  let streams = new KafkaStreams(topology(products, orders, out), config);
  await streams.start();
  try {
    const catalogue = streams.store<string, string>('catalogue');
    assert.equal(catalogue.get('p1'), '2|GREEN APPLE');
    assert.equal(catalogue.get('p3'), null);
    assert.throws(() => (catalogue as unknown as KeyValueStore<string, string>).put('p9', 'x'), /read-only/);
    assert.deepEqual(Object.fromEntries(await read(out, 2)), { o1: 'p1:2|GREEN APPLE', o2: 'p3:unknown' });
    await produce(products, [['p2', 'nashi']]);
    await until('the update of p2 in the global store', async () => (streams.store<string, string>('catalogue').get('p2') === '2|NASHI' ? true : null));
    await produce(orders, [['o3', 'p2']]);
    assert.equal((await read(out, 3)).get('o3'), 'p2:2|NASHI');
  } finally {
    await streams.close();
  }
  // A new instance on the same state directory rebuilds the store from the topic through the processor.
  streams = new KafkaStreams(topology(products, orders, out), config);
  await streams.start();
  try {
    const catalogue = streams.store<string, string>('catalogue');
    assert.equal(catalogue.get('p1'), '2|GREEN APPLE');
    assert.equal(catalogue.get('p2'), '2|NASHI');
    assert.equal(catalogue.approximateNumEntries(), 2);
  } finally {
    await streams.close();
  }
});

/**
 * `addGlobalStore` with a user processor (Kafka's Topology.addGlobalStore and
 * StreamsBuilder.addGlobalStore), in the TopologyTestDriver: the processor
 * decides what the store holds, every processor reads the store without
 * being connected and cannot write it, and the topology is checked and
 * described as Kafka does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Serdes,
  StreamRecord,
  StreamsBuilder,
  StreamsError,
  StreamsErrorCode,
  Stores,
  Topology,
  TopologyTestDriver,
  type KeyValueStore,
  type Processor,
  type ProcessorContext,
} from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();

/** Keeps, per product, the upper-cased name and how many updates it had: what the topic holds is not what the store holds. */
function catalogueProcessor(seen: string[]): Processor<string, string, void, void> {
  let store: KeyValueStore<string, string>;
  return {
    init(context) {
      store = context.getStateStore('catalogue');
      assert.equal(context.taskId, '-1_-1');
    },
    process(record) {
      seen.push(`${record.key}=${record.value}@${record.timestamp}`);
      if (record.value === null) return void store.delete(record.key);
      const updates = Number((store.get(record.key) ?? '0|').split('|')[0]) + 1;
      store.put(record.key, `${updates}|${record.value.toUpperCase()}`);
    },
  };
}

/** Looks each order's product up in the global store it was never connected to. */
function enrichProcessor(): Processor<string, string, string, string> {
  let context: ProcessorContext<string, string>;
  let catalogue: KeyValueStore<string, string>;
  return {
    init(c) {
      context = c;
      catalogue = c.getStateStore('catalogue');
    },
    process(record) {
      context.forward(record.withValue(`${record.value}:${catalogue.get(record.value) ?? 'unknown'}`));
    },
  };
}

function catalogueTopology(seen: string[]): Topology {
  return new Topology()
    .addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('catalogue'), S, S).withLoggingDisabled(), 'CatalogueSource', { keySerde: S, valueSerde: S }, 'products', 'CatalogueUpdater', () => catalogueProcessor(seen))
    .addSource('Orders', 'orders', { keySerde: S, valueSerde: S })
    .addProcessor('Enrich', enrichProcessor, 'Orders')
    .addSink('Out', 'enriched', { keySerde: S, valueSerde: S }, 'Enrich');
}

test('addGlobalStore: the processor decides what the store holds; every processor reads it without being connected', () => {
  const seen: string[] = [];
  const driver = new TopologyTestDriver(catalogueTopology(seen));
  try {
    const products = driver.createInputTopic('products', S, S);
    const orders = driver.createInputTopic('orders', S, S);
    const out = driver.createOutputTopic('enriched', S, S);
    products.pipeInput('p1', 'apple', 5);
    products.pipeInput('p1', 'green apple', 6);
    products.pipeInput('p2', 'pear', 7);
    orders.pipeInput('o1', 'p1');
    orders.pipeInput('o2', 'p3');
    products.pipeInput('p2', null, 8);
    orders.pipeInput('o3', 'p2');
    assert.deepEqual(out.readKeyValuesToList().map((r) => `${r.key}=${r.value}`), ['o1=p1:2|GREEN APPLE', 'o2=p3:unknown', 'o3=p2:unknown']);
    assert.deepEqual(seen, ['p1=apple@5', 'p1=green apple@6', 'p2=pear@7', 'p2=null@8']);
    const store = driver.getKeyValueStore<string, string>('catalogue');
    assert.equal(store.get('p1'), '2|GREEN APPLE');
    assert.equal(store.get('p2'), null);
    assert.deepEqual(driver.producedTopicNames(), ['enriched'], 'a global store logs nothing: its topic is its changelog');
  } finally {
    driver.close();
  }
});

test('addGlobalStore: only its processor writes the store; other processors get a read-only view', () => {
  const topology = new Topology()
    .addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('catalogue'), S, S).withLoggingDisabled(), 'CatalogueSource', { keySerde: S, valueSerde: S }, 'products', 'CatalogueUpdater', () => catalogueProcessor([]))
    .addSource('Orders', 'orders', { keySerde: S, valueSerde: S })
    .addProcessor('Writer', (): Processor<string, string> => {
      let catalogue: KeyValueStore<string, string>;
      return {
        init: (c) => void (catalogue = c.getStateStore('catalogue')),
        process: (r) => catalogue.put(r.key, r.value),
      };
    }, 'Orders');
  const driver = new TopologyTestDriver(topology);
  try {
    assert.throws(() => driver.createInputTopic('orders', S, S).pipeInput('k', 'v'), (err: unknown) => err instanceof StreamsError && /read-only/.test(err.message));
    assert.equal(driver.getKeyValueStore('catalogue').get('k'), null);
  } finally {
    driver.close();
  }
});

test('addGlobalStore: the processor forwards to nobody, cannot schedule, and sees record metadata', () => {
  const notes: string[] = [];
  const topology = new Topology()
    .addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('last'), S, L).withLoggingDisabled(), 'Src', { keySerde: S, valueSerde: S }, 'g', 'Proc', (): Processor<string, string, void, void> => {
      let context: ProcessorContext<void, void>;
      return {
        init(c) {
          context = c;
          assert.throws(() => c.schedule(10, 'STREAM_TIME', () => {}), (err: unknown) => err instanceof StreamsError && err.code === StreamsErrorCode.TOPOLOGY);
        },
        process(record) {
          const meta = context.recordMetadata();
          notes.push(`${meta?.topic}-${meta?.partition}@${meta?.offset} t=${context.currentStreamTimeMs()}`);
          context.getStateStore<KeyValueStore<string, bigint>>('last').put(record.key, BigInt(record.timestamp));
          context.forward(new StreamRecord(undefined, undefined, record.timestamp));
        },
      };
    })
    .addSource('A', 'a')
    .addSink('B', 'b', 'A');
  const driver = new TopologyTestDriver(topology);
  try {
    const g = driver.createInputTopic('g', S, S);
    g.pipeInput('x', '1', 30);
    g.pipeInput('x', '2', 20);
    assert.deepEqual(notes, ['g-0@0 t=30', 'g-0@1 t=30']);
    assert.equal(driver.getKeyValueStore<string, bigint>('last').get('x'), 20n);
    assert.deepEqual(driver.producedTopicNames(), []);
  } finally {
    driver.close();
  }
});

test('addGlobalStore is refused with logging enabled, with one name for both nodes, with a taken name or topic, or as a parent', () => {
  const builder = () => Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('gs'), S, S);
  const refused = (make: () => unknown, pattern: RegExp): void => {
    assert.throws(make, (err: unknown) => err instanceof StreamsError && err.code === StreamsErrorCode.TOPOLOGY && pattern.test(err.message));
  };
  const noop = (): Processor<string, string, void, void> => ({ process() {} });
  refused(() => new Topology().addGlobalStore(builder(), 'S', {}, 't', 'P', noop), /global store 'gs' must not have logging enabled/);
  refused(() => new Topology().addGlobalStore(builder().withLoggingDisabled(), 'S', {}, 't', 'S', noop), /different names/);
  refused(() => new Topology().addSource('S', 'x').addGlobalStore(builder().withLoggingDisabled(), 'S', {}, 't', 'P', noop), /a node named 'S' already exists/);
  refused(() => new Topology().addGlobalStore(builder().withLoggingDisabled(), 'S', {}, 't', 'P', noop).addSource('P', 'y'), /a node named 'P' already exists/);
  refused(() => new Topology().addSource('S', 't').addGlobalStore(builder().withLoggingDisabled(), 'G', {}, 't', 'P', noop), /topic 't' is read by both 'S' and the global store 'gs'/);
  refused(() => new Topology().addGlobalStore(builder().withLoggingDisabled(), 'G', {}, 't', 'P', noop).addSource('S', 'x').addSink('K', 'out', 'P').validate(), /sink 'K' names 'P', a node of a global store/);
});

test('StreamsBuilder.addGlobalStore names the nodes as Kafka does; describe() shows the global store apart', () => {
  const builder = new StreamsBuilder();
  builder.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('catalogue'), S, S).withLoggingDisabled(), 'products', { keySerde: S, valueSerde: S }, () => catalogueProcessor([]));
  builder.stream('orders', { keySerde: S, valueSerde: S }).to('out');
  const topology = builder.build();
  const description = topology.describe();
  assert.equal(description.subtopologies.length, 1);
  assert.deepEqual(description.globalStores, [{ id: 1, store: 'catalogue', topic: 'products', sourceName: 'KSTREAM-SOURCE-0000000000', processorName: 'KTABLE-SOURCE-0000000001' }]);
  assert.match(
    description.toString(),
    /Sub-topology: 1 for global store \(will not generate tasks\)\n {4}Source: KSTREAM-SOURCE-0000000000 \(topics: \[products\]\)\n {6}--> KTABLE-SOURCE-0000000001\n {4}Processor: KTABLE-SOURCE-0000000001 \(stores: \[catalogue\]\)\n {6}--> none\n {6}<-- KSTREAM-SOURCE-0000000000\n/,
  );
  const driver = new TopologyTestDriver(topology);
  try {
    driver.createInputTopic('products', S, S).pipeInput('p', 'fig');
    assert.equal(driver.getKeyValueStore('catalogue').get('p'), '1|FIG');
  } finally {
    driver.close();
  }
});

test('a persistent global store works in the driver (its directory is the driver\'s)', () => {
  const topology = new Topology()
    .addGlobalStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('catalogue'), S, S).withLoggingDisabled(), 'Src', { keySerde: S, valueSerde: S }, 'products', 'Proc', () => catalogueProcessor([]))
    .addSource('A', 'a')
    .addSink('B', 'b', 'A');
  const driver = new TopologyTestDriver(topology);
  try {
    driver.createInputTopic('products', S, S).pipeInput('p', 'kiwi');
    assert.equal(driver.getKeyValueStore('catalogue').get('p'), '1|KIWI');
  } finally {
    driver.close();
  }
});

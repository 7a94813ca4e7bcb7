/** The Processor API: sources, processors, sinks, stores, punctuators; topology validation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, StreamRecord, StreamsErrorCode, Stores, Topology, TopologyTestDriver, type KeyValueStore, type Processor, type ProcessorContext } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();

/** Counts per key in a store; emits all counts on each stream-time and wall-clock punctuation. */
function countingProcessor(log: string[]): Processor<string, string, string, bigint> {
  let context: ProcessorContext<string, bigint>;
  let store: KeyValueStore<string, bigint>;
  const emitAll = (tag: string) => (timestamp: number): void => {
    log.push(`${tag}@${timestamp}`);
    for (const { key, value } of store.all()) context.forward(new StreamRecord(key, value, timestamp));
  };
  return {
    init(c) {
      context = c;
      store = c.getStateStore('counts');
      c.schedule(10, 'STREAM_TIME', emitAll('stream'));
      c.schedule(1000, 'WALL_CLOCK_TIME', emitAll('wall'));
    },
    process(record) {
      store.put(record.key, (store.get(record.key) ?? 0n) + 1n);
    },
    close() {
      log.push('closed');
    },
  };
}


function topology(log: string[]): Topology {
  return new Topology()
    .addSource('Source', 'in', { keySerde: S, valueSerde: S })
    .addProcessor('Count', () => countingProcessor(log), 'Source')
    .addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('counts'), S, L), 'Count')
    .addSink('Sink', 'out', { keySerde: S, valueSerde: L }, 'Count');
}

test('a hand-built topology processes, punctuates on stream time and wall-clock time, and closes', () => {
  const log: string[] = [];
  const driver = new TopologyTestDriver(topology(log), { initialWallClockTimeMs: 0 });
  const tin = driver.createInputTopic('in', S, S);
  const out = driver.createOutputTopic('out', S, L);
  tin.pipeInput('a', 'x', 0); // stream time 0: first punctuation
  tin.pipeInput('a', 'x', 5); // not due
  tin.pipeInput('b', 'x', 25); // due (10), next at 30
  assert.deepEqual(log, ['stream@0', 'stream@25']);
  assert.deepEqual(out.readKeyValuesToList(), [{ key: 'a', value: 1n }, { key: 'a', value: 2n }, { key: 'b', value: 1n }]);
  tin.pipeInput('b', 'x', 3); // out of order: stream time stays 25
  driver.advanceWallClockTime(999);
  assert.equal(log.length, 2);
  driver.advanceWallClockTime(1);
  assert.deepEqual(log.slice(2), ['wall@1000']);
  assert.deepEqual(out.readKeyValuesToMap(), new Map([['a', 2n], ['b', 2n]]));
  assert.equal(driver.getKeyValueStore<string, bigint>('counts').get('b'), 2n);
  driver.close();
  assert.equal(log.at(-1), 'closed');
});

test('describe() of a hand-built topology', () => {
  assert.equal(
    topology([]).describe().toString(),
    'Topologies:\n   Sub-topology: 0\n    Source: Source (topics: [in])\n      --> Count\n    Processor: Count (stores: [counts])\n      --> Sink\n      <-- Source\n    Sink: Sink (topic: out)\n      <-- Count\n\n',
  );
});

test('validation names the node: unknown parent, unknown store, cycle, duplicate name, sink as parent', () => {
  const noop = (): Processor => ({ process() {} });
  const invalid = (t: () => Topology, pattern: RegExp): void =>
    assert.throws(() => t().validate(), (e: { code?: string; message: string }) => e.code === StreamsErrorCode.TOPOLOGY && pattern.test(e.message));
  invalid(() => new Topology().addSource('s', 't').addProcessor('p', noop, 'missing'), /processor 'p' names an unknown parent 'missing'/);
  invalid(() => new Topology().addSource('s', 't').addProcessor('p', noop, 's').connectProcessorAndStateStores('p', 'nope'), /processor 'p' uses the unknown store 'nope'/);
  invalid(() => new Topology().addSource('s', 't').addProcessor('a', noop, 's', 'b').addProcessor('b', noop, 'a'), /cycle through '(a|b)'/);
  invalid(() => new Topology().addSource('s', 't').addSink('k', 'o', 's').addProcessor('p', noop, 'k'), /processor 'p' names the sink 'k'/);
  assert.throws(() => new Topology().addSource('s', 't').addSource('s', 'u'), /a node named 's' already exists/);
  assert.throws(() => new Topology().addSource('s', 't').addSource('s2', 't'), /topic 't' is read by both 's' and 's2'/);
  invalid(() => new Topology(), /no node/);
});

test('a processor that throws is reported with its name; a store not connected is refused', () => {
  const failing = new Topology().addSource('s', 'in', { keySerde: S, valueSerde: S }).addProcessor('Boom', () => ({ process() { throw new Error('bad value'); } }), 's');
  const driver = new TopologyTestDriver(failing);
  assert.throws(() => driver.createInputTopic('in', S, S).pipeInput('k', 'v'), (e: { code?: string; message: string }) => e.code === StreamsErrorCode.PROCESSING && /processor 'Boom' failed in process.*bad value/.test(e.message));
  driver.close();
  const sneaky = new Topology()
    .addSource('s', 'in', { keySerde: S, valueSerde: S })
    .addProcessor('Other', () => ({ process() {} }), 's')
    .addProcessor('Sneaky', () => ({ init: (c: ProcessorContext) => void c.getStateStore('counts'), process() {} }), 's')
    .addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('counts'), S, L), 'Other');
  assert.throws(() => new TopologyTestDriver(sneaky), /processor 'Sneaky' is not connected to a store 'counts'/);
});

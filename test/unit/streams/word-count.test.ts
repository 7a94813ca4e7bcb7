/** The word-count example, exactly as users write it, and its description. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, StreamsBuilder, TopologyTestDriver } from '../../../src/streams/index.js';

function wordCount(): ReturnType<StreamsBuilder['build']> {
  const builder = new StreamsBuilder();
  builder
    .stream('text-lines', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'word-counts' })
    .toStream()
    .to('word-counts', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

test('word count: the example of the issue gives bigint counts', () => {
  const driver = new TopologyTestDriver(wordCount());
  const input = driver.createInputTopic('text-lines', Serdes.String(), Serdes.String());
  const output = driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Long());
  input.pipeInput(null, 'a b a');
  assert.deepEqual(output.readKeyValuesToMap(), new Map([['a', 2n], ['b', 1n]]));
  input.pipeInput(null, 'B, c!');
  assert.deepEqual(output.readKeyValuesToList(), [{ key: 'b', value: 2n }, { key: 'c', value: 1n }]);
  assert.equal(driver.getKeyValueStore<string, bigint>('word-counts').get('a'), 2n);
  assert.deepEqual(driver.getKeyValueStore<string, bigint>('word-counts').all().map((e) => e.key), ['a', 'b', 'c']);
  driver.close();
});

test('word count goes through the repartition topic named after the store', () => {
  const driver = new TopologyTestDriver(wordCount(), { applicationId: 'wc' });
  driver.createInputTopic('text-lines', Serdes.String(), Serdes.String()).pipeInput('k', 'x');
  assert.ok(driver.producedTopicNames().includes('wc-word-counts-repartition'));
  assert.ok(driver.producedTopicNames().includes('wc-word-counts-changelog'));
  const repartition = driver.createOutputTopic('wc-word-counts-repartition', Serdes.String(), Serdes.String());
  assert.deepEqual(repartition.readKeyValue(), { key: 'x', value: 'x' });
  driver.close();
});

test('describe() prints the two sub-topologies as Kafka does', () => {
  assert.equal(
    wordCount().describe().toString(),
    [
      'Topologies:',
      '   Sub-topology: 0',
      '    Source: KSTREAM-SOURCE-0000000000 (topics: [text-lines])',
      '      --> KSTREAM-FLATMAPVALUES-0000000001',
      '    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])',
      '      --> KSTREAM-KEY-SELECT-0000000002',
      '      <-- KSTREAM-SOURCE-0000000000',
      '    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])',
      '      --> word-counts-repartition-filter',
      '      <-- KSTREAM-FLATMAPVALUES-0000000001',
      '    Processor: word-counts-repartition-filter (stores: [])',
      '      --> word-counts-repartition-sink',
      '      <-- KSTREAM-KEY-SELECT-0000000002',
      '    Sink: word-counts-repartition-sink (topic: word-counts-repartition)',
      '      <-- word-counts-repartition-filter',
      '',
      '  Sub-topology: 1',
      '    Source: word-counts-repartition-source (topics: [word-counts-repartition])',
      '      --> KSTREAM-AGGREGATE-0000000003',
      '    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [word-counts])',
      '      --> KTABLE-TOSTREAM-0000000004',
      '      <-- word-counts-repartition-source',
      '    Processor: KTABLE-TOSTREAM-0000000004 (stores: [])',
      '      --> KSTREAM-SINK-0000000005',
      '      <-- KSTREAM-AGGREGATE-0000000003',
      '    Sink: KSTREAM-SINK-0000000005 (topic: word-counts)',
      '      <-- KTABLE-TOSTREAM-0000000004',
      '',
      '',
    ].join('\n'),
  );
});

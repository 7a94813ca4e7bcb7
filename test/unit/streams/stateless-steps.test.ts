/**
 * DSL stateless operators run by a task on a record's fields
 * (processor/stateless-step.ts): what reaches the output and your own
 * processors must be what the operators' processors would have forwarded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamsBuilder, StreamsErrorCode, TopologyTestDriver, type Processor, type ProcessorContext, type StreamRecord } from '../../../src/streams/index.js';

const S = Serdes.String();
const H = [{ key: 'trace', value: Buffer.from('t1') }];

test('timestamps and headers pass unchanged through filter, mapValues, selectKey, map, peek and flatMapValues to the sink', () => {
  const b = new StreamsBuilder();
  const peeked: string[] = [];
  b.stream('in', { keySerde: S, valueSerde: S })
    .filter((_k, v) => v !== 'drop')
    .filterNot((_k, v) => v === 'skip')
    .mapValues((v) => v.toUpperCase())
    .selectKey((k, v) => `${k}:${v}`)
    .map((k, v) => KeyValue.pair(k, `${v}!`))
    .peek((k) => void peeked.push(k))
    .flatMapValues((v) => [v, v.toLowerCase()])
    .to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(b.build());
  const tin = driver.createInputTopic('in', S, S);
  tin.pipeInput('a', 'drop', 1_000, H);
  tin.pipeInput('b', 'skip', 2_000, H);
  tin.pipeInput('c', 'keep', 3_000, H);
  const out = driver.createOutputTopic('out', S, S).readRecordsToList();
  driver.close();
  assert.deepEqual(peeked, ['c:KEEP']);
  assert.deepEqual(
    out.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp, header: r.headers.map((h) => `${h.key}=${h.value?.toString()}`) })),
    [
      { key: 'c:KEEP', value: 'KEEP!', timestamp: 3_000, header: ['trace=t1'] },
      { key: 'c:KEEP', value: 'keep!', timestamp: 3_000, header: ['trace=t1'] },
    ],
  );
});

test('a processor of your own after steps gets a StreamRecord of the fields and the record metadata; its output goes through later steps', () => {
  const seen: { key: unknown; value: unknown; timestamp: number; headers: number; topic: string | undefined }[] = [];
  const own = (): Processor<string, string, string, string> => {
    let context: ProcessorContext<string, string> | null = null;
    return {
      init: (c) => void (context = c),
      process(record: StreamRecord<string, string>) {
        seen.push({ key: record.key, value: record.value, timestamp: record.timestamp, headers: record.headers.length, topic: context?.recordMetadata()?.topic });
        context?.forward(record.withValue(`${record.value}+`).withTimestamp(record.timestamp + 1));
      },
    };
  };
  const b = new StreamsBuilder();
  b.stream('in', { keySerde: S, valueSerde: S })
    .filter((_k, v) => v.length > 1)
    .mapValues((v) => v.toUpperCase())
    .process(own)
    .mapValues((v) => `<${v}>`)
    .to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(b.build());
  const tin = driver.createInputTopic('in', S, S);
  tin.pipeInput('k', 'x', 5);
  tin.pipeInput('k', 'xy', 7, H);
  const out = driver.createOutputTopic('out', S, S).readRecordsToList();
  driver.close();
  assert.deepEqual(seen, [{ key: 'k', value: 'XY', timestamp: 7, headers: 1, topic: 'in' }]);
  assert.deepEqual(out.map((r) => [r.key, r.value, r.timestamp, r.headers.length]), [['k', '<XY+>', 8, 1]]);
});

test('a stream read by several operators sends each record to each of them in the order they were added', () => {
  const b = new StreamsBuilder();
  const source = b.stream<string, string>('in', { keySerde: S, valueSerde: S });
  source.filter((_k, v) => v.startsWith('a')).mapValues((v) => `first:${v}`).to('out', { keySerde: S, valueSerde: S });
  source.mapValues((v) => `second:${v}`).to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(b.build());
  const tin = driver.createInputTopic('in', S, S);
  tin.pipeInput('k', 'ab');
  tin.pipeInput('k', 'b');
  const out = driver.createOutputTopic('out', S, S).readValuesToList();
  driver.close();
  assert.deepEqual(out, ['first:ab', 'second:ab', 'second:b']);
});

test('a step that throws is reported with the name of its node', () => {
  const b = new StreamsBuilder();
  b.stream('in', { keySerde: S, valueSerde: S })
    .mapValues((v) => v, 'Harmless')
    .filter(() => {
      throw new Error('bad predicate');
    }, 'Picky')
    .to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(b.build());
  assert.throws(
    () => driver.createInputTopic('in', S, S).pipeInput('k', 'v'),
    (e: { code?: string; message: string }) => e.code === StreamsErrorCode.PROCESSING && /processor 'Picky' failed in process.*bad predicate/.test(e.message),
  );
  driver.close();
});

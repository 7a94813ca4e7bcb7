/**
 * DSL stateless operators (processor/stateless-step.ts): each is a
 * StatelessStep, which a task runs on a record's fields, and a processor
 * derived from it, which runs the same step on a StreamRecord. Both paths
 * must give what the operator is meant to give: the tests below run each
 * operator both ways through a real task (the processor path by hiding the
 * step from the task) and compare each with results written out by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, StreamRecord, StreamsBuilder, StreamsErrorCode, TopologyTestDriver, type KStream, type Processor, type ProcessorContext, type StreamHeaders, type Topology } from '../../../src/streams/index.js';
import { statelessStepOf } from '../../../src/streams/processor/stateless-step.js';

const S = Serdes.String();
const H = [{ key: 'trace', value: Buffer.from('t1') }];

/** How a task runs the DSL's stateless operators: their steps on fields, or their processors on StreamRecords. */
type Path = 'fields' | 'processor';
const PATHS: readonly Path[] = ['fields', 'processor'];

/**
 * The topology `build` makes, with each stateless operator's processor
 * counting the records it is given in `processed`. For the processor path
 * its supplier no longer carries the step, so the task calls the processor;
 * for the fields path it keeps the step (the property statelessStepOf
 * reads), so the task runs the step and the count stays 0. A test checks
 * the count, so it knows it took the path it meant to.
 */
function buildFor(path: Path, build: (b: StreamsBuilder) => void): { topology: Topology; processed: { count: number } } {
  const b = new StreamsBuilder();
  build(b);
  const topology = b.build();
  const processed = { count: 0 };
  let steps = 0;
  for (const sub of topology.subtopologies())
    for (const node of sub.nodes) {
      const step = node.kind === 'processor' ? statelessStepOf(node.supplier) : null;
      if (node.kind !== 'processor' || step === null) continue;
      steps++;
      const derived = node.supplier;
      const counting = (): Processor => {
        const processor = derived();
        return { ...processor, process: (r) => (processed.count++, processor.process(r)) };
      };
      node.supplier = path === 'processor' ? counting : Object.assign(counting, { statelessStep: step });
      assert.equal(statelessStepOf(node.supplier), path === 'processor' ? null : step);
    }
  assert.ok(steps > 0, 'the topology has no stateless step');
  return { topology, processed };
}

/** A record as the tests compare them: key, value, timestamp, headers as `k=v` text. */
type Row = [key: string | null, value: string | null, timestamp: number, headers: string];
const row = (r: { key: string | null; value: string | null; timestamp: number; headers: StreamHeaders }): Row => [r.key, r.value, r.timestamp, r.headers.map((h) => `${h.key}=${h.value?.toString()}`).join(',')];

/** Three records whose values have 1, 2 and 0 characters (flatMap on characters then gives 1, 2 and 0 records). */
const INPUT: readonly Row[] = [
  ['a', 'x', 1_000, 'trace=t1'],
  ['b', 'yy', 2_000, ''],
  ['c', '', 3_000, 'trace=t1'],
];

/** Pipes INPUT into `in` through the topology `build` makes (on `path`) and reads `out`. */
function run(path: Path, build: (b: StreamsBuilder) => void): { out: Row[]; processed: number } {
  const { topology, processed } = buildFor(path, build);
  const driver = new TopologyTestDriver(topology);
  const tin = driver.createInputTopic('in', S, S);
  for (const [key, value, timestamp, headers] of INPUT) tin.pipeInput(key, value, timestamp, headers === '' ? [] : H);
  const out = driver.createOutputTopic('out', S, S).readRecordsToList().map(row);
  driver.close();
  return { out, processed: processed.count };
}

const source = (b: StreamsBuilder): KStream<string, string> => b.stream<string, string>('in', { keySerde: S, valueSerde: S });
const toOut = (s: KStream<string, string>): void => s.to('out', { keySerde: S, valueSerde: S });

/** Each operator, what it makes of INPUT at `out`, and the calls its action sees. */
const OPERATORS: { name: string; apply: (s: KStream<string, string>, calls: string[], b: StreamsBuilder) => void; out: Row[]; calls?: string[] }[] = [
  { name: 'filter', apply: (s) => toOut(s.filter((_k, v) => v.length === 1)), out: [['a', 'x', 1_000, 'trace=t1']] },
  { name: 'filterNot', apply: (s) => toOut(s.filterNot((_k, v) => v.length === 1)), out: [['b', 'yy', 2_000, ''], ['c', '', 3_000, 'trace=t1']] },
  {
    name: 'map',
    apply: (s) => toOut(s.map((k, v) => KeyValue.pair(`${v}|${k}`, k.toUpperCase()))),
    out: [['x|a', 'A', 1_000, 'trace=t1'], ['yy|b', 'B', 2_000, ''], ['|c', 'C', 3_000, 'trace=t1']],
  },
  {
    name: 'mapValues',
    apply: (s) => toOut(s.mapValues((v, k) => `${k}=${v}`)),
    out: [['a', 'a=x', 1_000, 'trace=t1'], ['b', 'b=yy', 2_000, ''], ['c', 'c=', 3_000, 'trace=t1']],
  },
  {
    name: 'selectKey',
    apply: (s) => toOut(s.selectKey((k, v) => `${v}/${k}`)),
    out: [['x/a', 'x', 1_000, 'trace=t1'], ['yy/b', 'yy', 2_000, ''], ['/c', '', 3_000, 'trace=t1']],
  },
  {
    name: 'flatMap (1, 2 and 0 results)',
    apply: (s) => toOut(s.flatMap((k, v) => [...v].map((c, i) => KeyValue.pair(`${k}${i}`, c.toUpperCase())))),
    out: [['a0', 'X', 1_000, 'trace=t1'], ['b0', 'Y', 2_000, ''], ['b1', 'Y', 2_000, '']],
  },
  {
    name: 'flatMapValues (1, 2 and 0 results)',
    apply: (s) => toOut(s.flatMapValues((v, k) => [...v].map((c, i) => `${k}${c}${i}`))),
    out: [['a', 'ax0', 1_000, 'trace=t1'], ['b', 'by0', 2_000, ''], ['b', 'by1', 2_000, '']],
  },
  {
    name: 'peek',
    apply: (s, calls) => toOut(s.peek((k, v) => void calls.push(`${k}:${v}`))),
    out: [...INPUT],
    calls: ['a:x', 'b:yy', 'c:'],
  },
  { name: 'foreach', apply: (s, calls) => s.foreach((k, v) => void calls.push(`${k}:${v}`)), out: [], calls: ['a:x', 'b:yy', 'c:'] },
  {
    name: 'merge',
    apply: (s, _calls, b) => toOut(b.stream<string, string>('other', { keySerde: S, valueSerde: S }).merge(s)),
    out: [...INPUT],
  },
  {
    name: "a repartition's key filter (drops null keys)",
    apply: (s) => toOut(s.selectKey((k, v) => (v.length === 2 ? null : k) as string).repartition({ name: 'rekey', keySerde: S, valueSerde: S })),
    out: [['a', 'x', 1_000, 'trace=t1'], ['c', '', 3_000, 'trace=t1']],
  },
];

for (const op of OPERATORS)
  for (const path of PATHS)
    test(`${op.name} on the ${path} path`, () => {
      const calls: string[] = [];
      const { out, processed } = run(path, (b) => op.apply(source(b), calls, b));
      assert.deepEqual(out, op.out);
      assert.deepEqual(calls, op.calls ?? []);
      if (path === 'processor') assert.ok(processed > 0, 'no record went through a derived processor');
      else assert.equal(processed, 0);
    });

for (const path of PATHS)
  test(`split routes each record to the first branch whose predicate holds, the default branch takes the rest, without one they are dropped (${path} path)`, () => {
    const { topology } = buildFor(path, (b) => {
      const stream = source(b);
      const branches = stream
        .split('by-length-')
        .branch((_k, v) => v.length === 1, { name: 'one', chain: (s) => s.mapValues((v) => `one:${v}`) })
        .branch((_k, v) => v.length >= 1, { name: 'some' })
        .defaultBranch({ name: 'none' });
      for (const [name, stream] of branches) stream.to(name, { keySerde: S, valueSerde: S });
      const strict = stream.split('strict-').branch((_k, v) => v === 'yy', { name: 'yy' }).noDefaultBranch();
      for (const [name, stream] of strict) stream.to(name, { keySerde: S, valueSerde: S });
    });
    const driver = new TopologyTestDriver(topology);
    const tin = driver.createInputTopic('in', S, S);
    for (const [key, value, timestamp] of INPUT) tin.pipeInput(key, value, timestamp, H);
    const read = (topic: string): Row[] => driver.createOutputTopic(topic, S, S).readRecordsToList().map(row);
    assert.deepEqual(read('by-length-one'), [['a', 'one:x', 1_000, 'trace=t1']]);
    assert.deepEqual(read('by-length-some'), [['b', 'yy', 2_000, 'trace=t1']]);
    assert.deepEqual(read('by-length-none'), [['c', '', 3_000, 'trace=t1']]);
    assert.deepEqual(read('strict-yy'), [['b', 'yy', 2_000, 'trace=t1']]);
    driver.close();
  });

for (const path of PATHS)
  test(`filter and peek pass on the StreamRecord they are given, mapValues a new one (${path} path)`, () => {
    const forwarded: StreamRecord<unknown, unknown>[] = [];
    const received: StreamRecord<unknown, unknown>[][] = [[], []];
    const first = (): Processor<string, string, string, string> => {
      let context: ProcessorContext<string, string> | null = null;
      return {
        init: (c) => void (context = c),
        process(record) {
          const copy = new StreamRecord(record.key, record.value, record.timestamp, record.headers);
          forwarded.push(copy);
          context?.forward(copy);
        },
      };
    };
    const collect = (into: StreamRecord<unknown, unknown>[]) => (): Processor<string, string, void, void> => ({ process: (r) => void into.push(r) });
    const { topology } = buildFor(path, (b) => {
      const passed = source(b).process(first).filter(() => true).peek(() => {});
      passed.process(collect(received[0] as StreamRecord<unknown, unknown>[]));
      passed.mapValues((v) => v).process(collect(received[1] as StreamRecord<unknown, unknown>[]));
    });
    const driver = new TopologyTestDriver(topology);
    driver.createInputTopic('in', S, S).pipeInput('k', 'v', 5, H);
    driver.close();
    assert.equal(forwarded.length, 1);
    assert.deepEqual(received.map((rs) => rs.length), [1, 1]);
    assert.equal(received[0]?.[0], forwarded[0]);
    assert.notEqual(received[1]?.[0], forwarded[0]);
    assert.deepEqual(row(received[1]?.[0] as StreamRecord<string, string>), ['k', 'v', 5, 'trace=t1']);
  });


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

for (const path of PATHS)
  test(`a step that throws is reported with the name of its node (${path} path)`, () => {
    const { topology } = buildFor(path, (b) =>
      toOut(
        source(b)
          .mapValues((v) => v, 'Harmless')
          .filter(() => {
            throw new Error('bad predicate');
          }, 'Picky'),
      ),
    );
    const driver = new TopologyTestDriver(topology);
    assert.throws(
      () => driver.createInputTopic('in', S, S).pipeInput('k', 'v'),
      (e: { code?: string; message: string }) => e.code === StreamsErrorCode.PROCESSING && /processor 'Picky' failed in process.*bad predicate/.test(e.message),
    );
    driver.close();
  });

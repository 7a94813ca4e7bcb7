/**
 * Deserialization at fetch time (runtime/fetch-deserializers.ts): only
 * source topics whose key and value serdes cannot fail are deserialized by
 * the thread's Consumer; every other topic reaches its task as bytes, and a
 * record of it that does not deserialize still goes to the deserialization
 * handler. A task fed a consumer batch (`processBatch`) takes the decoded
 * values as they are and fires stream-time punctuations after each record.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serdes, StreamRecord, Topology, type ProcessorContext, type RawRecord } from '../../../../src/streams/index.js';
import { FetchDeserializers } from '../../../../src/streams/runtime/fetch-deserializers.js';
import { StreamTask } from '../../../../src/streams/runtime/stream-task.js';
import type { FetchedRecord, SinkRecord } from '../../../../src/streams/runtime/collector.js';
import type { Serde } from '../../../../src/streams/serdes.js';

const S = Serdes.String();
const L = Serdes.Long();
const BYTES = Serdes.ByteArray() as Serde<unknown>;

/** text (String/String) and raw (default serdes: ByteArray) are decoded at fetch; counts (String/Long) is not. */
function topology(): Topology {
  return new Topology()
    .addSource('Text', 'text', { keySerde: S, valueSerde: S })
    .addSource('Raw', 'raw')
    .addSource('Counts', 'counts', { keySerde: S, valueSerde: L })
    .addSink('Out', 'out', { keySerde: S, valueSerde: S }, 'Text')
    .addSink('RawOut', 'raw-out', {}, 'Raw')
    .addSink('CountsOut', 'counts-out', { keySerde: S, valueSerde: L }, 'Counts');
}

const context = (topic: string, isKey: boolean): { topic: string; partition: number; isKey: boolean } => ({ topic, partition: 0, isKey });

test('only topics whose key and value serdes cannot fail are deserialized at fetch time', () => {
  const d = new FetchDeserializers(topology(), (t) => t, BYTES, BYTES);
  assert.equal(d.decodes('text'), true);
  assert.equal(d.decodes('raw'), true, 'ByteArray copies: it cannot fail');
  assert.equal(d.decodes('counts'), false, 'Serdes.Long throws on a value that is not 8 bytes');
  assert.equal(d.decodes('unknown'), false);
  const bytes = Buffer.from('héllo');
  assert.equal(d.key(bytes, context('text', true)), 'héllo');
  assert.equal(d.value(null, context('text', false)), null);
  const copy = d.value(bytes, context('raw', false));
  assert.ok(Buffer.isBuffer(copy) && copy !== bytes && copy.equals(bytes), 'ByteArray hands out a copy');
  assert.equal(d.value(bytes, context('counts', false)), bytes, 'a topic decoded in the task gets the bytes as they are');
  assert.equal(d.key(bytes, context('text', true)), 'héllo', 'asked again after another topic');
});

test('internal topics are matched by their resolved name', () => {
  const t = topology();
  const d = new FetchDeserializers(t, (name) => `app-${name}`, BYTES, BYTES);
  assert.equal(d.decodes('app-text'), true);
  assert.equal(d.decodes('text'), false);
});

function task(records: SinkRecord[], errors: string[], decodedAtFetch: (topic: string) => boolean): StreamTask {
  const t = topology();
  const sub = t.subtopologies();
  const nodes = sub.flatMap((s) => s.nodes);
  const built = new StreamTask({
    applicationId: 'app',
    taskId: '0_0',
    partition: 0,
    topology: t,
    nodes,
    stateDir: null,
    defaultKeySerde: BYTES,
    defaultValueSerde: BYTES,
    collector: { send: (r) => void records.push(r), logChange: () => {} },
    wallClockMs: () => 0,
    onDeserializationError: (err, record) => {
      errors.push(`${record.topic}@${record.offset}: ${(err as Error).message}`);
      return 'CONTINUE';
    },
    decodedAtFetch,
  });
  built.init();
  return built;
}

const fetched = (topic: string, offset: number, key: unknown, value: unknown, timestamp = 1000 + offset): FetchedRecord => ({ topic, partition: 0, offset: BigInt(offset), key, value, timestamp, headers: [] });

test('a task takes values decoded at fetch as they are, and still deserializes (and hands failures to the handler) elsewhere', () => {
  const out: SinkRecord[] = [];
  const errors: string[] = [];
  const d = new FetchDeserializers(topology(), (t) => t, BYTES, BYTES);
  const t = task(out, errors, (topic) => d.decodes(topic));
  t.processBatch([fetched('text', 0, 'k', 'already a string'), fetched('text', 1, null, 'v')]);
  // A ByteArray topic decoded at fetch: the task must not copy the value again (ByteArray's deserializer copies).
  const decoded = Buffer.from('decoded at fetch');
  t.processBatch([fetched('raw', 0, null, decoded)]);
  assert.equal(out.pop()?.value, decoded, 'the very Buffer the Consumer handed out');
  const eight = Buffer.alloc(8);
  eight.writeBigInt64BE(5n);
  t.processBatch([fetched('counts', 0, Buffer.from('c'), eight), fetched('counts', 1, Buffer.from('c'), Buffer.from('short'))]);
  assert.deepEqual(
    out.map((r) => [r.topic, r.key, r.value, r.timestamp]),
    [
      ['out', 'k', 'already a string', 1000],
      ['out', null, 'v', 1001],
      ['counts-out', 'c', L.serialize('counts-out', 5n), 1000],
    ],
  );
  assert.equal(errors.length, 1);
  assert.match(errors[0] as string, /^counts@1: /);
  // The test driver's path: bytes, deserialized in the task.
  const raw: RawRecord = { topic: 'text', partition: 0, offset: 2n, key: Buffer.from('k2'), value: Buffer.from('bytes'), timestamp: 1002, headers: [] };
  const before = out.length;
  task(out, errors, () => false).process(raw);
  assert.deepEqual(out.slice(before).map((r) => [r.key, r.value]), [['k2', 'bytes']]);
});

test('processBatch fires stream-time punctuations after each record, as processing one record at a time does', () => {
  const seen: string[] = [];
  const t = new Topology()
    .addSource('In', 'in', { keySerde: S, valueSerde: S })
    .addProcessor('P', () => {
      let ctx: ProcessorContext;
      return {
        init(c) {
          ctx = c;
          c.schedule(10, 'STREAM_TIME', (ts) => void seen.push(`punctuate@${ts}`));
        },
        process: (r: StreamRecord<unknown, unknown>) => void seen.push(`${String(r.value)}@${r.timestamp} streamTime ${ctx.currentStreamTimeMs()}`),
      };
    }, 'In');
  const built = new StreamTask({
    applicationId: 'app',
    taskId: '0_0',
    partition: 0,
    topology: t,
    nodes: t.subtopologies().flatMap((s) => s.nodes),
    stateDir: null,
    defaultKeySerde: BYTES,
    defaultValueSerde: BYTES,
    collector: { send: () => {}, logChange: () => {} },
    wallClockMs: () => 0,
    onDeserializationError: () => 'FAIL',
    decodedAtFetch: () => true,
  });
  built.init();
  built.processBatch([fetched('in', 0, null, 'a', 5), fetched('in', 1, null, 'b', 12), fetched('in', 2, null, 'c', 13)]);
  assert.deepEqual(seen, ['a@5 streamTime 5', 'punctuate@5', 'b@12 streamTime 12', 'punctuate@12', 'c@13 streamTime 13']);
});

/**
 * Every built-in transform and predicate on a table of cases (Kafka's
 * class names and configs), with and without schemas, plus the chain's
 * predicate/negate handling and config errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Schemas, Struct, valueEquals, type Schema } from '../../../src/connect/data/schema.js';
import { sourceRecord, type ConnectRecord, type SinkRecord } from '../../../src/connect/spi.js';
import { TransformationChain, BUILTIN_TRANSFORMS, BUILTIN_PREDICATES } from '../../../src/connect/transforms/index.js';

const T = 'org.apache.kafka.connect.transforms.';
const P = 'org.apache.kafka.connect.transforms.predicates.';

const person = Schemas.struct([
  ['id', Schemas.int32()],
  ['name', Schemas.string()],
  ['ssn', Schemas.string({ optional: true })],
]);
const personStruct = (): Struct => new Struct(person).put('id', 7).put('name', 'ann').put('ssn', '123');

function sink(over: Partial<SinkRecord> = {}): SinkRecord {
  return { topic: 'orders', kafkaPartition: 2, kafkaOffset: 42n, timestampType: 'CreateTime', keySchema: null, key: 'k', valueSchema: null, value: { id: 7, name: 'ann', ssn: '123' }, timestamp: 1_700_000_000_000, headers: [], ...over };
}

function run(type: string, config: Record<string, string>, record: ConnectRecord): ConnectRecord | null {
  const props: Record<string, string> = { transforms: 'x', 'transforms.x.type': type };
  for (const [k, v] of Object.entries(config)) props[`transforms.x.${k}`] = v;
  return TransformationChain.fromConfig(props).apply(record);
}

function structFields(v: unknown): Record<string, unknown> {
  assert.ok(v instanceof Struct, 'a Struct');
  return Object.fromEntries((v.schema.fields ?? []).map((f) => [f.name, v.get(f.name)]));
}

interface Case {
  name: string;
  type: string;
  config: Record<string, string>;
  input: ConnectRecord;
  /** Checks the output (null: the record was dropped). */
  check: (out: ConnectRecord | null) => void;
}

const CASES: Case[] = [
  {
    name: 'InsertField$Value schemaless adds topic, partition, offset, timestamp, static',
    type: `${T}InsertField$Value`,
    config: { 'topic.field': 't', 'partition.field': 'p', 'offset.field': 'o!', 'timestamp.field': 'ts', 'static.field': 's', 'static.value': 'v' },
    input: sink(),
    check: (out) => assert.deepEqual(out?.value, { id: 7, name: 'ann', ssn: '123', t: 'orders', p: 2, o: 42, ts: 1_700_000_000_000, s: 'v' }),
  },
  {
    name: 'InsertField$Value with schema appends optional fields and keeps required ones required',
    type: `${T}InsertField$Value`,
    config: { 'topic.field': 't', 'offset.field': 'o!' },
    input: sink({ valueSchema: person, value: personStruct() }),
    check: (out) => {
      assert.deepEqual(structFields(out?.value), { id: 7, name: 'ann', ssn: '123', t: 'orders', o: 42 });
      assert.deepEqual(out?.valueSchema?.fields?.map((f) => [f.name, f.schema.type, f.schema.optional]).slice(3), [['t', 'string', true], ['o', 'int64', false]]);
    },
  },
  {
    name: 'InsertField$Value passes tombstones',
    type: `${T}InsertField$Value`,
    config: { 'topic.field': 't' },
    input: sink({ value: null }),
    check: (out) => assert.equal(out?.value, null),
  },
  {
    name: 'InsertField$Key inserts into the key',
    type: `${T}InsertField$Key`,
    config: { 'static.field': 'src', 'static.value': 'db' },
    input: sink({ key: { id: 1 } }),
    check: (out) => assert.deepEqual(out?.key, { id: 1, src: 'db' }),
  },
  {
    name: 'ReplaceField$Value include, exclude and renames (schemaless)',
    type: `${T}ReplaceField$Value`,
    config: { include: 'id,name,ssn', exclude: 'ssn', renames: 'name:full_name' },
    input: sink(),
    check: (out) => assert.deepEqual(out?.value, { id: 7, full_name: 'ann' }),
  },
  {
    name: 'ReplaceField$Value with schema (deprecated blacklist name)',
    type: `${T}ReplaceField$Value`,
    config: { blacklist: 'ssn', renames: 'id:person_id' },
    input: sink({ valueSchema: person, value: personStruct() }),
    check: (out) => assert.deepEqual(structFields(out?.value), { person_id: 7, name: 'ann' }),
  },
  {
    name: 'MaskField$Value empties by type',
    type: `${T}MaskField$Value`,
    config: { fields: 'id,ssn' },
    input: sink({ valueSchema: person, value: personStruct() }),
    check: (out) => assert.deepEqual(structFields(out?.value), { id: 0, name: 'ann', ssn: '' }),
  },
  {
    name: 'MaskField$Value with a replacement (schemaless)',
    type: `${T}MaskField$Value`,
    config: { fields: 'ssn', replacement: '***' },
    input: sink(),
    check: (out) => assert.deepEqual(out?.value, { id: 7, name: 'ann', ssn: '***' }),
  },
  {
    name: 'Cast$Value casts fields of a struct and changes the schema',
    type: `${T}Cast$Value`,
    config: { spec: 'id:string,name:string' },
    input: sink({ valueSchema: person, value: personStruct() }),
    check: (out) => {
      assert.deepEqual(structFields(out?.value), { id: '7', name: 'ann', ssn: '123' });
      assert.equal(out?.valueSchema?.fields?.[0]?.schema.type, 'string');
    },
  },
  {
    name: 'Cast$Value casts a whole primitive value (Java narrowing)',
    type: `${T}Cast$Value`,
    config: { spec: 'int8' },
    input: sink({ valueSchema: Schemas.float64(), value: 300.7 }),
    check: (out) => {
      assert.equal(out?.value, 44);
      assert.equal(out?.valueSchema?.type, 'int8');
    },
  },
  {
    name: 'Cast$Value schemaless fields: string to number, number to boolean, float to string',
    type: `${T}Cast$Value`,
    config: { spec: 'a:int32,b:boolean,c:string' },
    input: sink({ value: { a: '12', b: 0, c: 2.5 } }),
    check: (out) => assert.deepEqual(out?.value, { a: 12, b: false, c: '2.5' }),
  },
  {
    name: 'ExtractField$Key takes a field of a struct key',
    type: `${T}ExtractField$Key`,
    config: { field: 'id' },
    input: sink({ keySchema: person, key: personStruct() }),
    check: (out) => {
      assert.equal(out?.key, 7);
      assert.equal(out?.keySchema?.type, 'int32');
    },
  },
  {
    name: 'ExtractField$Value schemaless',
    type: `${T}ExtractField$Value`,
    config: { field: 'name' },
    input: sink(),
    check: (out) => assert.equal(out?.value, 'ann'),
  },
  {
    name: 'HoistField$Value wraps a primitive in a struct',
    type: `${T}HoistField$Value`,
    config: { field: 'line' },
    input: sink({ valueSchema: Schemas.string(), value: 'hello' }),
    check: (out) => {
      assert.deepEqual(structFields(out?.value), { line: 'hello' });
      assert.equal(out?.valueSchema?.fields?.[0]?.name, 'line');
    },
  },
  {
    name: 'HoistField$Key schemaless',
    type: `${T}HoistField$Key`,
    config: { field: 'k' },
    input: sink(),
    check: (out) => assert.deepEqual(out?.key, { k: 'k' }),
  },
  {
    name: 'ValueToKey builds a struct key from value fields',
    type: `${T}ValueToKey`,
    config: { fields: 'id' },
    input: sink({ valueSchema: person, value: personStruct() }),
    check: (out) => {
      assert.deepEqual(structFields(out?.key), { id: 7 });
      assert.deepEqual(out?.keySchema?.fields?.map((f) => f.name), ['id']);
    },
  },
  {
    name: 'ValueToKey schemaless',
    type: `${T}ValueToKey`,
    config: { fields: 'id,name' },
    input: sink(),
    check: (out) => assert.deepEqual(out?.key, { id: 7, name: 'ann' }),
  },
  {
    name: 'TimestampRouter default format',
    type: `${T}TimestampRouter`,
    config: {},
    input: sink(),
    check: (out) => assert.equal(out?.topic, 'orders-20231114'),
  },
  {
    name: 'TimestampRouter custom formats',
    type: `${T}TimestampRouter`,
    config: { 'topic.format': 'x_${timestamp}_${topic}', 'timestamp.format': "yyyy-MM-dd'T'HH:mm" },
    input: sink(),
    check: (out) => assert.equal(out?.topic, 'x_2023-11-14T22:13_orders'),
  },
  {
    name: 'RegexRouter rewrites a matching topic with group references',
    type: `${T}RegexRouter`,
    config: { regex: '(.*)ders', replacement: 'new-$1' },
    input: sink(),
    check: (out) => assert.equal(out?.topic, 'new-or'),
  },
  {
    name: 'RegexRouter leaves a topic that does not match as a whole',
    type: `${T}RegexRouter`,
    config: { regex: 'order', replacement: 'x' },
    input: sink(),
    check: (out) => assert.equal(out?.topic, 'orders'),
  },
  {
    name: 'Filter without a predicate drops everything',
    type: `${T}Filter`,
    config: {},
    input: sink(),
    check: (out) => assert.equal(out, null),
  },
  {
    name: 'Flatten$Value schemaless nested maps',
    type: `${T}Flatten$Value`,
    config: { delimiter: '_' },
    input: sink({ value: { a: { b: 1, c: { d: 2 } }, e: [1] } }),
    check: (out) => assert.deepEqual(out?.value, { a_b: 1, a_c_d: 2, e: [1] }),
  },
  {
    name: 'Flatten$Value with schema: nested structs, optional parents make optional fields',
    type: `${T}Flatten$Value`,
    config: {},
    input: (() => {
      const inner = Schemas.struct([['x', Schemas.int32()]], { optional: true });
      const outer = Schemas.struct([['id', Schemas.int32()], ['inner', inner]]);
      return sink({ valueSchema: outer, value: new Struct(outer).put('id', 1).put('inner', new Struct(inner).put('x', 5)) });
    })(),
    check: (out) => {
      assert.deepEqual(structFields(out?.value), { id: 1, 'inner.x': 5 });
      assert.equal(out?.valueSchema?.fields?.[1]?.schema.optional, true);
    },
  },
  {
    name: 'HeaderFrom$Value copy keeps the field and adds a header',
    type: `${T}HeaderFrom$Value`,
    config: { fields: 'id', headers: 'person-id', operation: 'copy' },
    input: sink({ valueSchema: person, value: personStruct() }),
    check: (out) => {
      assert.deepEqual(out?.headers.map((h) => [h.key, h.value, h.schema?.type]), [['person-id', 7, 'int32']]);
      assert.equal(structFields(out?.value).id, 7);
    },
  },
  {
    name: 'HeaderFrom$Value move removes the field (schemaless)',
    type: `${T}HeaderFrom$Value`,
    config: { fields: 'ssn', headers: 'ssn', operation: 'move' },
    input: sink(),
    check: (out) => {
      assert.deepEqual(out?.value, { id: 7, name: 'ann' });
      assert.deepEqual(out?.headers.map((h) => [h.key, h.value]), [['ssn', '123']]);
    },
  },
  {
    name: 'InsertHeader types its literal',
    type: `${T}InsertHeader`,
    config: { header: 'version', 'value.literal': '42' },
    input: sink(),
    check: (out) => assert.deepEqual(out?.headers.map((h) => [h.key, h.value, h.schema?.type]), [['version', 42, 'int8']]),
  },
  {
    name: 'DropHeaders removes every header with the names',
    type: `${T}DropHeaders`,
    config: { headers: 'a,b' },
    input: sink({ headers: [{ key: 'a', schema: null, value: 1 }, { key: 'c', schema: null, value: 2 }, { key: 'b', schema: null, value: 3 }, { key: 'a', schema: null, value: 4 }] }),
    check: (out) => assert.deepEqual(out?.headers.map((h) => h.key), ['c']),
  },
];

for (const c of CASES) {
  test(`transform: ${c.name}`, () => c.check(run(c.type, c.config, c.input)));
}

test('every Kafka transform name has a $Key/$Value or single class registered', () => {
  const names = ['InsertField$Key', 'InsertField$Value', 'ReplaceField$Key', 'ReplaceField$Value', 'MaskField$Key', 'MaskField$Value', 'Cast$Key', 'Cast$Value', 'ExtractField$Key', 'ExtractField$Value', 'HoistField$Key', 'HoistField$Value', 'ValueToKey', 'TimestampRouter', 'RegexRouter', 'Filter', 'Flatten$Key', 'Flatten$Value', 'HeaderFrom$Key', 'HeaderFrom$Value', 'InsertHeader', 'DropHeaders'];
  for (const n of names) assert.ok(BUILTIN_TRANSFORMS.has(T + n), n);
  for (const n of ['TopicNameMatches', 'HasHeaderKey', 'RecordIsTombstone']) assert.ok(BUILTIN_PREDICATES.has(P + n), n);
});

function filterChain(predicateType: string, predicateConfig: Record<string, string>, negate: boolean): TransformationChain {
  const props: Record<string, string> = {
    transforms: 'f',
    'transforms.f.type': `${T}Filter`,
    'transforms.f.predicate': 'p',
    'transforms.f.negate': String(negate),
    predicates: 'p',
    'predicates.p.type': predicateType,
  };
  for (const [k, v] of Object.entries(predicateConfig)) props[`predicates.p.${k}`] = v;
  return TransformationChain.fromConfig(props);
}

test('Filter with predicates: TopicNameMatches, HasHeaderKey, RecordIsTombstone, and negate', () => {
  const topic = filterChain(`${P}TopicNameMatches`, { pattern: 'ord.*' }, false);
  assert.equal(topic.apply(sink()), null);
  assert.notEqual(topic.apply(sink({ topic: 'other' })), null);
  const negated = filterChain(`${P}TopicNameMatches`, { pattern: 'ord.*' }, true);
  assert.notEqual(negated.apply(sink()), null);
  assert.equal(negated.apply(sink({ topic: 'other' })), null);
  const header = filterChain('HasHeaderKey', { name: 'skip' }, false);
  assert.equal(header.apply(sink({ headers: [{ key: 'skip', schema: null, value: null }] })), null);
  assert.notEqual(header.apply(sink()), null);
  const tomb = filterChain(`${P}RecordIsTombstone`, {}, false);
  assert.equal(tomb.apply(sink({ value: null })), null);
  assert.notEqual(tomb.apply(sink()), null);
});

test('a chain applies transforms in order and keeps source record fields', () => {
  const chain = TransformationChain.fromConfig({
    transforms: 'hoist,route',
    'transforms.hoist.type': `${T}HoistField$Value`,
    'transforms.hoist.field': 'line',
    'transforms.route.type': `${T}RegexRouter`,
    'transforms.route.regex': 'raw-(.*)',
    'transforms.route.replacement': '$1',
  });
  const out = chain.apply(sourceRecord({ topic: 'raw-logs', value: 'x', sourcePartition: { f: 'a' }, sourceOffset: { position: 3 } }));
  assert.equal(out?.topic, 'logs');
  assert.deepEqual(out?.value, { line: 'x' });
  assert.deepEqual(out?.sourceOffset, { position: 3 });
});

test('config errors name the key: unknown type, missing required config, bad spec, unknown predicate', () => {
  assert.throws(() => TransformationChain.fromConfig({ transforms: 'x', 'transforms.x.type': 'com.example.Nope' }), /transforms\.x\.type: Class com\.example\.Nope could not be found/);
  assert.throws(() => TransformationChain.fromConfig({ transforms: 'x', 'transforms.x.type': `${T}ExtractField$Value` }), /Missing required configuration "field"/);
  assert.throws(() => TransformationChain.fromConfig({ transforms: 'x', 'transforms.x.type': `${T}Cast$Value`, 'transforms.x.spec': 'a:uuid' }), /Invalid cast mapping/);
  assert.throws(() => TransformationChain.fromConfig({ transforms: 'x', 'transforms.x.type': `${T}Filter`, 'transforms.x.predicate': 'nope' }), /not a configured predicate/);
  assert.throws(() => run(`${T}HeaderFrom$Value`, { fields: 'a,b', headers: 'a', operation: 'copy' }, sink()), /same number of elements/);
  assert.throws(() => run(`${T}ExtractField$Value`, { field: 'x' }, sink({ value: 'plain' })), /Only Map objects supported/);
});

test('struct values stay valid against their new schemas', () => {
  const out = run(`${T}ReplaceField$Value`, { exclude: 'name' }, sink({ valueSchema: person, value: personStruct() }));
  assert.ok(out?.value instanceof Struct);
  out.value.validate();
  const schema: Schema | null = out.valueSchema;
  assert.ok(valueEquals(schema?.fields?.map((f) => f.name), ['id', 'ssn']));
});

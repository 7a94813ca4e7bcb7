/**
 * Converters: JsonConverter bytes equal Kafka's JsonConverter (Jackson)
 * output on fixtures, and read back to the same schema and value;
 * StringConverter and ByteArrayConverter as Kafka's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Schemas, Struct, schemaEquals, valueEquals, type Schema } from '../../../src/connect/data/schema.js';
import { ByteArrayConverter, JsonConverter, StringConverter } from '../../../src/connect/converters/index.js';
import { javaDouble, javaFloat } from '../../../src/connect/converters/java-json.js';

const user = Schemas.struct(
  [
    ['id', Schemas.int32()],
    ['name', Schemas.string({ optional: true })],
  ],
  { name: 'com.example.User', version: 1 },
);

// Bytes as Kafka 3.x's JsonConverter writes them (schemas.enable=true).
// Checked against Kafka's source: JsonConverter.asJsonSchema writes "type",
// then "items" / "keys" and "values" / "fields" (each field's schema, then
// its "field" name), then "optional", "name", "version", "doc",
// "parameters", "default"; JsonSchema.envelope writes "schema" before
// "payload"; the values are JsonConverterTest's where it has one (12.34 as a
// float, 4398046511104, "dGVzdC1zdHJpbmc=", the Decimal "AJw=" with scale 2,
// int-keyed maps as arrays of pairs).
const FIXTURES: { name: string; schema: Schema; value: unknown; json: string }[] = [
  { name: 'boolean', schema: Schemas.boolean(), value: true, json: '{"schema":{"type":"boolean","optional":false},"payload":true}' },
  { name: 'optional null', schema: Schemas.int32({ optional: true }), value: null, json: '{"schema":{"type":"int32","optional":true},"payload":null}' },
  { name: 'int64', schema: Schemas.int64(), value: 4398046511104, json: '{"schema":{"type":"int64","optional":false},"payload":4398046511104}' },
  { name: 'double whole', schema: Schemas.float64(), value: 12, json: '{"schema":{"type":"double","optional":false},"payload":12.0}' },
  { name: 'float', schema: Schemas.float32(), value: Math.fround(12.34), json: '{"schema":{"type":"float","optional":false},"payload":12.34}' },
  { name: 'double large', schema: Schemas.float64(), value: 1e10, json: '{"schema":{"type":"double","optional":false},"payload":1.0E10}' },
  { name: 'double small', schema: Schemas.float64(), value: 0.00015, json: '{"schema":{"type":"double","optional":false},"payload":1.5E-4}' },
  { name: 'bytes', schema: Schemas.bytes(), value: Buffer.from('test-string'), json: '{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}' },
  { name: 'string escapes', schema: Schemas.string(), value: 'a\u0001"\\/é\n', json: '{"schema":{"type":"string","optional":false},"payload":"a\\u0001\\"\\\\/é\\n"}' },
  {
    name: 'struct',
    schema: user,
    value: new Struct(user).put('id', 1).put('name', 'a'),
    json: '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"field":"name"}],"optional":false,"name":"com.example.User","version":1},"payload":{"id":1,"name":"a"}}',
  },
  { name: 'array', schema: Schemas.array(Schemas.int32()), value: [1, 2, 3], json: '{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}' },
  {
    name: 'map with string keys',
    schema: Schemas.map(Schemas.string(), Schemas.int32()),
    value: { a: 1 },
    json: '{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":{"a":1}}',
  },
  {
    name: 'map with int keys',
    schema: Schemas.map(Schemas.int32(), Schemas.int32()),
    value: new Map([
      [1, 12],
      [2, 15],
    ]),
    json: '{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":[[1,12],[2,15]]}',
  },
  {
    name: 'timestamp logical type',
    schema: Schemas.int64({ name: 'org.apache.kafka.connect.data.Timestamp', version: 1 }),
    value: 1234,
    json: '{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":1234}',
  },
  {
    name: 'boolean with name, version, doc and parameters (JsonConverterTest)',
    schema: Schemas.boolean({ name: 'bool', version: 3, doc: 'the documentation', parameters: { foo: 'bar' } }),
    value: true,
    json: '{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,"doc":"the documentation","parameters":{"foo":"bar"}},"payload":true}',
  },
  {
    name: 'Decimal in the BASE64 format (its unscaled two\'s complement bytes)',
    schema: Schemas.bytes({ name: 'org.apache.kafka.connect.data.Decimal', version: 1, parameters: { scale: '2' } }),
    value: Buffer.from([0x00, 0x9c]),
    json: '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"AJw="}',
  },
  {
    name: 'default and doc',
    schema: Schemas.int32({ optional: true, doc: 'd', parameters: { p: 'v' }, defaultValue: 5 }),
    value: 7,
    json: '{"schema":{"type":"int32","optional":true,"doc":"d","parameters":{"p":"v"},"default":5},"payload":7}',
  },
];

function converter(props: Record<string, string> = {}): JsonConverter {
  const c = new JsonConverter();
  c.configure(props, false);
  return c;
}

for (const f of FIXTURES) {
  test(`JsonConverter writes Kafka's bytes: ${f.name}`, () => {
    const bytes = converter().fromConnectData('t', f.schema, f.value);
    assert.equal(bytes?.toString('utf8'), f.json);
  });
  test(`JsonConverter reads Kafka's bytes back: ${f.name}`, () => {
    const back = converter().toConnectData('t', Buffer.from(f.json));
    assert.ok(schemaEquals(back.schema, f.schema), `schema of ${f.name}`);
    assert.ok(valueEquals(back.value, f.value), `value of ${f.name}: ${String(back.value)}`);
  });
}

test('JsonConverter: a null with its default writes the default (replace.null.with.default)', () => {
  const schema = Schemas.int32({ optional: true, defaultValue: 5 });
  assert.equal(converter().fromConnectData('t', schema, null)?.toString(), '{"schema":{"type":"int32","optional":true,"default":5},"payload":5}');
  assert.equal(converter({ 'replace.null.with.default': 'false' }).fromConnectData('t', schema, null)?.toString(), '{"schema":{"type":"int32","optional":true,"default":5},"payload":null}');
});

test('JsonConverter without schemas: bare payload, schemaless values, null is a tombstone', () => {
  const c = converter({ 'schemas.enable': 'false' });
  assert.equal(c.fromConnectData('t', null, { a: 1, b: [true, null], c: 1.5 })?.toString(), '{"a":1,"b":[true,null],"c":1.5}');
  assert.equal(c.fromConnectData('t', null, null), null);
  assert.deepEqual(c.toConnectData('t', Buffer.from('{"a":1}')), { schema: null, value: { a: 1 } });
  assert.equal(converter().fromConnectData('t', null, { a: 1 })?.toString(), '{"schema":null,"payload":{"a":1}}');
  assert.deepEqual(converter().toConnectData('t', null), { schema: null, value: null });
});

test('JsonConverter with schemas rejects plain JSON, bad types and bad JSON', () => {
  assert.throws(() => converter().toConnectData('t', Buffer.from('{"a":1}')), /requires "schema" and "payload" fields/);
  assert.throws(() => converter().toConnectData('t', Buffer.from('{"schema":{"type":"int32"},"payload":"x"}')), /Invalid type for INT32/);
  assert.throws(() => converter().toConnectData('t', Buffer.from('{nope')), /serialization error/);
  assert.throws(() => converter().toConnectData('t', Buffer.from('{"schema":{"type":"nope"},"payload":1}')), /Unknown schema type/);
  assert.throws(() => converter().fromConnectData('t', Schemas.int32(), null), /null value for field that is required/);
});

test('Java number formatting matches Double.toString and Float.toString', () => {
  const doubles: [number, string][] = [
    [0, '0.0'],
    [-0, '-0.0'],
    [1, '1.0'],
    [0.1, '0.1'],
    [123456.789, '123456.789'],
    [1e7, '1.0E7'],
    [9999999, '9999999.0'],
    [0.001, '0.001'],
    [0.0001, '1.0E-4'],
    [-2.5e-10, '-2.5E-10'],
    [1.7976931348623157e308, '1.7976931348623157E308'],
  ];
  for (const [x, s] of doubles) assert.equal(javaDouble(x), s, String(x));
  const floats: [number, string][] = [
    [0.1, '0.1'],
    [3.14159, '3.14159'],
    [16777216, '1.6777216E7'],
    [1 / 3, '0.33333334'],
  ];
  for (const [x, s] of floats) assert.equal(javaFloat(x), s, String(x));
});

test('StringConverter and ByteArrayConverter', () => {
  const s = new StringConverter();
  s.configure({}, false);
  assert.equal(s.fromConnectData('t', null, 'héllo')?.toString('utf8'), 'héllo');
  assert.equal(s.fromConnectData('t', null, 42)?.toString('utf8'), '42');
  assert.equal(s.fromConnectData('t', null, null), null);
  assert.deepEqual(s.toConnectData('t', Buffer.from('x')).value, 'x');
  assert.equal(s.toConnectData('t', Buffer.from('x')).schema?.type, 'string');
  const b = new ByteArrayConverter();
  b.configure();
  assert.deepEqual(b.fromConnectData('t', Schemas.bytes(), Buffer.from([1, 2])), Buffer.from([1, 2]));
  assert.throws(() => b.fromConnectData('t', Schemas.string(), 'x'), /Invalid schema type/);
  assert.deepEqual(b.toConnectData('t', Buffer.from([3])).value, Buffer.from([3]));
});

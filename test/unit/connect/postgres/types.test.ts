/**
 * PostgreSQL text values to Connect values and back: Kafka's Decimal bytes
 * (two's complement, Java BigInteger.toByteArray), dates, times and
 * timestamps with zones, the JDBC and Debezium flavours of the schemas, the
 * connection URL forms, and the sink's parameters for logical types.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConnectionUrl } from '../../../../src/connect/postgres/connection.js';
import { sqlParam, sqlType } from '../../../../src/connect/postgres/sink-rows.js';
import { columnSchema, dateDays, decimalBytes, decimalText, decodeText, Oid, timeMicros, timestampMicros } from '../../../../src/connect/postgres/types.js';
import { microsText } from '../../../../src/connect/postgres/table-querier.js';

test('Decimal bytes match Java BigInteger.toByteArray and read back', () => {
  const cases: [string, number, string][] = [
    ['0', 2, '00'],
    ['1.27', 2, '7f'],
    ['1.28', 2, '0080'],
    ['-1.28', 2, '80'],
    ['-1.29', 2, 'ff7f'],
    ['12.34', 2, '04d2'],
    ['-0.5', 2, 'ce'],
    ['123456789012345678901234567890', 0, '018ee90ff6c373e0ee4e3f0ad2'],
  ];
  for (const [text, scale, bytes] of cases) {
    assert.equal(decimalBytes(text, scale).toString('hex'), bytes, text);
    const back = decimalText(Buffer.from(bytes, 'hex'), scale);
    assert.equal(Number(back), Number(text), text);
  }
  assert.equal(decimalText(Buffer.from('ce', 'hex'), 2), '-0.50');
  assert.throws(() => decimalBytes('1.234', 2), /more than 2 decimals/);
  assert.equal(decimalBytes('1.230', 2).toString('hex'), '7b');
});

test('dates, times and timestamps', () => {
  assert.equal(dateDays('1970-01-01'), 0);
  assert.equal(dateDays('1969-12-31'), -1);
  assert.equal(dateDays('2024-02-29'), 19782);
  assert.equal(timeMicros('13:14:15.5'), (13 * 3600 + 14 * 60 + 15) * 1e6 + 500_000);
  assert.equal(timestampMicros('1970-01-01 00:00:01.000001'), 1_000_001n);
  assert.equal(timestampMicros('2024-01-01 10:00:00+02'), BigInt(Date.UTC(2024, 0, 1, 8)) * 1000n);
  assert.equal(timestampMicros('2024-01-01 10:00:00-03:30'), BigInt(Date.UTC(2024, 0, 1, 13, 30)) * 1000n);
  assert.equal(microsText(1_000_001n), '1970-01-01 00:00:01.000001');
  assert.equal(microsText(-1n), '1969-12-31 23:59:59.999999');
  assert.throws(() => timestampMicros('infinity'), /cannot read timestamp/);
});

test('column schemas and values in the JDBC and Debezium flavours', () => {
  const ts = '2024-03-01 12:00:00.123456';
  const jdbc = columnSchema(Oid.timestamp, -1, true, 'jdbc');
  assert.deepEqual([jdbc.type, jdbc.name], ['int64', 'org.apache.kafka.connect.data.Timestamp']);
  assert.equal(decodeText(jdbc, ts, Oid.timestamp), Date.UTC(2024, 2, 1, 12, 0, 0, 123));
  const dbz = columnSchema(Oid.timestamp, -1, true, 'debezium');
  assert.equal(decodeText(dbz, ts, Oid.timestamp), Date.UTC(2024, 2, 1, 12) * 1000 + 123456);
  const zoned = columnSchema(Oid.timestamptz, -1, true, 'debezium');
  assert.deepEqual([zoned.type, zoned.name], ['string', 'io.debezium.time.ZonedTimestamp']);
  assert.equal(decodeText(zoned, '2024-03-01 12:00:00.5+00', Oid.timestamptz), '2024-03-01T12:00:00.500Z');
  const numeric = columnSchema(Oid.numeric, (10 << 16) + 3 + 4, false, 'jdbc');
  assert.deepEqual([numeric.name, numeric.parameters, numeric.optional], ['org.apache.kafka.connect.data.Decimal', { scale: '3' }, false]);
  assert.equal(columnSchema(Oid.numeric, -1, true, 'jdbc').type, 'string');
  assert.equal(decodeText(columnSchema(Oid.bytea, -1, true, 'jdbc'), '\\x00ff', Oid.bytea)?.toString(), Buffer.from([0, 255]).toString());
  assert.equal(decodeText(columnSchema(Oid.bool, -1, true, 'jdbc'), 'f', Oid.bool), false);
  assert.equal(decodeText(columnSchema(Oid.int8, -1, true, 'jdbc'), null, Oid.int8), null);
});

test('sink parameters and column types for logical types', () => {
  const dec = columnSchema(Oid.numeric, (10 << 16) + 2 + 4, false, 'jdbc');
  assert.equal(sqlParam({ name: 'd', schema: dec, value: Buffer.from('04d2', 'hex') }), '12.34');
  assert.equal(sqlType({ name: 'd', schema: dec, value: null }), 'NUMERIC');
  assert.equal(sqlParam({ name: 'd', schema: columnSchema(Oid.date, -1, false, 'jdbc'), value: 19782 }), '2024-02-29');
  assert.equal(sqlParam({ name: 't', schema: columnSchema(Oid.time, -1, false, 'jdbc'), value: 3_723_004 }), '01:02:03.004');
  assert.equal(sqlParam({ name: 'ts', schema: columnSchema(Oid.timestamp, -1, false, 'jdbc'), value: 0 }), '1970-01-01T00:00:00.000Z');
  assert.equal(sqlParam({ name: 'j', schema: null, value: { a: [1, 'x'] } }), '{"a":[1,"x"]}');
  assert.deepEqual([1, 1.5, true, 'x', { a: 1 }].map((value) => sqlType({ name: 'c', schema: null, value })), ['BIGINT', 'DOUBLE PRECISION', 'BOOLEAN', 'TEXT', 'JSONB']);
});

test('connection URLs: JDBC and postgres forms, user/password from the URL or the keys', () => {
  assert.deepEqual(parseConnectionUrl('jdbc:postgresql://db.example:6543/sales?user=u&password=p', null, null), { host: 'db.example', port: 6543, database: 'sales', user: 'u', password: 'p' });
  assert.deepEqual(parseConnectionUrl('postgres://a%40b:s%3Acret@127.0.0.1/x', null, null), { host: '127.0.0.1', port: 5432, database: 'x', user: 'a@b', password: 's:cret' });
  assert.deepEqual(parseConnectionUrl('postgresql://u:p@h:1/d', 'other', 'pw'), { host: 'h', port: 1, database: 'd', user: 'other', password: 'pw' });
  assert.throws(() => parseConnectionUrl('jdbc:mysql://h/d', null, null), /Invalid value jdbc:mysql:\/\/h\/d for configuration connection.url/);
  assert.throws(() => parseConnectionUrl('nonsense', null, null), /expected jdbc:postgresql/);
});

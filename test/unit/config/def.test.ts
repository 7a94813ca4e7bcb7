import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bool, defineConfigs, double, enumOf, int, list, listOf, long, parseConfigs, parseValue, password, str, LONG_MAX, Password,
} from '../../../src/config/def.js';
import { ConfigError } from '../../../src/config/errors.js';
import { closest, editDistance } from '../../../src/config/suggest.js';

const DEFS = defineConfigs({
  'a.int': int({ default: 5, min: 0, max: 10, doc: 'an int' }),
  'a.long': long({ default: -1, min: -1, doc: 'a long' }),
  'a.nullable': long({ default: null, doc: 'nullable' }),
  'a.double': double({ default: 0.5, min: 0, max: 1, doc: 'a double' }),
  'a.bool': bool({ default: false, doc: 'a bool' }),
  'a.str': str({ default: 'x', doc: 'a string' }),
  'a.enum': enumOf({ values: ['CreateTime', 'LogAppendTime'], default: 'CreateTime', doc: 'an enum' }),
  'a.level': enumOf({ values: ['info', 'debug'], default: 'info', caseInsensitive: true, doc: 'ci enum' }),
  'a.list': list({ default: [], doc: 'a list' }),
  'a.policy': listOf({ values: ['delete', 'compact'], default: ['delete'], doc: 'enum list' }),
  'a.secret': password({ default: null, doc: 'a password' }),
  'a.ms': long({ default: 604800000, fallback: [{ key: 'a.minutes', factor: 60000 }, { key: 'a.hours', factor: 3600000 }], doc: 'ms' }),
  'a.minutes': int({ default: null, doc: 'minutes' }),
  'a.hours': int({ default: 168, doc: 'hours' }),
});

test('values are typed by their definitions', () => {
  const { values, problems } = parseConfigs(DEFS, {});
  assert.deepEqual(problems, []);
  const n: number = values['a.int'];
  const maybe: number | null = values['a.nullable'];
  const e: 'CreateTime' | 'LogAppendTime' = values['a.enum'];
  const p: readonly ('delete' | 'compact')[] = values['a.policy'];
  const s: Password | null = values['a.secret'];
  assert.equal(n, 5);
  assert.equal(maybe, null);
  assert.equal(e, 'CreateTime');
  assert.deepEqual(p, ['delete']);
  assert.equal(s, null);
});

test('integers: trimmed, signed, range-checked; messages name the key and the expected form', () => {
  assert.deepEqual(parseValue(DEFS['a.int'], ' 7 '), { ok: true, value: 7 });
  assert.deepEqual(parseValue(DEFS['a.int'], '+3'), { ok: true, value: 3 });
  const bad = parseValue(DEFS['a.int'], 'abc');
  assert.equal(bad.ok, false);
  assert.equal(!bad.ok && bad.message, 'a.int: expected an integer in [0, 10], got "abc"');
  for (const raw of ['11', '-1', '1.5', '0x10', '', '1e3', '2147483648']) assert.equal(parseValue(DEFS['a.int'], raw).ok, false, raw);
  const l = parseValue(DEFS['a.long'], 'x');
  assert.equal(!l.ok && l.message, 'a.long: expected an integer >= -1, got "x"');
});

test('longs beyond 2^53-1 clamp to MAX_SAFE_INTEGER; beyond Long.MAX_VALUE they are refused', () => {
  assert.deepEqual(parseValue(DEFS['a.long'], '9223372036854775807'), { ok: true, value: LONG_MAX });
  assert.deepEqual(parseValue(DEFS['a.long'], '9007199254740993'), { ok: true, value: LONG_MAX });
  const over = parseValue(DEFS['a.long'], '9223372036854775808');
  assert.equal(over.ok, false);
  assert.match(!over.ok ? over.message : '', /out of range for a 64-bit long/);
  const int32 = parseValue(DEFS['a.int'], '99999999999');
  assert.match(!int32.ok ? int32.message : '', /out of range for a 32-bit int/);
});

test('doubles, booleans, strings', () => {
  assert.deepEqual(parseValue(DEFS['a.double'], '.25'), { ok: true, value: 0.25 });
  assert.deepEqual(parseValue(DEFS['a.double'], '1e-1'), { ok: true, value: 0.1 });
  for (const raw of ['NaN', 'Infinity', '1.5', '-0.1', 'half']) assert.equal(parseValue(DEFS['a.double'], raw).ok, false, raw);
  assert.deepEqual(parseValue(DEFS['a.bool'], 'TRUE'), { ok: true, value: true });
  assert.deepEqual(parseValue(DEFS['a.bool'], ' false'), { ok: true, value: false });
  const b = parseValue(DEFS['a.bool'], 'yes');
  assert.equal(!b.ok && b.message, 'a.bool: expected true or false, got "yes"');
  assert.deepEqual(parseValue(DEFS['a.str'], '  hello world '), { ok: true, value: 'hello world' });
});

test('enums are case-sensitive like Kafka, with a suggestion; case-insensitive ones normalise', () => {
  const e = parseValue(DEFS['a.enum'], 'createtime');
  assert.equal(!e.ok && e.message, 'a.enum: expected one of CreateTime, LogAppendTime, got "createtime" (did you mean "CreateTime"?)');
  assert.deepEqual(parseValue(DEFS['a.level'], 'DEBUG'), { ok: true, value: 'debug' });
});

test('lists: comma-separated, blanks ignored, empty is [], empty items refused, enum items checked', () => {
  assert.deepEqual(parseValue(DEFS['a.list'], ' a , b,c '), { ok: true, value: ['a', 'b', 'c'] });
  assert.deepEqual(parseValue(DEFS['a.list'], ''), { ok: true, value: [] });
  assert.equal(parseValue(DEFS['a.list'], 'a,,b').ok, false);
  assert.deepEqual(parseValue(DEFS['a.policy'], 'compact, delete'), { ok: true, value: ['compact', 'delete'] });
  const bad = parseValue(DEFS['a.policy'], 'delete,compcat');
  assert.equal(!bad.ok && bad.message, 'a.policy: expected a comma-separated list of delete, compact, got "delete,compcat" (did you mean "compact"?)');
});

test('passwords never appear in messages or JSON', () => {
  const { values } = parseConfigs(DEFS, { 'a.secret': 's3cret' });
  const secret = values['a.secret'];
  assert.ok(secret instanceof Password);
  assert.equal(secret.value, 's3cret');
  assert.equal(String(secret), '[hidden]');
  assert.equal(JSON.stringify({ secret }), '{"secret":"[hidden]"}');
});

test('parseConfigs reports every bad key at once, unknown keys with a suggestion, and ignored keys', () => {
  const r = parseConfigs(DEFS, { 'a.int': 'x', 'a.bool': 'maybe', 'a.lsit': 'q', 'totally.different.thing': '1', 'zk.thing': '1', 'skip.me': '2' }, {
    ignored: { keys: ['skip.me'], prefixes: ['zk.'] },
  });
  assert.deepEqual(r.problems.map((p) => p.key), ['a.int', 'a.bool', 'a.lsit', 'totally.different.thing']);
  assert.equal(r.problems[2]?.message, 'a.lsit: unknown config key; did you mean "a.list"?');
  assert.match(r.problems[3]?.message ?? '', /^totally\.different\.thing: unknown config key; remove it or check the spelling$/);
  assert.deepEqual(r.ignored, ['zk.thing', 'skip.me']);
  const err = new ConfigError('ERR_TRIB_CONFIG_INVALID', r.problems);
  assert.match(err.message, /^Invalid configuration \(4 problems\)/);
  assert.match(err.message, /\n {2}- a\.int: expected/);
});

test('fallbacks: the key itself wins, then the first set fallback, else its own default', () => {
  const get = (raw: Record<string, string>): number => parseConfigs(DEFS, raw).values['a.ms'];
  assert.equal(get({}), 604800000);
  assert.equal(get({ 'a.hours': '1' }), 3600000);
  assert.equal(get({ 'a.hours': '1', 'a.minutes': '2' }), 120000);
  assert.equal(get({ 'a.hours': '1', 'a.minutes': '2', 'a.ms': '5' }), 5);
  assert.equal(get({ 'a.hours': '-1' }), -1);
  assert.equal(parseConfigs(DEFS, { 'a.hours': '1' }).derivedFrom.get('a.ms'), 'a.hours');
  assert.equal(parseConfigs(DEFS, { 'a.hours': '1' }).explicit.has('a.ms'), false);
});

test('edit distance and closest', () => {
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(closest('log.retension.ms', ['log.retention.ms', 'log.retention.bytes']), 'log.retention.ms');
  assert.equal(closest('LOG.DIRS', ['log.dirs']), 'log.dirs');
  assert.equal(closest('zzz', ['log.dirs']), undefined);
});

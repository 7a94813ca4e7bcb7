import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeProperty, parseProperties } from '../../../src/config/properties.js';

const map = (text: string): Record<string, string> => Object.fromEntries(parseProperties(text).entries.map((e) => [e.key, e.value]));

test('separators: =, :, blanks, and blanks around them', () => {
  assert.deepEqual(map('a=1\nb = 2\nc:3\nd : 4\ne 5\nf\t=\t6\n  g=7'), { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7' });
});

test('comments with # and ! (after leading blanks too); blank lines ignored; # inside a value is kept', () => {
  assert.deepEqual(map('# c\n! c\n   # c\n\n\t\na=x#y\n'), { a: 'x#y' });
});

test('a key without a value is the empty string; only the first separator splits', () => {
  assert.deepEqual(map('a\nb=\nc=d=e\nf:g:h'), { a: '', b: '', c: 'd=e', f: 'g:h' });
});

test('line continuations join lines and drop the next line\'s leading blanks', () => {
  assert.deepEqual(map('listeners=PLAINTEXT://:9092,\\\n    CONTROLLER://:9093\nx=1'), { listeners: 'PLAINTEXT://:9092,CONTROLLER://:9093', x: '1' });
  // An even number of backslashes is an escaped backslash, not a continuation.
  assert.deepEqual(map('a=b\\\\\nc=d'), { a: 'b\\', c: 'd' });
  // A continued comment line does not continue.
  assert.deepEqual(map('# comment \\\na=1'), { a: '1' });
  // Continuation at end of file.
  assert.deepEqual(map('a=1\\'), { a: '1' });
});

test('escapes: \\t \\n \\uXXXX, escaped separators in keys, other escaped chars literal', () => {
  assert.deepEqual(map('a\\=b=c\nk\\ ey=v\nt=x\\ty\nu=\\u0041\\u00e9\nq=\\q\\#'), { 'a=b': 'c', 'k ey': 'v', t: 'x\ty', u: 'Aé', q: 'q#' });
});

test('CRLF and CR line endings, BOM, trailing blanks kept in values', () => {
  assert.deepEqual(map('\uFEFFa=1\r\nb=2\rc=3  '), { a: '1', b: '2', c: '3  ' });
});

test('duplicates: the last wins and is reported with its lines; line numbers are 1-based', () => {
  const p = parseProperties('a=1\n# x\nb=2\na=3\n');
  assert.deepEqual(p.entries, [{ key: 'b', value: '2', line: 3 }, { key: 'a', value: '3', line: 4 }]);
  assert.deepEqual(p.duplicates, [{ key: 'a', lines: [1, 4] }]);
});

test('a malformed \\u escape is a problem naming the file and line, not a crash', () => {
  const p = parseProperties('ok=1\nbad=\\u12G4\n', 'server.properties');
  assert.deepEqual(p.entries.map((e) => e.key), ['ok']);
  assert.equal(p.problems.length, 1);
  assert.equal(p.problems[0]?.origin, 'server.properties:2');
  assert.match(p.problems[0]?.message ?? '', /^bad: malformed \\uXXXX escape/);
});

test('escapeProperty round-trips through parseProperties', () => {
  const cases: [string, string][] = [['a=b', ' lead'], ['k:y', 'x\ny'], ['#k', 'a\\b'], ['sp ace', 'tab\there']];
  const text = cases.map(([k, v]) => `${escapeProperty(k, true)}=${escapeProperty(v, false)}`).join('\n');
  assert.deepEqual(map(text), Object.fromEntries(cases));
});

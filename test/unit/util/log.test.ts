import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, formatLogLine } from '../../../src/util/log.js';

test('the pretty log line is "time level msg key=value", with an error stack below', () => {
  const line = formatLogLine(JSON.stringify({ level: 30, time: new Date(2024, 0, 2, 3, 4, 5, 6).getTime(), msg: 'hello there', port: 9092, dir: '/a b', ok: true }));
  assert.equal(line, '03:04:05.006 INFO  hello there port=9092 dir="/a b" ok=true\n');
  const err = formatLogLine(JSON.stringify({ level: 50, time: 0, msg: 'boom', err: { message: 'x', stack: 'Error: x\n    at f' } }));
  assert.match(err, /ERROR boom\n {4}Error: x\n {8}at f\n$/);
  assert.equal(formatLogLine('not json'), 'not json\n');
});

test('createLogger: JSON lines, or pretty lines, at the configured level', () => {
  const lines: string[] = [];
  const json = createLogger('warn', { pretty: false, destination: { write: (s: string) => lines.push(s) } });
  json.info('hidden');
  json.warn({ k: 1 }, 'shown');
  assert.equal(lines.length, 1);
  assert.deepEqual({ ...JSON.parse(lines[0] ?? '{}'), time: 0, pid: 0, hostname: '' }, { level: 40, time: 0, pid: 0, hostname: '', k: 1, msg: 'shown' });
  const pretty: string[] = [];
  createLogger('info', { pretty: true, destination: { write: (s: string) => pretty.push(s) } }).info({ a: 'b' }, 'hi');
  assert.match(pretty[0] ?? '', /^\d\d:\d\d:\d\d\.\d{3} INFO  hi a=b\n$/);
});

test('the pretty line shows the logger\'s component in brackets after the level', () => {
  const line = formatLogLine(JSON.stringify({ level: 40, time: new Date(2024, 0, 2, 3, 4, 5, 6).getTime(), component: 'group', msg: 'member left', groupId: 'g1' }));
  assert.equal(line, '03:04:05.006 WARN  [group] member left groupId=g1\n');
});

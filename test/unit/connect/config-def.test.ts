/**
 * ConfigDef parsing and validation (Kafka's messages), the file offset
 * store's persistence and keys, and plugin.path errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigDef, ConfigException, Validators } from '../../../src/connect/config-def.js';
import { FileOffsetStore, offsetKey } from '../../../src/connect/runtime/offset-store.js';
import { PluginLoadError, Plugins } from '../../../src/connect/plugins.js';
import { validateConnectorConfig } from '../../../src/connect/runtime/connector-config.js';

const def = new ConfigDef()
  .define({ name: 'req', type: 'STRING', importance: 'HIGH', documentation: 'required' })
  .define({ name: 'n', type: 'INT', defaultValue: 5, importance: 'LOW', documentation: 'n', validator: Validators.between(1, 10) })
  .define({ name: 'flag', type: 'BOOLEAN', defaultValue: false, importance: 'LOW', documentation: 'flag' })
  .define({ name: 'list', type: 'LIST', defaultValue: [], importance: 'LOW', documentation: 'list' })
  .define({ name: 'mode', type: 'STRING', defaultValue: 'a', importance: 'LOW', documentation: 'mode', validator: Validators.in('a', 'b'), recommendedValues: ['a', 'b'] })
  .define({ name: 'secret', type: 'PASSWORD', defaultValue: null, importance: 'LOW', documentation: 'secret' });

test('parse: types, defaults, and every problem at once', () => {
  assert.deepEqual(def.parse({ req: 'x', n: ' 7 ', flag: 'TRUE', list: 'a, b', mode: 'b' }), { req: 'x', n: 7, flag: true, list: ['a', 'b'], mode: 'b', secret: null });
  assert.throws(
    () => def.parse({ n: '11', flag: 'yes', mode: 'c' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigException);
      assert.deepEqual(err.problems, [
        'Missing required configuration "req" which has no default value.',
        'Invalid value 11 for configuration n: Value must be no less than 1 and no greater than 10',
        'Invalid value yes for configuration flag: Expected value to be either true or false',
        'Invalid value c for configuration mode: String must be one of: a, b',
      ]);
      return true;
    },
  );
  assert.throws(() => def.parse({ req: 'x', n: '1.5' }), /Not a number of type INT/);
});

test('validate: one value per key, errors attached, passwords hidden, recommended values', () => {
  const values = def.validate({ n: 'zz', secret: 'hunter2' });
  const by = new Map(values.map((v) => [v.name, v]));
  assert.deepEqual(by.get('req')?.errors, ['Missing required configuration "req" which has no default value.']);
  assert.equal(by.get('n')?.value, 'zz');
  assert.equal(by.get('n')?.errors.length, 1);
  assert.equal(by.get('secret')?.value, '[hidden]');
  assert.deepEqual(by.get('mode')?.recommendedValues, ['a', 'b']);
  assert.equal(by.get('mode')?.value, 'a');
  assert.deepEqual(by.get('flag')?.errors, []);
});

test('connector validation covers framework, connector and transform keys', () => {
  const infos = validateConnectorConfig(new Plugins(), {
    name: 'x',
    'connector.class': 'FileStreamSource',
    topic: 'a,b',
    'errors.tolerance': 'some',
    transforms: 't',
    'transforms.t.type': 'org.apache.kafka.connect.transforms.ExtractField$Value',
    'value.converter': 'com.example.Nope',
  });
  const errs = (n: string): string[] => infos.configs.find((c) => c.value.name === n)?.value.errors ?? [];
  assert.match(errs('topic')[0] ?? '', /requires definition of a single topic/);
  assert.match(errs('errors.tolerance')[0] ?? '', /String must be one of \(case insensitive\): none, all/);
  assert.deepEqual(errs('transforms.t.field'), ['Missing required configuration "field" which has no default value.']);
  assert.match(errs('value.converter')[0] ?? '', /Class com.example.Nope could not be found/);
  assert.equal(infos.error_count, 4);
  assert.ok(infos.groups.includes('Transforms: t'));
});

test('file offset store persists atomically and keys partitions canonically', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'connect-offsets-'));
  try {
    const path = join(dir, 'offsets.json');
    const store = new FileOffsetStore(path);
    await store.set('c', [{ partition: { b: 1, a: 'x' }, offset: { position: 10 } }]);
    await store.set('other', [{ partition: { a: 'x' }, offset: { position: 1 } }]);
    assert.equal(offsetKey('c', { a: 'x', b: 1 }), offsetKey('c', { b: 1, a: 'x' }));
    const reopened = new FileOffsetStore(path);
    assert.deepEqual(reopened.get('c', { a: 'x', b: 1 }), { position: 10 });
    assert.deepEqual(reopened.all('c'), [{ partition: { a: 'x', b: 1 }, offset: { position: 10 } }]);
    await reopened.set('c', [{ partition: { a: 'x', b: 1 }, offset: null }]);
    assert.deepEqual(new FileOffsetStore(path).all('c'), []);
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object), ['["other",{"a":"x"}]']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('plugin.path: missing directories and modules without a manifest are errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'connect-plugins-'));
  try {
    await assert.rejects(new Plugins().loadPluginPath(join(dir, 'nope')), PluginLoadError);
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'package.json'), '{"type":"module","main":"index.js"}');
    writeFileSync(join(dir, 'bad', 'index.js'), 'export const nothing = 1;\n');
    await assert.rejects(new Plugins().loadPluginPath(dir), /exports no connectPlugins manifest/);
    const plugins = new Plugins();
    assert.equal(plugins.connectorClass('FileStreamSink')?.className, 'org.apache.kafka.connect.file.FileStreamSinkConnector');
    assert.equal(plugins.connectorClass('FileStreamSinkConnector')?.className, 'org.apache.kafka.connect.file.FileStreamSinkConnector');
    assert.equal(plugins.connectorClass('Nope'), undefined);
    assert.ok(plugins.converterClass('JsonConverter') !== undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

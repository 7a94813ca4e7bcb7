import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MemoryFileSystem } from '../../../src/storage/index.js';
import { SeededRandom } from '../../../src/util/random.js';
import {
  MetaPropertiesError,
  ensureMetaProperties,
  formatMetaProperties,
  parseMetaProperties,
  readMetaProperties,
} from '../../../src/controller/meta-properties.js';
import { isUuidString, randomUuid } from '../../../src/controller/uuid.js';

const CLUSTER = 'MkU3OEVBNTcwNTJENDM2Qg';

test('first start creates meta.properties in Kafka\'s format; later starts read it back', () => {
  const fs = new MemoryFileSystem();
  const created = ensureMetaProperties({ fs, dataDir: '/data', nodeId: 1, random: new SeededRandom(9) });
  assert.equal(created.created, true);
  assert.ok(isUuidString(created.properties.clusterId));
  assert.ok(isUuidString(created.properties.directoryId));
  const text = fs.readFile(join('/data', 'meta.properties')).toString('utf8');
  assert.match(text, /^version=1$/m);
  assert.match(text, /^node\.id=1$/m);
  assert.match(text, new RegExp(`^cluster\\.id=${created.properties.clusterId}$`, 'm'));
  assert.match(text, /^directory\.id=[A-Za-z0-9_-]{22}$/m);
  const again = ensureMetaProperties({ fs, dataDir: '/data', nodeId: 1, random: new SeededRandom(10) });
  assert.deepEqual(again, { properties: created.properties, created: false });
  assert.deepEqual(readMetaProperties(fs, '/data'), created.properties);
});

test('a given cluster id is used, and checked on later starts', () => {
  const fs = new MemoryFileSystem();
  const { properties } = ensureMetaProperties({ fs, dataDir: '/d', nodeId: 3, clusterId: CLUSTER, random: new SeededRandom(1) });
  assert.equal(properties.clusterId, CLUSTER);
  assert.throws(
    () => ensureMetaProperties({ fs, dataDir: '/d', nodeId: 3, clusterId: 'AAAAAAAAAAAAAAAAAAAAAg', random: new SeededRandom(1) }),
    (e: unknown) => e instanceof MetaPropertiesError && e.code === 'ERR_TRIB_META_PROPERTIES_CLUSTER_ID_MISMATCH' && e.message.includes(CLUSTER),
  );
  assert.throws(() => ensureMetaProperties({ fs: new MemoryFileSystem(), dataDir: '/x', nodeId: 1, clusterId: 'short', random: new SeededRandom(1) }), MetaPropertiesError);
});

test('a node.id mismatch says which node owns the directory and what to change', () => {
  const fs = new MemoryFileSystem();
  ensureMetaProperties({ fs, dataDir: '/data', nodeId: 2, random: new SeededRandom(1) });
  assert.throws(
    () => ensureMetaProperties({ fs, dataDir: '/data', nodeId: 1, random: new SeededRandom(1) }),
    (e: unknown) =>
      e instanceof MetaPropertiesError &&
      e.code === 'ERR_TRIB_META_PROPERTIES_NODE_ID_MISMATCH' &&
      /belongs to node 2/.test(e.message) &&
      /node\.id=1/.test(e.message) &&
      /log\.dirs/.test(e.message),
  );
});

test('a damaged file is refused with the reason', () => {
  const cases: [string, RegExp][] = [
    ['version=0\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\nnode.id=1\ndirectory.id=MkU3OEVBNTcwNTJENDM2Qg\n', /version=0/],
    ['version=1\nnode.id=1\ndirectory.id=MkU3OEVBNTcwNTJENDM2Qg\n', /cluster\.id=\(missing\)/],
    ['version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\nnode.id=-1\ndirectory.id=MkU3OEVBNTcwNTJENDM2Qg\n', /node\.id=-1/],
    ['version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\nnode.id=1\n', /directory\.id/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseMetaProperties(text, '/d/meta.properties'), (e: unknown) => e instanceof MetaPropertiesError && e.code === 'ERR_TRIB_META_PROPERTIES_INVALID' && message.test(e.message));
  }
});

test('format and parse round-trip; Kafka-written files with comments parse', () => {
  const p = { version: 1 as const, clusterId: CLUSTER, nodeId: 7, directoryId: 'AAAAAAAAAAAAAAAAAAAAAg' };
  assert.deepEqual(parseMetaProperties(formatMetaProperties(p), 'x'), p);
  const kafka = `#\n#Tue Nov 29 15:59:00 UTC 2025\nnode.id=7\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAg\nversion=1\ncluster.id=${CLUSTER}\n`;
  assert.deepEqual(parseMetaProperties(kafka, 'x'), p);
});

test('a used directory that lost meta.properties is refused', () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/data/__cluster_metadata-0');
  assert.throws(
    () => ensureMetaProperties({ fs, dataDir: '/data', nodeId: 1, random: new SeededRandom(1) }),
    (e: unknown) => e instanceof MetaPropertiesError && e.code === 'ERR_TRIB_META_PROPERTIES_MISSING',
  );
});

test('random uuids are version 4, never reserved, never start with "-", and follow the seed', () => {
  const r1 = new SeededRandom(5);
  const r2 = new SeededRandom(5);
  for (let i = 0; i < 500; i++) {
    const id = randomUuid(r1);
    assert.equal(id, randomUuid(r2));
    assert.ok(isUuidString(id));
    assert.ok(!id.startsWith('-'));
    const bytes = Buffer.from(id, 'base64url');
    assert.equal((bytes[6] as number) >> 4, 4);
  }
});

// The start-up bundle's chunks run in vm.Scripts with a V8 code cache beside each (src/cli/bundle-loader.ts):
// here on small chunks in a temporary folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleLoader, CHUNK_WRAPPER_HEAD, CHUNK_WRAPPER_TAIL, CODE_CACHE_SUFFIX } from '../../../src/cli/bundle-loader.js';

const ENTRY = `${CHUNK_WRAPPER_HEAD}'use strict';
const shared = require('./shared.cjs');
const { join } = require('node:path');
exports.answer = () => shared.twice(21);
exports.joined = join('a', 'b');
exports.file = __filename;
exports.loadCommand = () => importModule('./command.mjs');${CHUNK_WRAPPER_TAIL}`;
const SHARED = `${CHUNK_WRAPPER_HEAD}'use strict';
exports.loads = (exports.loads ?? 0) + 1;
exports.twice = (n) => n * 2;${CHUNK_WRAPPER_TAIL}`;

function withChunks(fn: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trib-bundle-loader-'));
    try {
      writeFileSync(join(dir, 'start.cjs'), ENTRY);
      writeFileSync(join(dir, 'shared.cjs'), SHARED);
      writeFileSync(join(dir, 'command.mjs'), 'export const name = "command";\n');
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

interface EntryExports {
  answer(): number;
  joined: string;
  file: string;
  loadCommand(): Promise<{ name: string }>;
}

test('a chunk runs with its own require (chunks once each, then Node\'s), __filename and importModule', withChunks(async (dir) => {
  const loader = new BundleLoader();
  const entry = loader.load(join(dir, 'start.cjs')) as EntryExports;
  assert.equal(entry.answer(), 42);
  assert.equal(entry.joined, join('a', 'b'));
  assert.equal(entry.file, join(dir, 'start.cjs'));
  assert.equal((await entry.loadCommand()).name, 'command');
  const shared = loader.load(join(dir, 'shared.cjs')) as { loads: number };
  assert.equal(shared.loads, 1, 'a chunk required twice runs once');
  writeFileSync(join(dir, 'plain.cjs'), "'use strict';\nexports.a = 1;\n");
  assert.throws(() => loader.load(join(dir, 'plain.cjs')), /not a chunk of the start-up bundle/);
}));

test('saveCodeCaches writes a cache per chunk once; the next load uses it and writes none', withChunks((dir) => {
  const first = new BundleLoader();
  (first.load(join(dir, 'start.cjs')) as EntryExports).answer();
  assert.equal(first.saveCodeCaches(), 2);
  const cache = readFileSync(join(dir, 'start.cjs') + CODE_CACHE_SUFFIX);
  const header = JSON.parse(cache.toString('utf8', 0, cache.indexOf(0x0a))) as { size: number; mtimeMs: number; node: string };
  const { size, mtimeMs } = statSync(join(dir, 'start.cjs'));
  assert.deepEqual(header, { size, mtimeMs, node: process.version, arch: process.arch });
  assert.equal(first.saveCodeCaches(), 2, 'the same loader writes again only if asked: its chunks still had no valid cache when loaded');
  const second = new BundleLoader();
  assert.equal((second.load(join(dir, 'start.cjs')) as EntryExports).answer(), 42);
  assert.equal(second.saveCodeCaches(), 0, 'valid caches are not rewritten');
}));

test('a cache made for another file (size or mtime in its header) or that V8 rejects is ignored, then rewritten', withChunks((dir) => {
  const entry = join(dir, 'start.cjs');
  new BundleLoader().load(entry);
  const writer = new BundleLoader();
  writer.load(entry);
  writer.saveCodeCaches();
  // Same length, another content and mtime: only the header tells them apart (V8 checks the length alone).
  writeFileSync(entry, ENTRY.replace('21', '20'));
  const later = new Date(statSync(entry).mtimeMs + 5_000);
  utimesSync(entry, later, later);
  const changed = new BundleLoader();
  assert.equal((changed.load(entry) as EntryExports).answer(), 40, 'the new source runs, not the cached code');
  assert.equal(changed.saveCodeCaches(), 1, 'only the changed chunk gets a new cache');
  // A right header but data V8 cannot use. (A new source: V8 would find one compiled before in this process's own cache.)
  writeFileSync(entry, ENTRY.replace('21', '19'));
  const { size, mtimeMs } = statSync(entry);
  const header = JSON.stringify({ size, mtimeMs, node: process.version, arch: process.arch });
  writeFileSync(entry + CODE_CACHE_SUFFIX, Buffer.concat([Buffer.from(`${header}\n`), Buffer.alloc(64, 7)]));
  const rejected = new BundleLoader();
  assert.equal((rejected.load(entry) as EntryExports).answer(), 38);
  assert.equal(rejected.saveCodeCaches(), 1);
}));

test('a cache that cannot be written (here a folder in its place): none, no error, no temporary file left', withChunks((dir) => {
  const loader = new BundleLoader();
  loader.load(join(dir, 'start.cjs'));
  const target = join(dir, 'start.cjs') + CODE_CACHE_SUFFIX;
  mkdirSync(target);
  assert.equal(loader.saveCodeCaches(), 1, 'shared.cjs is still written');
  assert.equal(statSync(target).isDirectory(), true);
  assert.equal(existsSync(`${target}.${process.pid}.tmp`), false);
}));

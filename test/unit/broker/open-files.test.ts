import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveOpenFilesMax, softOpenFilesLimit } from '../../../src/broker/open-files.js';
import { OPEN_FILES_MAX_DEFAULT, OPEN_FILES_MAX_MIN } from '../../../src/storage/file-handle-pool.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 1048576              files
Max locked memory         8388608              8388608              bytes
`;

test('softOpenFilesLimit reads the soft "Max open files" of /proc/self/limits', () => {
  assert.equal(softOpenFilesLimit(LIMITS), 1024);
  assert.equal(softOpenFilesLimit(LIMITS.replace('1024 ', 'unlimited ')), null);
  assert.equal(softOpenFilesLimit('nothing here'), null);
});

test('log.open.files.max: a configured value wins (at least the pool minimum); 0 takes half the process limit, within [64, 65536]', () => {
  assert.equal(resolveOpenFilesMax(500, 1024), 500);
  assert.equal(resolveOpenFilesMax(1, 1024), OPEN_FILES_MAX_MIN);
  assert.equal(resolveOpenFilesMax(0, 1024), 512);
  assert.equal(resolveOpenFilesMax(0, 100), 64);
  assert.equal(resolveOpenFilesMax(0, 10_000_000), 65_536);
  assert.equal(resolveOpenFilesMax(0, null), OPEN_FILES_MAX_DEFAULT);
});

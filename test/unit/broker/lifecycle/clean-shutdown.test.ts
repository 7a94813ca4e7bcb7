/**
 * The clean-shutdown marker (KIP-966): written with the broker epoch at the
 * end of a clean stop, taken (read and removed) at the next start; absent or
 * damaged means -1 (an unclean restart), and a second take finds nothing.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../../../src/storage/index.js';
import { CLEAN_SHUTDOWN_FILE, takeCleanShutdownEpoch, writeCleanShutdownMarker } from '../../../../src/broker/lifecycle/clean-shutdown.js';

it('a clean stop leaves its epoch for the next start, once', () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/data');
  assert.equal(takeCleanShutdownEpoch(fs, '/data'), -1n, 'first start: no marker');
  writeCleanShutdownMarker(fs, '/data', 12345678901234n);
  assert.equal(takeCleanShutdownEpoch(fs, '/data/'), 12345678901234n);
  assert.equal(fs.exists(`/data/${CLEAN_SHUTDOWN_FILE}`), false, 'taken at start: a crash later in this run is not a clean stop');
  assert.equal(takeCleanShutdownEpoch(fs, '/data'), -1n);
});

it('a damaged marker counts as an unclean stop (and is removed)', () => {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/data');
  for (const text of ['{', '{"version":0,"brokerEpoch":-3}', '{"version":1,"brokerEpoch":"7"}', '{"version":0,"brokerEpoch":"x"}']) {
    fs.writeFileAtomic(`/data/${CLEAN_SHUTDOWN_FILE}`, Buffer.from(text));
    assert.equal(takeCleanShutdownEpoch(fs, '/data'), -1n, text);
    assert.equal(fs.exists(`/data/${CLEAN_SHUTDOWN_FILE}`), false);
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyOffsetsBefore, type LegacyOffsetsInput } from '../../../src/broker/legacy-offsets.js';

// Three segments (bases 0, 100, 250; modified at 1000, 2000, 3000 ms), log end 300, now 5000.
const log: LegacyOffsetsInput = {
  segments: [
    { baseOffset: 0n, sizeBytes: 4096, lastModifiedMs: 1000 },
    { baseOffset: 100n, sizeBytes: 4096, lastModifiedMs: 2000 },
    { baseOffset: 250n, sizeBytes: 512, lastModifiedMs: 3000 },
  ],
  logStartOffset: 40n,
  logEndOffset: 300n,
  highWatermark: 300n,
  nowMs: 5000,
};

test('ListOffsets v0: latest and earliest walk the segment candidates (base offsets raised to the log start, then the log end)', () => {
  assert.deepEqual(legacyOffsetsBefore(log, -1n, 1, true), [300n]);
  assert.deepEqual(legacyOffsetsBefore(log, -1n, 10, true), [300n, 250n, 100n, 40n]);
  assert.deepEqual(legacyOffsetsBefore(log, -2n, 1, true), [40n]);
  assert.deepEqual(legacyOffsetsBefore(log, -2n, 10, true), [40n], 'earliest starts at the first candidate and walks back from it');
});

test('ListOffsets v0: a timestamp picks the last candidate modified at or before it', () => {
  assert.deepEqual(legacyOffsetsBefore(log, 2500n, 10, true), [100n, 40n]);
  assert.deepEqual(legacyOffsetsBefore(log, 2000n, 1, true), [100n]);
  assert.deepEqual(legacyOffsetsBefore(log, 999n, 10, true), [], 'before every segment: none');
  assert.deepEqual(legacyOffsetsBefore(log, 9999n, 2, true), [300n, 250n]);
});

test('ListOffsets v0: an empty active segment adds no log-end candidate; a consumer never sees offsets above the high watermark', () => {
  const emptyActive = { ...log, segments: [...log.segments.slice(0, 2), { baseOffset: 300n, sizeBytes: 0, lastModifiedMs: 4000 }] };
  assert.deepEqual(legacyOffsetsBefore(emptyActive, -1n, 10, true), [300n, 100n, 40n]);
  const behind = { ...log, highWatermark: 120n };
  assert.deepEqual(legacyOffsetsBefore(behind, -1n, 10, true), [120n, 100n, 40n]);
  assert.deepEqual(legacyOffsetsBefore(behind, -1n, 10, false), [300n, 250n, 100n, 40n], 'a replica (replicaId >= 0) gets them all');
  assert.deepEqual(legacyOffsetsBefore(log, -1n, 0, true), []);
});

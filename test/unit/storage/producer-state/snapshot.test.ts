import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSnapshot, encodeSnapshot, parseSnapshotFileName, snapshotFileName } from '../../../../src/storage/producer-state/snapshot.js';
import { SEQUENCE_MAX, type ProducerEntry, type UnreplicatedTxn } from '../../../../src/storage/producer-state/producer-state.js';
import { SeededRandom } from '../../../../src/util/random.js';
import { crc32c } from '@node-rs/crc32';

function entries(): ProducerEntry[] {
  return [
    { producerId: 0n, epoch: 0, batches: [], lastTimestampMs: -1n, lastAppendMs: 5, currentTxnFirstOffset: -1n, coordinatorEpoch: -1 },
    {
      producerId: 123456789012n,
      epoch: 32766,
      batches: [
        { firstSeq: SEQUENCE_MAX - 1, lastSeq: 1, firstOffset: 10n, lastOffset: 13n, timestampMs: 1_700_000_000_000n },
        { firstSeq: 2, lastSeq: 2, firstOffset: 20n, lastOffset: 20n, timestampMs: 1_700_000_000_001n },
      ],
      lastTimestampMs: 1_700_000_000_001n,
      lastAppendMs: 1_700_000_000_002,
      currentTxnFirstOffset: 15n,
      coordinatorEpoch: 3,
    },
  ];
}

const unreplicated: UnreplicatedTxn[] = [{ firstOffset: 3n, markerOffset: 9n }, { firstOffset: 11n, markerOffset: 12n }];

/** The same content as a version 2 file (written before unreplicated transactions were kept). */
function asVersion2(v3: Buffer): Buffer {
  const v2 = Buffer.from(v3.subarray(0, v3.length - 4)); // without the (zero) unreplicated count
  v2.writeInt16BE(2, 0);
  v2.writeUInt32BE(crc32c(v2.subarray(6)) >>> 0, 2);
  return v2;
}

describe('producer state snapshot format', () => {
  it('names files by 20-digit offset', () => {
    assert.equal(snapshotFileName(123n), '00000000000000000123.snapshot');
    assert.equal(parseSnapshotFileName('00000000000000000123.snapshot'), 123n);
    assert.equal(parseSnapshotFileName('00000000000000000123.log'), null);
    assert.equal(parseSnapshotFileName('123.snapshot'), null);
  });

  it('round-trips', () => {
    assert.deepEqual(decodeSnapshot(encodeSnapshot(21n, entries(), unreplicated), 21n), { entries: entries(), unreplicated });
    assert.deepEqual(decodeSnapshot(encodeSnapshot(21n, entries()), 21n), { entries: entries(), unreplicated: [] });
    assert.deepEqual(decodeSnapshot(encodeSnapshot(0n, []), 0n), { entries: [], unreplicated: [] });
  });

  it('reads version 2 files: no unreplicated transactions', () => {
    assert.deepEqual(decodeSnapshot(asVersion2(encodeSnapshot(21n, entries())), 21n), { entries: entries(), unreplicated: [] });
  });

  it('refuses a snapshot whose content names another offset', () => {
    assert.match(String(decodeSnapshot(encodeSnapshot(21n, entries()), 22n)), /offset/);
  });

  it('refuses every truncation', () => {
    const full = encodeSnapshot(21n, entries(), unreplicated);
    for (let n = 0; n < full.length; n++) {
      assert.equal(typeof decodeSnapshot(full.subarray(0, n), 21n), 'string', `cut at ${n}`);
    }
    assert.equal(typeof decodeSnapshot(Buffer.concat([full, Buffer.alloc(1)]), 21n), 'string', 'a trailing byte');
  });

  it('refuses every single corrupted byte (CRC, version)', () => {
    const full = encodeSnapshot(21n, entries(), unreplicated);
    const random = new SeededRandom(7);
    for (let i = 0; i < full.length; i++) {
      const bad = Buffer.from(full);
      bad[i] = ((bad[i] as number) ^ (1 + random.int(255))) & 0xff;
      assert.equal(typeof decodeSnapshot(bad, 21n), 'string', `byte ${i}`);
    }
  });

  it('refuses values no writer produces even with a valid CRC', () => {
    const bad = entries();
    (bad[1] as ProducerEntry).batches[0] = { firstSeq: 1, lastSeq: 1, firstOffset: 30n, lastOffset: 30n, timestampMs: 0n };
    assert.match(String(decodeSnapshot(encodeSnapshot(21n, bad), 21n)), /bad batch/);
    const repeated = [entries()[0] as ProducerEntry, entries()[0] as ProducerEntry];
    assert.match(String(decodeSnapshot(encodeSnapshot(21n, repeated), 21n)), /repeated/);
    const markerAtEnd = [{ firstOffset: 3n, markerOffset: 21n }];
    assert.match(String(decodeSnapshot(encodeSnapshot(21n, entries(), markerAtEnd), 21n)), /bad unreplicated/);
    const unordered = [...unreplicated].reverse();
    assert.match(String(decodeSnapshot(encodeSnapshot(21n, entries(), unordered), 21n)), /bad unreplicated/);
  });
});

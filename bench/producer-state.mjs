#!/usr/bin/env node
// Append-path cost of idempotence (issue 4): Partition.appendClientBatch on a
// PartitionLog over the MemoryFileSystem (no disk noise), for
//   plain       batches without a producer id (the non-idempotent path)
//   idempotent  batches of P producers round-robin, each in sequence
//   duplicate   replays of one of the last 5 batches (answered, not appended)
// Prints batches/s per mode (median of RUNS); each batch holds one 100-byte
// record, so the fixed per-batch work dominates.
//
//   npx tsc -p tsconfig.build.json && node bench/producer-state.mjs
//   BATCHES=200000 RUNS=5 PRODUCERS=100 MODES=idempotent,plain node bench/producer-state.mjs
import { crc32c } from '@node-rs/crc32';
import { MemoryFileSystem } from '../dist/src/storage/memory-fs.js';
import { PartitionLog } from '../dist/src/storage/partition-log.js';
import { DEFAULT_LOG_CONFIG } from '../dist/src/storage/config.js';
import { Partition } from '../dist/src/replication/partition.js';
import { ManualClock } from '../dist/src/util/clock.js';
import { buildBatch } from '../dist/test/unit/storage/batch-fixture.js';

const BATCHES = Number(process.env.BATCHES ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 5);
const PRODUCERS = Number(process.env.PRODUCERS ?? 10);

function template(producerId, seq) {
  const b = buildBatch({ records: [{ value: Buffer.alloc(100, 97) }] });
  if (producerId >= 0n) {
    b.writeBigInt64BE(producerId, 43);
    b.writeInt16BE(0, 51);
    b.writeInt32BE(seq, 53);
    b.writeUInt32BE(crc32c(b.subarray(21)) >>> 0, 17);
  }
  return b;
}

function open() {
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const log = PartitionLog.open({ fs, clock: new ManualClock(), dir: '/d/t-0', topic: 't', partition: 0, config: { ...DEFAULT_LOG_CONFIG, segmentBytes: 64 << 20 } }).log;
  return new Partition('t', 0, 'id', log, 1, 1, 0, [1], [1]);
}

function run(mode) {
  const p = open();
  const seqs = new Array(PRODUCERS).fill(0);
  const plain = template(-1n, 0);
  if (mode === 'duplicate') for (let i = 0; i < 5; i++) p.appendClientBatch(template(1n, i), { producerId: 1n, epoch: 0, baseSequence: i, lastOffsetDelta: 0 });
  const dupHeader = { producerId: 1n, epoch: 0, baseSequence: 3, lastOffsetDelta: 0 };
  const dup = template(1n, 3);
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCHES; i++) {
    if (mode === 'plain') {
      p.appendClientBatch(plain, null);
    } else if (mode === 'idempotent') {
      const k = i % PRODUCERS;
      const seq = seqs[k]++;
      // Patch the header in place as the produce path would receive it (no per-batch allocation beyond the header object).
      plain.writeBigInt64BE(BigInt(k), 43);
      plain.writeInt16BE(0, 51);
      plain.writeInt32BE(seq, 53);
      const r = p.appendClientBatch(plain, { producerId: BigInt(k), epoch: 0, baseSequence: seq, lastOffsetDelta: 0 });
      if (r.kind !== 'appended') throw new Error(`unexpected ${r.kind}`);
    } else {
      const r = p.appendClientBatch(dup, dupHeader);
      if (r.kind !== 'duplicate') throw new Error(`unexpected ${r.kind}`);
    }
  }
  const ns = Number(process.hrtime.bigint() - start);
  plain.writeBigInt64BE(-1n, 43);
  return BATCHES / (ns / 1e9);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`batches=${BATCHES} runs=${RUNS} producers=${PRODUCERS} (1 record of 100 B per batch, MemoryFileSystem)`);
for (const mode of (process.env.MODES ?? 'plain,idempotent,duplicate').split(',')) {
  const rates = [];
  for (let r = 0; r < RUNS; r++) rates.push(run(mode));
  console.log(`${mode.padEnd(11)} ${Math.round(median(rates)).toLocaleString('en-US').padStart(12)} batches/s (median)`);
}

/**
 * Seeded op-fuzz of the idempotent append path (Partition.appendClientBatch
 * over a PartitionLog on the MemoryFileSystem) against a simple model: the
 * list of batches the log holds, from which the expected answer to any batch
 * is recomputed from scratch. Ops: new batches, retries of recent and old
 * batches, gaps, stale and new epochs, flushes, crashes (torn writes
 * included) with recovery from snapshots + log, clean restarts, truncation.
 * 32 fixed and 8 rotating seeds (test/helpers/seeds.ts): PRODUCER_FUZZ_SEED=n
 * replays one, PRODUCER_FUZZ_SEED_BASE=b a rotating block, PRODUCER_FUZZ_SEEDS=n
 * sets the fixed block.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../../src/util/random.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { MemoryFileSystem } from '../../../../src/storage/memory-fs.js';
import { PartitionLog } from '../../../../src/storage/partition-log.js';
import { DEFAULT_LOG_CONFIG } from '../../../../src/storage/config.js';
import { Partition } from '../../../../src/replication/partition.js';
import { BATCHES_RETAINED, SEQUENCE_MAX, lastSequence } from '../../../../src/storage/producer-state/producer-state.js';
import { idempotentBatch, headerOf, type IdempotentSpec } from './fixture.js';
import { simulationSeeds } from '../../../helpers/seeds.js';

interface ModelBatch {
  pid: bigint;
  epoch: number;
  firstSeq: number;
  lastSeq: number;
  firstOffset: bigint;
  lastOffset: bigint;
}

type Expected = { kind: 'appended' } | { kind: 'duplicate'; offset: bigint } | { kind: 'rejected'; error: string };

/** The answer for a batch, from the whole list (deliberately naive: no cache, no map). */
function expected(log: readonly ModelBatch[], spec: IdempotentSpec): Expected {
  const mine = log.filter((b) => b.pid === spec.producerId);
  const cur = mine[mine.length - 1];
  if (cur === undefined) return { kind: 'appended' };
  if (spec.epoch < cur.epoch) return { kind: 'rejected', error: 'invalid_producer_epoch' };
  if (spec.epoch > cur.epoch) return spec.baseSequence === 0 ? { kind: 'appended' } : { kind: 'rejected', error: 'out_of_order_sequence' };
  let runStart = mine.length;
  while (runStart > 0 && (mine[runStart - 1] as ModelBatch).epoch === cur.epoch) runStart--;
  const recent = mine.slice(Math.max(runStart, mine.length - BATCHES_RETAINED));
  const last = lastSequence(spec.baseSequence, (spec.count ?? 1) - 1);
  const dup = recent.find((b) => b.firstSeq === spec.baseSequence && b.lastSeq === last);
  if (dup !== undefined) return { kind: 'duplicate', offset: dup.firstOffset };
  const follows = spec.baseSequence === (cur.lastSeq === SEQUENCE_MAX ? 0 : cur.lastSeq + 1);
  return follows ? { kind: 'appended' } : { kind: 'rejected', error: 'out_of_order_sequence' };
}

function runSeed(seed: number, ops: number): void {
  const random = new SeededRandom(seed);
  const fs = new MemoryFileSystem();
  fs.mkdirp('/d');
  const clock = new ManualClock(1_700_000_000_000);
  const cfg = { ...DEFAULT_LOG_CONFIG, segmentBytes: 400 + random.int(800) };
  let model: ModelBatch[] = [];
  let log!: PartitionLog;
  let partition!: Partition;
  const open = (clean: boolean): void => {
    log = PartitionLog.open({ fs, clock, dir: '/d/t-0', topic: 't', partition: 0, config: cfg, hadCleanShutdown: clean }).log;
    partition = new Partition('t', 0, 'id', log, 1, { leader: 1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] });
  };
  const afterCut = (): void => {
    const end = log.logEndOffset;
    model = model.filter((b) => b.lastOffset < end);
  };
  open(true);
  const pids = [1n, 2n, 3n];
  // Producers start near the wrap point sometimes.
  const startSeq = new Map(pids.map((p) => [p, random.int(4) === 0 ? SEQUENCE_MAX - random.int(6) : random.int(1000)]));
  const trace: string[] = [];
  for (let op = 0; op < ops; op++) {
    const roll = random.int(100);
    if (roll < 3) {
      trace.push('crash');
      if (random.int(2) === 0) log.flush();
      fs.crash(random);
      open(false);
      afterCut();
      continue;
    }
    if (roll < 5) {
      trace.push('restart');
      log.close();
      open(true);
      continue;
    }
    if (roll < 7 && log.logEndOffset > 0n) {
      const to = BigInt(random.int(Number(log.logEndOffset)));
      trace.push(`truncate ${to}`);
      log.truncateTo(to);
      partition = new Partition('t', 0, 'id', log, 1, { leader: 1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] });
      afterCut();
      continue;
    }
    if (roll < 12) {
      log.flush();
      continue;
    }
    const pid = pids[random.int(pids.length)] as bigint;
    const mine = model.filter((b) => b.pid === pid);
    const cur = mine[mine.length - 1];
    const count = 1 + random.int(3);
    let spec: IdempotentSpec;
    const pick = random.int(100);
    if (cur === undefined) {
      spec = { producerId: pid, epoch: random.int(3), baseSequence: pick < 80 ? (startSeq.get(pid) as number) : random.int(50), count };
    } else if (pick < 55) {
      spec = { producerId: pid, epoch: cur.epoch, baseSequence: cur.lastSeq === SEQUENCE_MAX ? 0 : cur.lastSeq + 1, count };
    } else if (pick < 75) {
      const old = mine[Math.max(0, mine.length - 1 - random.int(8))] as ModelBatch;
      spec = { producerId: pid, epoch: old.epoch, baseSequence: old.firstSeq, count: Number(old.lastOffset - old.firstOffset) + 1 };
    } else if (pick < 83) {
      spec = { producerId: pid, epoch: cur.epoch + 1, baseSequence: random.int(4) === 0 ? 1 + random.int(5) : 0, count };
    } else if (pick < 90) {
      spec = { producerId: pid, epoch: Math.max(0, cur.epoch - 1), baseSequence: 0, count };
    } else {
      spec = { producerId: pid, epoch: cur.epoch, baseSequence: (cur.lastSeq + 2 + random.int(5)) & SEQUENCE_MAX, count };
    }
    const want = expected(model, spec);
    clock.advance(1);
    const got = partition.appendClientBatch(idempotentBatch(spec), headerOf(spec));
    trace.push(`send p${pid} e${spec.epoch} s${spec.baseSequence} n${spec.count ?? 1} -> ${got.kind}`);
    const where = `seed ${seed} op ${op}: ${trace.slice(-6).join(' | ')}`;
    if (want.kind === 'appended') {
      assert.equal(got.kind, 'appended', where);
      if (got.kind !== 'appended') continue;
      model.push({
        pid,
        epoch: spec.epoch,
        firstSeq: spec.baseSequence,
        lastSeq: lastSequence(spec.baseSequence, (spec.count ?? 1) - 1),
        firstOffset: got.baseOffset,
        lastOffset: got.lastOffset,
      });
    } else if (want.kind === 'duplicate') {
      assert.equal(got.kind, 'duplicate', where);
      if (got.kind === 'duplicate') assert.equal(got.baseOffset, want.offset, where);
    } else {
      assert.equal(got.kind, 'rejected', where);
      if (got.kind === 'rejected') assert.equal(got.error, want.error, where);
    }
  }
  log.close();
}

describe('idempotent append op-fuzz against a model', () => {
  const plan = simulationSeeds('PRODUCER_FUZZ', 32, 8);
  const seeds = plan.seeds;
  it(`${seeds.length} seeds x 400 ops`, () => {
    console.log(plan.summary);
    for (const seed of seeds) {
      try {
        runSeed(seed, 400);
      } catch (e) {
        console.error(`producer-state op-fuzz failed with ${plan.seedVariable}=${seed}`);
        throw e;
      }
    }
  });
});

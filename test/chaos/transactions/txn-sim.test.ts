/**
 * Seeded simulation of the transaction coordinator with its marker sender,
 * partition leaders and producers (sim-world.ts, sim-producer.ts): delayed
 * and reordered AddPartitionsToTxn, Produce, EndTxn (including duplicates
 * delivered long after, for transaction version 2) and WriteTxnMarkers;
 * lost marker requests; ambiguous __transaction_state writes; coordinator
 * failover with or without the unreplicated tail and a zombie old
 * coordinator; producers that stall past their timeout or are replaced by a
 * new instance (zombie fencing).
 *
 * Checked after a quiet period:
 * - every transaction's records end with ONE outcome on every partition
 *   (never committed here and aborted there);
 * - a committed transaction is one its producer asked to commit, and one
 *   whose EndTxn(commit) was answered NONE is committed (so a delayed EndTxn
 *   never completes a later transaction, KAFKA-17754);
 * - every data record is followed by a marker of its producer (no hanging
 *   transaction), and every transactional id is back in a complete state.
 *
 * Seeds (test/helpers/seeds.ts): 450 fixed + 100 rotating per run.
 * TXN_SEED=n replays one (with its trace printed on failure).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simulationSeeds } from '../../helpers/seeds.js';
import type { TopicPartition } from '../../../src/coordinator/transaction/state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { SimFailure, SimWorld } from './sim-world.js';
import { SimProducer, type TxnRecord } from './sim-producer.js';

const TOPICS: TopicPartition[] = [
  { topic: 'out', partition: 0 },
  { topic: 'out', partition: 1 },
  { topic: 'out', partition: 2 },
  { topic: '__consumer_offsets', partition: 7 },
];

async function simulate(seed: number): Promise<SimWorld> {
  const w = new SimWorld(seed, TOPICS);
  let serial = 0;
  const producers: SimProducer[] = [];
  const ids = ['app-a', 'app-b', 'app-c'].slice(0, 1 + w.random.int(3));
  const runs: Promise<void>[] = [];
  const start = (id: string): void => {
    const p = new SimProducer(w, id, w.chance(0.5) ? 2 : 1, TOPICS, () => ++serial, 3000 + w.random.int(3000));
    producers.push(p);
    runs.push(p.init().then(() => p.runTransactions(3 + w.random.int(5))));
  };
  for (const id of ids) start(id);
  // Faults while the producers run: failovers, a new instance of an id (the old one a zombie), timeout scans.
  for (let t = 0; t < 30_000; t += 500) {
    w.schedule(t, () => {
      if (!w.faults) return;
      if (w.chance(0.03)) w.failover();
      if (w.chance(0.01)) start(ids[w.random.int(ids.length)] as string);
    });
  }
  for (let t = 0; t < 120_000; t += 1000) w.schedule(t, () => void w.coordinator.abortTimedOut());
  await w.run(60_000);
  w.faults = false;
  await w.run(60_000);
  await Promise.all(runs);
  check(w, producers.flatMap((p) => p.txns));
  return w;
}

function check(w: SimWorld, txns: readonly TxnRecord[]): void {
  const outcome = new Map<number, boolean>();
  for (const p of w.partitions.values()) {
    p.log.forEach((item, i) => {
      if (item.kind !== 'data') return;
      const marker = p.log.slice(i + 1).find((m) => m.kind === 'marker' && m.producerId === item.producerId);
      if (marker === undefined || marker.kind !== 'marker') throw new SimFailure(`${p.tp.topic}-${p.tp.partition}: serial ${item.txn} has no marker (hanging transaction)`);
      const seen = outcome.get(item.txn);
      if (seen !== undefined && seen !== marker.committed) throw new SimFailure(`serial ${item.txn} is committed on one partition and aborted on another`);
      outcome.set(item.txn, marker.committed);
    });
  }
  for (const t of txns) {
    const o = outcome.get(t.serial);
    if (o === true && !t.commitRequested) throw new SimFailure(`serial ${t.serial} (${t.transactionalId}) was committed though its producer asked to abort`);
    if (t.answer === ErrorCode.NONE && o !== undefined && o !== t.commitRequested) {
      throw new SimFailure(`serial ${t.serial} (${t.transactionalId}): EndTxn(${t.commitRequested ? 'commit' : 'abort'}) answered NONE but the markers say ${o ? 'commit' : 'abort'}`);
    }
  }
  for (const d of w.coordinator.queries.list([], [])) {
    if (!['Empty', 'CompleteCommit', 'CompleteAbort'].includes(d.state)) throw new SimFailure(`${d.transactionalId} is still ${d.state} after the quiet period`);
  }
}

describe('transaction coordinator simulation', () => {
  const plan = simulationSeeds('TXN', 450, 100);

  it(`${plan.seeds.length} seeded schedules never mix outcomes or end a later transaction`, async () => {
    console.log(plan.summary);
    let failovers = 0;
    let committed = 0;
    for (const seed of plan.seeds) {
      let w: SimWorld | undefined;
      try {
        w = await simulate(seed);
      } catch (e) {
        console.error(`transaction simulation failed with ${plan.seedVariable}=${seed}`);
        throw e;
      }
      failovers += w.failovers;
      committed += [...w.partitions.values()].reduce((n, p) => n + p.log.filter((i) => i.kind === 'marker' && i.committed).length, 0);
      if (plan.replay) console.log(w.trace.join('\n'));
    }
    assert.ok(committed > plan.seeds.length, 'transactions committed');
    if (plan.seeds.length >= 50) assert.ok(failovers > 0, 'some schedules failed the coordinator over');
  });
});

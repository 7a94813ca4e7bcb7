/**
 * Seeded random schedules of broker registrations (new incarnations),
 * heartbeats (caught up or not, wantFence, wantShutDown), silences with
 * session timeouts, and topic creations against the QuorumController. After
 * every step (the image itself asserts its own invariants on every apply):
 *  - a partition's leader is -1 or an ISR member that is unfenced and not in
 *    controlled shutdown;
 *  - a partition has no leader only when no ISR member could lead;
 *  - the ISR is empty only after an unclean restart of its last member
 *    (KIP-966), which is then the partition's last known ELR, and such a
 *    partition is leaderless only while that broker cannot lead;
 *  - no ELR member that could lead is left out of a leaderless partition;
 *  - leader epochs never go back and grow on every leader change.
 * 120 fixed and 30 rotating seeds (test/helpers/seeds.ts); LIVENESS_SEEDS=n sets the fixed block, LIVENESS_SEED=n replays one, LIVENESS_SEED_BASE=b a rotating block (FUZZ_TRACE=1 prints every step).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { QuorumController } from '../../../src/controller/controller.js';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { MetadataPublisher } from '../../../src/controller/metadata/publisher.js';
import { NO_LEADER } from '../../../src/controller/metadata/records.js';
import { MemoryMetadataLog, newTopic } from './fixtures.js';
import { simulationSeeds } from '../../helpers/seeds.js';

const SESSION_MS = 1000;

/** One line per step with FUZZ_TRACE=1: brokers [id, fenced, inControlledShutdown] and partitions leader/isr. */
function describe(image: MetadataImage): string {
  const brokers = [...image.brokers()].map((b) => `${b.brokerId}${b.fenced ? 'F' : ''}${b.inControlledShutdown ? 'S' : ''}`);
  const partitions = [...image.topics()].flatMap((t) => [...t.partitions.values()].map((p) => `${t.name}-${p.partitionId}:${p.leader}/${p.isr.join(',')}`));
  return `brokers ${brokers.join(' ')} | ${partitions.join(' ')}`;
}
const STEPS = 80;

async function schedule(seed: number): Promise<{ fences: number; leaderless: number }> {
  const r = new SeededRandom(seed);
  const log = new MemoryMetadataLog();
  const image = new MetadataImage('c');
  const publisher = new MetadataPublisher(image, (e) => {
    throw e;
  });
  await log.start(publisher.handleCommit);
  publisher.finishLoad();
  const clock = new ManualClock();
  const controller = new QuorumController({
    nodeId: 100,
    log,
    image,
    random: r,
    numPartitionsDefault: 2,
    replicationFactorDefault: 1,
    validateTopicConfigs: () => [],
    clock,
    brokerSessionTimeoutMs: SESSION_MS,
  });
  const ids = [1, 2, 3, 4];
  const incarnations = new Map<number, number>();
  const epochs = new Map<string, number>();
  let fences = 0;
  let leaderless = 0;
  let topics = 0;
  const pick = <T>(xs: readonly T[]): T => xs[r.int(xs.length)] as T;

  const check = (step: string): void => {
    for (const t of image.topics()) {
      for (const p of t.partitions.values()) {
        const where = `seed ${seed}, after ${step}: ${t.name}-${p.partitionId} (leader ${p.leader}, isr ${p.isr.join(',')})`;
        const usable = (id: number): boolean => {
          const b = image.broker(id);
          return b !== undefined && !b.fenced && !b.inControlledShutdown;
        };
        // KIP-966: only an unclean restart empties an ISR, and then the broker is remembered as the last known ELR.
        if (p.isr.length === 0) assert.ok(p.elr.length === 0 && p.lastKnownElr.length === 1 && p.leader === NO_LEADER, `${where}: empty ISR without a last known ELR`);
        if (p.leader === NO_LEADER) {
          leaderless++;
          assert.ok(!p.isr.some(usable), `${where}: leaderless although an ISR member could lead`);
          assert.ok(!p.elr.some(usable), `${where}: leaderless although an ELR member could lead`);
          if (p.isr.length === 0) assert.ok(!p.lastKnownElr.some(usable), `${where}: leaderless although the last known ELR member could lead`);
        } else {
          assert.ok(p.isr.includes(p.leader) && usable(p.leader), `${where}: the leader is not a usable ISR member`);
        }
        const key = `${t.topicId}:${p.partitionId}`;
        assert.ok(p.leaderEpoch >= (epochs.get(key) ?? 0), `${where}: leader epoch went back`);
        epochs.set(key, p.leaderEpoch);
      }
    }
  };

  for (let i = 0; i < STEPS; i++) {
    const id = pick(ids);
    const roll = r.next();
    let step: string;
    if (roll < 0.2) {
      const n = (incarnations.get(id) ?? 0) + 1;
      incarnations.set(id, n);
      step = `register ${id}#${n}`;
      const rack = r.next() < 0.5 ? `rack${id % 2}` : null;
      // Half the restarts are clean (the broker names its last epoch, KIP-966), half unclean.
      const clean = r.next() < 0.5;
      step += clean ? ' clean' : ' unclean';
      const previousBrokerEpoch = clean ? (image.broker(id)?.brokerEpoch ?? -1n) : -1n;
      const reg = await controller.registerBroker({ brokerId: id, incarnationId: Buffer.alloc(16, id * 31 + n).toString('base64url'), endpoints: [], rack, previousBrokerEpoch });
      assert.equal(reg.errorCode, ErrorCode.NONE);
    } else if (roll < 0.7) {
      const b = image.broker(id);
      if (b === undefined) continue;
      const wantFence = r.next() < 0.1;
      const wantShutDown = r.next() < 0.1;
      const behind = r.next() < 0.2;
      step = `heartbeat ${id}${wantFence ? ' wantFence' : ''}${wantShutDown ? ' wantShutDown' : ''}${behind ? ' behind' : ''}`;
      const hb = await controller.brokerHeartbeat({
        brokerId: id,
        brokerEpoch: b.brokerEpoch,
        currentMetadataOffset: behind ? b.brokerEpoch - 1n : image.lastAppliedOffset,
        wantFence,
        wantShutDown,
      });
      assert.equal(hb.errorCode, ErrorCode.NONE);
      assert.equal(hb.isFenced, image.broker(id)?.fenced, `seed ${seed}: the answer tells the image's fencing`);
    } else if (roll < 0.85) {
      clock.advance(r.int(SESSION_MS * 2));
      step = 'tick';
      fences += await controller.tick();
    } else {
      const usable = image.usableBrokers().length;
      if (usable === 0) continue;
      step = `create t${topics}`;
      const [res] = await controller.createTopics([newTopic(`t${topics++}`, { numPartitions: 1 + r.int(4), replicationFactor: 1 + r.int(usable) })], { validateOnly: false });
      assert.equal(res?.errorCode, ErrorCode.NONE, res?.errorMessage ?? '');
    }
    if (process.env['FUZZ_TRACE'] !== undefined) console.log(step, describe(image));
    check(step);
  }
  return { fences, leaderless };
}

it('random liveness schedules keep leaders on usable in-sync brokers', async () => {
  const plan = simulationSeeds('LIVENESS', 120, 30);
  const seeds = plan.seeds;
  console.log(plan.summary);
  let fences = 0;
  let leaderless = 0;
  for (const seed of seeds) {
    let out: Awaited<ReturnType<typeof schedule>>;
    try {
      out = await schedule(seed);
    } catch (e) {
      console.error(`controller liveness fuzz failed with ${plan.seedVariable}=${seed}`);
      throw e;
    }
    fences += out.fences;
    leaderless += out.leaderless;
  }
  if (seeds.length > 1) assert.ok(fences > 0 && leaderless > 0, `the schedules fenced brokers (${fences}) and left partitions leaderless (${leaderless})`);
});

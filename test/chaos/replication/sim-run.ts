/**
 * One seeded run of the replication simulation (sim-world.ts): producers
 * sending acks=all, consumers reading up to the high watermark, and faults
 * (crashes that lose unflushed writes, restarts after an unclean shutdown,
 * network partitions of one broker, lossy links), never more than N-1 = 2
 * brokers down or cut off at once. After every step (each timer, with its
 * promise callbacks settled) the invariants are checked:
 *
 *  - an acknowledged acks=all record is in the log of the partition's
 *    acting leader, at its offset (unclean election is off);
 *  - at most one broker acts as leader of a partition in one leader epoch;
 *  - a leader's high watermark never goes back within its epoch;
 *  - live replicas agree on every offset below both of their high watermarks;
 *  - everything a consumer read is still in the leader's log at its offset.
 *
 * Then the faults stop: every broker runs and every link works, and within
 * a bounded time every partition must have a leader, all three replicas in
 * the ISR, equal logs and high watermarks, and accept an acks=all append
 * (liveness).
 */
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { Compression } from '../../../src/protocol/record-batch/header.js';
import { decodeRecordBatchSync, iterateBatches } from '../../../src/protocol/record-batch/reader.js';
import type { Partition } from '../../../src/replication/partition.js';
import { BROKER_IDS, PARTITIONS, SimWorld, TOPIC, type SimBroker } from './sim-world.js';

const STEPS_MS = 3_000;
const SETTLE_MS_MAX = 8_000;
const PRODUCE_EVERY_MS = 30;
const CONSUME_EVERY_MS = 60;

export interface SimStats {
  acked: number;
  crashes: number;
  partitions: number;
  truncations: number;
}

class SimFailure extends Error {}

/** REPLICATION_TRACE=1 prints what happens (faults, leadership, acks) while replaying one seed. */
const TRACE = process.env['REPLICATION_TRACE'] === '1';

function fail(seed: number, message: string): never {
  throw new SimFailure(`replication sim seed ${seed}: ${message}`);
}

const decoded = new WeakMap<Partition, { key: string; records: Map<bigint, string> }>();

/** offset -> value of every record in `p`'s log, in offset order (decoded once per log state). */
function records(p: Partition): Map<bigint, string> {
  const key = `${p.logStartOffset}:${p.logEndOffset}:${p.log.truncationCount}`;
  let cached = decoded.get(p);
  if (cached?.key !== key) decoded.set(p, (cached = { key, records: readRecords(p, p.logEndOffset) }));
  return cached.records;
}

function readRecords(p: Partition, end: bigint): Map<bigint, string> {
  const out = new Map<bigint, string>();
  if (end <= p.logStartOffset) return out;
  const r = p.log.read(p.logStartOffset, 64 << 20, { maxOffsetExclusive: end, minOneBatch: true });
  if (r.kind !== 'records') return out;
  for (const b of iterateBatches(Buffer.concat(r.chunks))) {
    const d = decodeRecordBatchSync(b);
    for (const rec of d.records) {
      const offset = d.header.baseOffset + BigInt(rec.offsetDelta);
      if (offset < end) out.set(offset, rec.value?.toString() ?? '');
    }
  }
  return out;
}

class Run {
  readonly w: SimWorld;
  readonly acked = new Map<number, Map<bigint, string>>();
  readonly consumed = new Map<number, Map<bigint, string>>();
  private readonly positions = new Map<number, bigint>();
  /** (broker, partition, leader epoch) -> the highest high watermark seen while it led. */
  private readonly leaderHighWatermarks = new Map<string, bigint>();
  private sent = 0;
  /** Acknowledged and consumed records of each partition in the order they happened (for incremental checks). */
  private readonly ackedInOrder = new Map<number, [bigint, string][]>();
  private readonly consumedInOrder = new Map<number, [bigint, string][]>();
  private readonly verified = new Map<number, { leaderKey: string; acked: number; consumed: number; followers: Map<number, { key: string; upTo: bigint }> }>();
  readonly stats: SimStats = { acked: 0, crashes: 0, partitions: 0, truncations: 0 };
  private faultsOn = true;
  /**
   * Brokers killed, cut off, or back but not yet in every ISR again: at most
   * 2 (N-1). A kill (kill -9) keeps what the broker wrote (the page cache
   * survives a process); a power loss throws away what was not fsynced, and
   * at most min.insync.replicas - 1 = 1 broker may be power-lost and not yet
   * back in every ISR: acks=all promises the record on min.insync.replicas
   * replicas, not on disk, so that is the loss it survives.
   */
  private readonly troubled = new Set<number>();
  private readonly powerLost = new Set<number>();

  constructor(readonly seed: number) {
    this.w = new SimWorld(seed);
  }

  private acting(partition: number): { b: SimBroker; p: Partition } | null {
    const leader = this.w.image.partition(TOPIC, partition)?.leader ?? -1;
    const b = leader >= 0 ? this.w.broker(leader) : undefined;
    const p = b?.alive === true ? b.rm.get(TOPIC, partition) : undefined;
    return b !== undefined && p !== undefined && p.isLeader ? { b, p } : null;
  }

  produce(): void {
    const partition = this.w.random.int(PARTITIONS);
    const leader = this.w.image.partition(TOPIC, partition)?.leader ?? -1;
    if (leader < 0) return;
    const value = `v${this.sent++}`;
    const batch = buildRecordBatchSync({ records: [{ key: null, value }], compression: Compression.None });
    this.w.net.send(0, leader, () => {
      const b = this.w.broker(leader);
      if (!b.alive) return;
      const life = b.life;
      void b.rm.appendRecords({ origin: 'client', acks: -1, timeoutMs: 1_000, entries: [{ topic: TOPIC, partition, records: batch }] }).then(([r]) => {
        if (r === undefined || r.errorCode !== ErrorCode.NONE) return;
        this.w.net.send(leader, 0, () => {
          if (b.life !== life) return;
          let m = this.acked.get(partition);
          if (m === undefined) this.acked.set(partition, (m = new Map()));
          m.set(r.baseOffset, value);
          if (TRACE) this.trace(`ack ${value} at ${partition}@${r.baseOffset} from leader ${leader}`);
          push(this.ackedInOrder, partition, [r.baseOffset, value]);
          this.stats.acked++;
        });
      }, () => undefined);
    });
  }

  consume(): void {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const a = this.acting(partition);
      if (a === null || this.w.net.isolated.has(a.b.id)) continue;
      const from = this.positions.get(partition) ?? 0n;
      if (from < a.p.logStartOffset || from > a.p.highWatermark) continue;
      const seen = records(a.p);
      let m = this.consumed.get(partition);
      if (m === undefined) this.consumed.set(partition, (m = new Map()));
      for (const [o, v] of seen) {
        if (o < from || o >= a.p.highWatermark) continue;
        m.set(o, v);
        push(this.consumedInOrder, partition, [o, v]);
      }
      this.positions.set(partition, a.p.highWatermark);
    }
  }

  fault(): void {
    const r = this.w.random;
    const id = BROKER_IDS[r.int(BROKER_IDS.length)] as number;
    const b = this.w.broker(id);
    const roll = r.next();
    this.forgetRecovered();
    if (TRACE && this.troubled.has(id)) this.trace(`broker ${id} ${b.alive ? 'reconnects' : 'restarts'}`);
    if (this.troubled.has(id)) {
      if (!b.alive) void b.start(false);
      else this.w.net.isolated.delete(id);
    } else if (this.troubled.size < 2 && this.keepsAnInSyncReplica(id)) {
      this.troubled.add(id);
      // While a power-lost broker is not back, no other broker is killed:
      // both would restart uncleanly, and if the power-lost one left the ELR
      // last the controller elects it over the killed one that kept the data
      // (docs/cluster.md "Not yet": unclean recovery by log end).
      const power = roll < 0.25 && this.troubled.size === 0;
      const kind = power ? 'power loss' : roll < 0.6 && this.powerLost.size === 0 ? 'kill' : 'partition';
      if (TRACE) this.trace(`fault on broker ${id}: ${kind}`);
      if (kind !== 'partition') {
        b.crash(power);
        if (power) this.powerLost.add(id);
        this.stats.crashes++;
      } else {
        this.w.net.isolated.add(id);
        this.stats.partitions++;
      }
    }
    this.w.net.dropRate = r.next() < 0.3 ? 0.05 : 0;
  }

  /**
   * Whether every partition keeps an in-sync replica other than `id` that is
   * not troubled: a fault may take at most N-1 of the replicas that have the
   * data (a lossy link can shrink an ISR to two; losing both of those at
   * once is N failures of the data's holders).
   */
  private keepsAnInSyncReplica(id: number): boolean {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const isr = this.w.image.partition(TOPIC, partition)?.isr ?? [];
      if (!isr.some((r) => r !== id && !this.troubled.has(r))) return false;
    }
    return true;
  }

  /** Troubled brokers that run, are reachable and are back in every partition's ISR count as healthy again. */
  private forgetRecovered(): void {
    for (const id of [...this.troubled]) {
      const b = this.w.broker(id);
      if (!b.alive || this.w.net.isolated.has(id)) continue;
      let inAll = true;
      for (let partition = 0; partition < PARTITIONS; partition++) if (!(this.w.image.partition(TOPIC, partition)?.isr.includes(id) ?? false)) inAll = false;
      if (!inAll) continue;
      this.troubled.delete(id);
      this.powerLost.delete(id);
    }
  }

  private lastImage = '';

  trace(what: string): void {
    console.log(`[${this.w.clock.monotonicMs()}] ${what}`);
  }

  check(): void {
    const seed = this.seed;
    if (TRACE) {
      const img = this.describe().split('\n').filter((l) => l.startsWith('p')).join(' | ');
      if (img !== this.lastImage) this.trace(`image: ${img}`);
      this.lastImage = img;
    }
    const actingLeaders = new Map<string, number>();
    for (let partition = 0; partition < PARTITIONS; partition++) {
      for (const id of BROKER_IDS) {
        const b = this.w.broker(id);
        const p = b.alive ? b.rm.get(TOPIC, partition) : undefined;
        if (p === undefined || !p.isLeader) continue;
        const k = `${partition}:${p.leaderEpoch}`;
        const other = actingLeaders.get(k);
        if (other !== undefined) fail(seed, `brokers ${other} and ${id} both lead partition ${partition} in epoch ${p.leaderEpoch}`);
        actingLeaders.set(k, id);
        const hwKey = `${id}:${k}:${b.life}`;
        const before = this.leaderHighWatermarks.get(hwKey) ?? -1n;
        if (p.highWatermark < before) fail(seed, `leader ${id} of ${partition} epoch ${p.leaderEpoch}: high watermark went back ${before} -> ${p.highWatermark}`);
        this.leaderHighWatermarks.set(hwKey, p.highWatermark);
      }
      this.checkData(partition);
    }
  }

  /**
   * The data invariants of one partition, checked incrementally: a leader's
   * log only grows while it leads, so after a check only what was added since
   * (new acknowledgements, new reads, followers' newly committed offsets)
   * needs a look; a new leader, epoch or truncation starts over.
   */
  private checkData(partition: number): void {
    const seed = this.seed;
    const a = this.acting(partition);
    if (a === null) return;
    const leaderKey = `${a.b.id}:${a.b.life}:${a.p.leaderEpoch}:${a.p.log.truncationCount}:${a.p.logStartOffset}`;
    let done = this.verified.get(partition);
    if (done?.leaderKey !== leaderKey) this.verified.set(partition, (done = { leaderKey, acked: 0, consumed: 0, followers: new Map() }));
    const log = records(a.p);
    const acked = this.ackedInOrder.get(partition) ?? [];
    for (; done.acked < acked.length; done.acked++) {
      const [offset, value] = acked[done.acked] as [bigint, string];
      if (log.get(offset) !== value) {
        fail(seed, `acknowledged ${value} at ${partition}@${offset} is not in leader ${a.b.id}'s log (epoch ${a.p.leaderEpoch}, has ${log.get(offset) ?? 'nothing'})`);
      }
    }
    const consumed = this.consumedInOrder.get(partition) ?? [];
    for (; done.consumed < consumed.length; done.consumed++) {
      const [offset, value] = consumed[done.consumed] as [bigint, string];
      if (offset >= a.p.logStartOffset && log.get(offset) !== value) fail(seed, `consumed ${value} at ${partition}@${offset} was truncated from leader ${a.b.id}'s log`);
    }
    for (const id of BROKER_IDS) {
      const b = this.w.broker(id);
      const f = b.alive && id !== a.b.id ? b.rm.get(TOPIC, partition) : undefined;
      if (f === undefined) continue;
      const followerKey = `${b.life}:${f.log.truncationCount}:${f.logStartOffset}`;
      const from = done.followers.get(id);
      const start = from?.key === followerKey ? from.upTo : -1n;
      const upTo = f.highWatermark < a.p.highWatermark ? f.highWatermark : a.p.highWatermark;
      if (upTo <= start) continue;
      for (const [offset, value] of records(f)) {
        if (offset >= upTo) break;
        if (offset < start) continue;
        if (log.get(offset) !== value) fail(seed, `replica ${id} has ${value} at ${partition}@${offset} below both high watermarks; leader ${a.b.id} has ${log.get(offset) ?? 'nothing'}`);
      }
      done.followers.set(id, { key: followerKey, upTo });
    }
  }

  async run(): Promise<SimStats> {
    const w = this.w;
    await w.start();
    const schedule = (ms: number, fn: () => void, onlyWithFaults = false): void => {
      w.timers.schedule(ms, () => {
        if (onlyWithFaults && !this.faultsOn) return;
        fn();
        schedule(ms, fn, onlyWithFaults);
      });
    };
    schedule(PRODUCE_EVERY_MS, () => this.produce(), true);
    schedule(CONSUME_EVERY_MS, () => this.consume());
    const faultEvery = 200 + w.random.int(400);
    schedule(faultEvery, () => this.fault(), true);
    await this.steps(STEPS_MS);
    await this.heal();
    return this.stats;
  }

  /** Runs `ms` of virtual time timer by timer, checking the invariants after each. */
  private async steps(ms: number): Promise<void> {
    const w = this.w;
    const limit = w.clock.monotonicMs() + ms;
    while (w.timers.runNext(limit)) {
      await settle();
      this.check();
    }
  }

  private async heal(): Promise<void> {
    const w = this.w;
    this.faultsOn = false;
    w.net.dropRate = 0;
    w.net.isolated.clear();
    for (const id of BROKER_IDS) {
      const b = w.broker(id);
      if (!b.alive) await b.start(false);
    }
    this.troubled.clear();
    const deadline = w.clock.monotonicMs() + SETTLE_MS_MAX;
    while (w.clock.monotonicMs() < deadline) {
      await this.steps(100);
      if (this.converged()) break;
    }
    if (!this.converged()) fail(this.seed, `no convergence ${SETTLE_MS_MAX} ms after the faults stopped: ${this.describe()}`);
    await this.appendAfterHeal();
  }

  private converged(): boolean {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const a = this.acting(partition);
      if (a === null || a.p.isr.length !== BROKER_IDS.length) return false;
      for (const id of BROKER_IDS) {
        const p = this.w.broker(id).rm.get(TOPIC, partition);
        if (p === undefined || p.logEndOffset !== a.p.logEndOffset || p.highWatermark !== a.p.logEndOffset) return false;
      }
    }
    return true;
  }

  private async appendAfterHeal(): Promise<void> {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const a = this.acting(partition);
      if (a === null) fail(this.seed, `partition ${partition} has no acting leader after healing`);
      const batch = buildRecordBatchSync({ records: [{ key: null, value: 'after-heal' }], compression: Compression.None });
      const done = a.b.rm.appendRecords({ origin: 'client', acks: -1, timeoutMs: 2_000, entries: [{ topic: TOPIC, partition, records: batch }] });
      await this.steps(1_000);
      const [r] = await done;
      if (r?.errorCode !== ErrorCode.NONE) fail(this.seed, `an acks=all append after healing failed with ${r?.errorCode}: ${r?.errorMessage}`);
    }
  }

  private describe(): string {
    const parts: string[] = [];
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const img = this.w.image.partition(TOPIC, partition);
      parts.push(`p${partition} image leader ${img?.leader} epoch ${img?.leaderEpoch} isr [${img?.isr.join(',')}] elr [${(img as { elr?: number[] } | undefined)?.elr?.join(',') ?? ''}]`);
      for (const id of BROKER_IDS) {
        const b = this.w.broker(id);
        const p = b.rm.get(TOPIC, partition);
        parts.push(`  b${id} alive=${b.alive} leader=${p?.leaderId} epoch=${p?.leaderEpoch} leo=${p?.logEndOffset} hw=${p?.highWatermark} isr=[${p?.isr.join(',')}] fenced=${this.w.image.broker(id)?.fenced}`);
      }
    }
    return parts.join('\n');
  }
}

function push<T>(m: Map<number, T[]>, k: number, v: T): void {
  let list = m.get(k);
  if (list === undefined) m.set(k, (list = []));
  list.push(v);
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function simulate(seed: number): Promise<SimStats> {
  return new Run(seed).run();
}

/**
 * The world of the replication simulation: a real QuorumController (over an
 * in-memory metadata log) and three brokers, each a real ReplicaManager on
 * its own MemoryFileSystem with the real ReplicaFetcherManager, all on one
 * virtual clock. Everything between them is a message on a simulated
 * network with random delays, losses and partitions:
 *
 *   follower --Fetch--> leader --response--> follower      (ReplicaFetchTransport)
 *   leader --AlterPartition--> controller --reply--> leader
 *   broker --heartbeat--> controller                       (sessions, fencing)
 *   controller --metadata--> broker                        (the image's partition states, applyAssignment)
 *   client --Produce/Fetch--> leader --answer--> client
 *
 * A crash throws away every write a broker did not fsync (MemoryFileSystem),
 * and its restart registers as after an unclean shutdown (KIP-966).
 */
import pino from 'pino';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { QuorumController } from '../../../src/controller/controller.js';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { MetadataPublisher } from '../../../src/controller/metadata/publisher.js';
import { ReplicaManager } from '../../../src/replication/replica-manager.js';
import { ReplicaFetcherManager } from '../../../src/replication/replica-fetcher-manager.js';
import type { ReplicaFetchRequest, ReplicaFetchResponse } from '../../../src/replication/replica-fetcher.js';
import type { IsrChangeOutcome, IsrChangeProposal, Partition } from '../../../src/replication/partition.js';
import type { TopicRules } from '../../../src/replication/topic-rules.js';
import { DEFAULT_LOG_CONFIG } from '../../../src/storage/config.js';
import { LogManager } from '../../../src/storage/log-manager.js';
import { MemoryFileSystem } from '../../../src/storage/memory-fs.js';
import { VirtualTimers } from '../../helpers/virtual-timers.js';
import { MemoryMetadataLog, newTopic } from '../../unit/controller/fixtures.js';

export const BROKER_IDS = [1, 2, 3] as const;
export const TOPIC = 'sim';
export const PARTITIONS = 2;
export const MIN_ISR = 2;
export const SESSION_TIMEOUT_MS = 600;
const HEARTBEAT_MS = 100;
const CONTROLLER_TICK_MS = 100;
const METADATA_MS = 80;
const LAG_TIME_MAX_MS = 500;

const RULES: TopicRules = {
  maxMessageBytes: 1_048_588, segmentBytes: 4096, messageTimestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: MIN_ISR, compacted: false,
};

/** The network between two endpoints (broker ids, or 0 = the controller and clients' side). */
export class SimNetwork {
  /** Nodes cut off from everyone. */
  readonly isolated = new Set<number>();
  dropRate = 0;
  constructor(private readonly random: SeededRandom, private readonly timers: VirtualTimers) {}

  /** Delivers `fn` after a random delay, unless the message is lost. Returns false when it was dropped. */
  send(from: number, to: number, fn: () => void): boolean {
    if (this.isolated.has(from) || this.isolated.has(to) || this.random.next() < this.dropRate) return false;
    this.timers.schedule(1 + this.random.int(8), () => {
      // A partition that started while the message was on its way loses it too.
      if (!this.isolated.has(from) && !this.isolated.has(to)) fn();
    });
    return true;
  }
}

export class SimBroker {
  fs = new MemoryFileSystem();
  rm!: ReplicaManager;
  fetchers!: ReplicaFetcherManager;
  alive = false;
  brokerEpoch = -1n;
  /** Bumped per start: messages and timers of an earlier life are ignored. */
  life = 0;
  private incarnation = 0;

  constructor(readonly id: number, private readonly world: SimWorld) {}

  async start(clean: boolean): Promise<void> {
    const w = this.world;
    this.life++;
    const life = this.life;
    const { manager } = LogManager.open({ fs: this.fs, clock: w.clock, dataDir: '/data', defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 4096 } });
    this.rm = new ReplicaManager({
      logManager: manager, localNodeId: this.id, logConfigFor: () => ({ ...DEFAULT_LOG_CONFIG, segmentBytes: 4096 }), topicRules: () => RULES,
      topicExists: () => true, clock: w.clock, timers: w.timers, logger: w.logger, replicaLagTimeMaxMs: LAG_TIME_MAX_MS,
      isReplicaEligible: (id) => {
        const b = w.image.broker(id);
        return b !== undefined && !b.fenced && !b.inControlledShutdown;
      },
      alterPartition: (p, proposal) => this.alterPartition(life, p, proposal),
    });
    this.fetchers = new ReplicaFetcherManager({
      logs: this.rm, clock: w.clock, timers: w.timers, logger: w.logger,
      transport: { fetch: (leaderId, req) => w.fetch(this.id, life, leaderId, req), release: () => undefined },
      options: { maxWaitMs: 200, backoffMs: 100 },
    });
    this.rm.onFollowerChange((p) => this.fetchers.partitionChanged(p));
    this.alive = true;
    this.incarnation++;
    const reg = await w.controller.registerBroker({
      brokerId: this.id, incarnationId: Buffer.alloc(16, this.id * 16 + this.incarnation).toString('base64url'), endpoints: [], rack: null,
      previousBrokerEpoch: clean ? this.brokerEpoch : -1n,
    });
    if (reg.errorCode !== ErrorCode.NONE) throw new Error(`broker ${this.id} registration: ${reg.errorCode}`);
    this.brokerEpoch = reg.brokerEpoch;
    this.loop(life, HEARTBEAT_MS, () => this.heartbeat(life));
    this.loop(life, METADATA_MS, () => this.applyMetadata());
    this.loop(life, LAG_TIME_MAX_MS / 2, () => this.rm.shrinkIsrs());
  }

  /**
   * The process dies (kill -9): what it wrote stays, as the page cache
   * survives a process. With `powerLoss`, what was not fsynced is gone too
   * (a torn tail may remain).
   */
  crash(powerLoss: boolean): void {
    this.alive = false;
    this.life++;
    this.fetchers.shutdown();
    this.rm.wakeDelayedFetches();
    // Without a power loss the files keep every write (the dead process's handles simply go unused).
    if (powerLoss) this.fs.crash(this.world.random);
  }

  private loop(life: number, everyMs: number, fn: () => void): void {
    this.world.timers.schedule(everyMs, () => {
      if (this.life !== life) return;
      fn();
      this.loop(life, everyMs, fn);
    });
  }

  private heartbeat(life: number): void {
    const w = this.world;
    w.net.send(this.id, 0, () => {
      if (this.life !== life) return;
      void w.controller.brokerHeartbeat({ brokerId: this.id, brokerEpoch: this.brokerEpoch, currentMetadataOffset: w.image.lastAppliedOffset, wantFence: false, wantShutDown: false });
    });
  }

  /** The metadata this broker follows: every partition's state from the controller's image (when reachable). */
  private applyMetadata(): void {
    const w = this.world;
    if (w.net.isolated.has(this.id)) return;
    const t = w.image.topicByName(TOPIC);
    if (t === undefined) return;
    for (const p of t.partitions.values()) {
      this.rm.applyAssignment({ topic: TOPIC, topicId: t.topicId, partition: p.partitionId, leader: p.leader, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, replicas: p.replicas, isr: p.isr });
    }
  }

  private alterPartition(life: number, p: Partition, proposal: IsrChangeProposal): Promise<IsrChangeOutcome> {
    const w = this.world;
    return new Promise<IsrChangeOutcome>((resolve) => {
      const lost = (): void => resolve({ kind: 'failed', errorCode: ErrorCode.REQUEST_TIMED_OUT });
      const timeout = w.timers.schedule(500, lost);
      w.net.send(this.id, 0, () => {
        void w.controller.alterPartition({
          version: 3, brokerId: this.id, brokerEpoch: this.brokerEpoch,
          topics: [{ topicName: p.topic, topicId: p.topicId, partitions: [{
            partitionIndex: p.partition, leaderEpoch: proposal.leaderEpoch, partitionEpoch: proposal.partitionEpoch, leaderRecoveryState: 0,
            newIsr: proposal.newIsr.map((brokerId) => ({ brokerId, brokerEpoch: w.image.broker(brokerId)?.brokerEpoch ?? -1n })),
          }] }],
        }).then((reply) => {
          w.net.send(0, this.id, () => {
            if (this.life !== life) return;
            timeout.cancel();
            const r = reply.topics[0]?.partitions[0];
            if (reply.errorCode !== ErrorCode.NONE || r === undefined || r.errorCode !== ErrorCode.NONE) {
              resolve({ kind: 'failed', errorCode: reply.errorCode || (r?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR) });
            } else {
              resolve({ kind: 'committed', leaderEpoch: r.leaderEpoch, partitionEpoch: r.partitionEpoch, isr: r.isr });
            }
          });
        }, lost);
      });
    });
  }
}

export class SimWorld {
  readonly random: SeededRandom;
  readonly clock = new ManualClock();
  readonly timers = new VirtualTimers(this.clock);
  readonly logger = pino({ level: 'silent' });
  readonly image = new MetadataImage('sim');
  readonly net: SimNetwork;
  controller!: QuorumController;
  readonly brokers = new Map<number, SimBroker>();
  topicId = '';

  constructor(readonly seed: number, readonly uncleanElection = false) {
    this.random = new SeededRandom(seed);
    this.net = new SimNetwork(this.random, this.timers);
    for (const id of BROKER_IDS) this.brokers.set(id, new SimBroker(id, this));
  }

  broker(id: number): SimBroker {
    return this.brokers.get(id) as SimBroker;
  }

  async start(): Promise<void> {
    const log = new MemoryMetadataLog();
    const publisher = new MetadataPublisher(this.image, (e) => {
      throw e;
    });
    await log.start(publisher.handleCommit);
    publisher.finishLoad();
    this.controller = new QuorumController({
      nodeId: 100, log, image: this.image, random: new SeededRandom(this.seed + 1), numPartitionsDefault: 1, replicationFactorDefault: 3,
      validateTopicConfigs: () => [], clock: this.clock, brokerSessionTimeoutMs: SESSION_TIMEOUT_MS, uncleanLeaderElectionDefault: this.uncleanElection,
    });
    this.controller.becomeActive();
    for (const b of this.brokers.values()) await b.start(true);
    for (const b of this.brokers.values()) {
      await this.controller.brokerHeartbeat({ brokerId: b.id, brokerEpoch: b.brokerEpoch, currentMetadataOffset: this.image.lastAppliedOffset, wantFence: false, wantShutDown: false });
    }
    const [r] = await this.controller.createTopics([newTopic(TOPIC, { numPartitions: PARTITIONS, replicationFactor: 3, configs: [{ name: 'min.insync.replicas', value: String(MIN_ISR) }] })], { validateOnly: false });
    if (r?.errorCode !== ErrorCode.NONE) throw new Error(`create topic: ${r?.errorMessage}`);
    this.topicId = this.image.topicByName(TOPIC)?.topicId ?? '';
    const tick = (): void => {
      void this.controller.tick();
      this.timers.schedule(CONTROLLER_TICK_MS, tick);
    };
    this.timers.schedule(CONTROLLER_TICK_MS, tick);
  }

  /** A follower's Fetch to `leaderId` over the network; rejects when lost (after a timeout, as a socket would). */
  fetch(from: number, life: number, leaderId: number, req: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
    return new Promise<ReplicaFetchResponse>((resolve, reject) => {
      const timeout = this.timers.schedule(req.maxWaitMs + 1_000, () => reject(new Error('fetch timed out')));
      this.net.send(from, leaderId, () => {
        const leader = this.broker(leaderId);
        if (!leader.alive) return;
        void serveFetch(leader.rm, req).then((res) => {
          this.net.send(leaderId, from, () => {
            if (this.broker(from).life !== life) return;
            timeout.cancel();
            resolve(res);
          });
        }, () => undefined);
      });
    });
  }
}

/** The leader side of a follower fetch, as the broker's Fetch handler runs it. */
export async function serveFetch(leader: ReplicaManager, req: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
  const byTopic = new Map<string, ReplicaFetchRequest['partitions'][number][]>();
  for (const p of req.partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
  const r = await leader.fetchRecords({
    replicaId: req.replicaId,
    topics: [...byTopic].map(([topic, ps]) => ({
      topic,
      partitions: ps.map((p) => ({ partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch })),
    })),
    readCommitted: false, maxBytes: req.maxBytes, minBytes: req.minBytes, maxWaitMs: req.maxWaitMs,
  });
  return {
    errorCode: ErrorCode.NONE,
    partitions: r.topics.flatMap((t) => t.partitions.map((p) => ({
      topic: t.topic, partition: p.partition, errorCode: p.errorCode, highWatermark: p.highWatermark, logStartOffset: p.logStartOffset,
      records: p.bytes === 0 ? null : Buffer.concat(p.chunks), divergingEpoch: p.divergingEpoch ?? null,
    }))),
  };
}

/**
 * One Jepsen-style run of the replication chaos suite: a 3-node cluster of
 * real processes behind a partitionable network (node-network.ts), a topic
 * with the given replication factor and min.insync.replicas, a consumer
 * group reading it, librdkafka and our Producer writing to it (load.ts),
 * a fault schedule (the scenario), then every partition read back and the
 * whole history checked (checker.ts). Prints the seed, the checker's counts
 * and the availability (longest gap between acknowledgements after each
 * fault).
 *
 * Seeds: REPLICATION_CHAOS_SEED=n replays the fault schedule of a run (which
 * partition's leader, which node, the order of a rolling restart); the
 * timing of real processes is not replayed.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRandom, type Random } from '../../../src/util/random.js';
import { startCluster, type ClusterProcess } from '../../helpers/cluster-process.js';
import { createTopicsV3Request, parseCreateTopicsV3Response, rawRequest, waitForLeaders } from '../../helpers/raw-kafka.js';
import { availability, checkHistory, describeViolations, type AckedRecord, type Availability, type CheckResult, type Fault } from './checker.js';
import { groupReader, librdkafkaLoad, ourProducerLoad, readBack, type LoadResult } from './load.js';

export const INVALID_REPLICATION_FACTOR = 38;
export const SEED_VARIABLE = 'REPLICATION_CHAOS_SEED';
export const NODES: readonly number[] = [1, 2, 3];
/** Node starts and readiness may take this long: the suite runs beside others on two shared cores. */
export const CHAOS_READY_TIMEOUT_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Configs of every node of a chaos cluster, over the fast quorum/session timeouts of cluster-process.ts. */
export const CHAOS_NODE_CONFIG: Readonly<Record<string, string>> = {
  'group.initial.rebalance.delay.ms': '0',
  'offsets.topic.num.partitions': '1',
  'log.level': 'warn',
};

export interface TopicSettings {
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
  readonly partitions: number;
}

/** Creates the topic; the broker's refusal message when it answers INVALID_REPLICATION_FACTOR (any other error throws). */
export async function createChaosTopic(port: number, name: string, s: TopicSettings): Promise<string | null> {
  const frame = createTopicsV3Request(1, [{ name, partitions: s.partitions, replicationFactor: s.replicationFactor, configs: { 'min.insync.replicas': String(s.minInsyncReplicas) } }]);
  const [answer] = parseCreateTopicsV3Response(await rawRequest(port, frame, 15_000));
  if (answer?.errorCode === INVALID_REPLICATION_FACTOR) return `replication factor ${s.replicationFactor} is refused by the brokers (INVALID_REPLICATION_FACTOR: ${answer.errorMessage ?? ''})`;
  if (answer === undefined || answer.errorCode !== 0) throw new Error(`CreateTopics ${name}: error ${answer?.errorCode} ${answer?.errorMessage ?? ''}`);
  await waitForLeaders(port, [name], 15_000);
  return null;
}

/** Whether a 3-node cluster refuses topics of `replicationFactor` today (one short-lived cluster). */
export async function replicationRefused(replicationFactor: number, minInsyncReplicas: number): Promise<string | null> {
  const cluster = await startCluster({ name: 'rf-probe', overrides: CHAOS_NODE_CONFIG, readyTimeoutMs: CHAOS_READY_TIMEOUT_MS });
  try {
    return await createChaosTopic(cluster.node(1).port, 'rf-probe', { replicationFactor, minInsyncReplicas, partitions: 1 });
  } finally {
    await cluster.cleanup();
  }
}

/** The seed of this run: REPLICATION_CHAOS_SEED, else drawn. */
export function chaosSeed(): number {
  const raw = process.env[SEED_VARIABLE];
  if (raw === undefined || raw === '') return 1 + Math.floor(Math.random() * 1_000_000_000);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${SEED_VARIABLE}=${raw}: expected a non-negative integer`);
  return n;
}

/** What a scenario's fault schedule gets. */
export interface FaultContext {
  readonly cluster: ClusterProcess;
  readonly topic: string;
  readonly partitions: number;
  readonly random: Random;
  /** Records a fault (or a heal) at this moment, for the availability report. */
  mark(name: string): void;
  /** The partition's leader as a node that is up and not partitioned sees it (-1: none). */
  leaderOf(partition: number): Promise<number>;
  /** Starts a stopped or killed node and waits until every node lists all three brokers. */
  bringBack(id: number): Promise<void>;
  sleep(ms: number): Promise<void>;
}

export interface Scenario {
  readonly name: string;
  /** Error logs the fault provokes on purpose (ClusterOptions.allowErrorLogs). */
  readonly allowErrorLogs?: readonly RegExp[];
  /** The fault schedule; it returns with every node up and connected again. */
  faults(ctx: FaultContext): Promise<void>;
}

/** The producers start WARMUP_MS before the faults and stop TAIL_MS after them (LOAD_MS_MAX at most). */
const WARMUP_MS = 2_000;
const TAIL_MS = 4_000;
const LOAD_MS_MAX = 90_000;

export interface ScenarioReport {
  readonly seed: number;
  readonly check: CheckResult;
  /** Availability over all partitions. */
  readonly availability: readonly Availability[];
  /** Per fault, the partition with the longest gap between its own acknowledgements, and that gap. */
  readonly worstPartition: readonly (Availability & { partition: number })[];
  readonly loads: readonly LoadResult[];
  readonly readerErrors: readonly string[];
  readonly faults: readonly Fault[];
}

export interface RunOptions extends TopicSettings {
  /** Records/s of each producer. */
  readonly rate?: number;
  readonly allowErrorLogs?: readonly RegExp[];
}

function faultContext(cluster: ClusterProcess, topic: string, options: RunOptions, random: Random, faults: Fault[]): FaultContext {
  return {
    cluster,
    topic,
    partitions: options.partitions,
    random,
    mark: (name) => void faults.push({ name, atMs: Date.now() }),
    async leaderOf(partition) {
      const cut = new Set(cluster.network?.partitioned ?? []);
      for (const id of NODES) {
        if (!cluster.node(id).isAlive() || cut.has(id)) continue;
        try {
          const md = await cluster.metadata(id, 2_000);
          return md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leader ?? -1;
        } catch {
          // the next node
        }
      }
      return -1;
    },
    async bringBack(id) {
      if (!cluster.node(id).isAlive()) await cluster.node(id).start();
      await cluster.waitForBrokers([...NODES], [...NODES], CHAOS_READY_TIMEOUT_MS);
    },
    sleep,
  };
}

function worstPartitionGaps(acked: readonly AckedRecord[], partitions: number, faults: readonly Fault[], endMs: number): (Availability & { partition: number })[] {
  const per = Array.from({ length: partitions }, (_, p) => availability(acked.filter((a) => a.partition === p).map((a) => a.atMs), faults, endMs));
  return faults.map((_, i) => {
    let best = { ...per[0]![i]!, partition: 0 };
    per.forEach((list, p) => {
      if (list[i]!.longestGapMs > best.longestGapMs) best = { ...list[i]!, partition: p };
    });
    return best;
  });
}

function describeLoad(r: LoadResult): string {
  const failed = Object.entries(r.failed).map(([k, v]) => `${k} x${v}`).join(', ') || 'none';
  return `${r.producer}: sent ${r.sent}, acked ${r.acked.length}, failed ${failed}, unanswered ${r.unanswered}${r.fatal === null ? '' : `, fatal ${r.fatal}${librdkafkaSequenceBug(r) ? ' (librdkafka < 2.3.0 after a dropped connection, librdkafka#4438: excused, the log is still checked)' : ''}`}`;
}

/** Runs one scenario; null when the topic's replication factor is refused (the test is then skipped with the reason). */
export async function runScenario(t: TestContext, scenario: Scenario, options: RunOptions): Promise<ScenarioReport | null> {
  const seed = chaosSeed();
  const random = new SeededRandom(seed);
  const began = Date.now();
  const allowErrorLogs = [...(options.allowErrorLogs ?? []), ...(scenario.allowErrorLogs ?? [])];
  const cluster = await startCluster({ name: `chaos-${scenario.name}`, network: true, overrides: CHAOS_NODE_CONFIG, allowErrorLogs, readyTimeoutMs: CHAOS_READY_TIMEOUT_MS });
  t.after(() => cluster.cleanup());
  const topic = `chaos-${scenario.name}`;
  const refused = await createChaosTopic(cluster.node(1).port, topic, options);
  if (refused !== null) {
    t.skip(refused);
    return null;
  }
  const started = Date.now();
  const rate = options.rate ?? 100;
  const reader = await groupReader(cluster.bootstrap, topic, `${topic}-readers`);
  const faults: Fault[] = [];
  const load = { bootstrap: cluster.bootstrap, topic, partitions: options.partitions, count: Math.ceil((rate * LOAD_MS_MAX) / 1000), rate, durationMs: LOAD_MS_MAX };
  const loads = [librdkafkaLoad({ ...load, producer: 'rdk' }), ourProducerLoad({ ...load, producer: 'ours' })];
  await sleep(WARMUP_MS);
  try {
    await scenario.faults(faultContext(cluster, topic, options, random, faults));
    await sleep(TAIL_MS);
  } finally {
    for (const l of loads) l.stop();
  }
  const loadEnd = Date.now();
  const results = await Promise.all(loads.map((l) => l.done));
  cluster.network?.heal();
  for (const id of NODES) if (!cluster.node(id).isAlive()) await cluster.node(id).start();
  await cluster.waitForBrokers([...NODES], [...NODES], CHAOS_READY_TIMEOUT_MS);
  const acked = results.flatMap((r) => r.acked);
  const deadline = Date.now() + 10_000;
  while (reader.seen.length < acked.length && Date.now() < deadline) await sleep(200);
  await reader.stop();
  const checking = Date.now();
  const logs = await readBack(cluster.bootstrap, topic, options.partitions);
  const check = checkHistory({ acked, logs, seen: reader.seen });
  const worst = worstPartitionGaps(acked, options.partitions, faults, loadEnd);
  const report: ScenarioReport = { seed, check, availability: availability(acked.map((a) => a.atMs), faults, loadEnd), worstPartition: worst, loads: results, readerErrors: reader.errors, faults };
  const lines = [
    `${scenario.name}: RF ${options.replicationFactor}, min ISR ${options.minInsyncReplicas}, seed ${seed} (replay the schedule with ${SEED_VARIABLE}=${seed})`,
    ...results.map(describeLoad),
    `log: ${check.logged} records (${check.unacknowledgedPresent} never acknowledged); consumers saw ${check.seen}; violations: ${check.violations.length}`,
    ...(reader.errors.length > 0 ? [`consumer errors (${reader.errors.length}): ${[...new Set(reader.errors)].slice(0, 3).join(' | ')}`] : []),
    ...report.availability.map((a, i) => `availability after ${a.fault}: longest gap between acks ${a.longestGapMs} ms (${a.acks} acks in its window); in one partition ${worst[i]?.longestGapMs ?? '?'} ms (p${worst[i]?.partition ?? '?'})`),
    `timing: cluster start ${started - began} ms, load and faults ${loadEnd - started} ms, catch-up ${checking - loadEnd} ms, read back and check ${Date.now() - checking} ms`,
  ];
  for (const line of lines) t.diagnostic(line);
  return report;
}

/** Both producers got acknowledgements through the faults without a fatal error, the group read, and the checker found nothing. */
export function assertClean(report: ScenarioReport): void {
  for (const load of report.loads) assert.ok(load.acked.length > 0, `${load.producer} got acknowledgements`);
  // A fatal producer error (librdkafka's OUT_OF_ORDER_SEQUENCE_NUMBER...) means the broker broke idempotence,
  // with one exception: librdkafka's own bug of a request whose connection dropped (librdkafkaSequenceBug).
  for (const load of report.loads) {
    if (librdkafkaSequenceBug(load)) continue;
    assert.equal(load.fatal, null, `${load.producer}: fatal producer error${load.fatalReason === null ? '' : ` (${load.fatalReason})`}`);
  }
  assert.ok(report.faults.length > 0, 'the faults happened');
  assert.ok(report.check.seen > 0, 'the consumer group read records');
  assert.equal(report.check.violations.length, 0, `seed ${report.seed}:\n${describeViolations(report.check.violations)}`);
}

/**
 * librdkafka before 2.3.0 (Debian ships 2.0.2) treats a request lost with its
 * connection (a "possibly persisted" error: the network partition's heal
 * resets the links) as if it had been persisted: it moves its next sequence
 * past it and sends the following batch, the new leader (which never got the
 * lost one) answers OUT_OF_ORDER_SEQUENCE_NUMBER for the gap, as Kafka's
 * broker does, and librdkafka raises a fatal "sequence desynchronization"
 * error naming that transport error (fixed in librdkafka by
 * confluentinc/librdkafka#4438). Only that exact signature is excused; the
 * checker's verdict on the log (nothing acknowledged lost, duplicated or
 * reordered) still applies in full.
 */
export function librdkafkaSequenceBug(load: Pick<LoadResult, 'producer' | 'fatal' | 'fatalReason'>): boolean {
  return load.producer === 'rdk'
    && load.fatal === 'OUT_OF_ORDER_SEQUENCE_NUMBER'
    && /sequence desynchronization with broker .*last partition error _TRANSPORT \(actions [^)]*MsgPossiblyPersisted/.test(load.fatalReason ?? '');
}

/**
 * Transactions through real process faults, Jepsen-style (issue 13,
 * "Tests"): a 3-node cluster of real processes, input and output topics
 * with replication factor 3 and min.insync.replicas 2, and a
 * consume-transform-produce loop (ctp-load.ts: transactional Producers,
 * read_committed Consumers, offsets sent with each transaction) running
 * through, in an order drawn from the seed:
 *
 * - kill -9 of the transaction coordinator of one worker's transactional id
 *   (the leader of its `__transaction_state` partition), restarted later;
 * - kill -9 of the leader of an output partition, restarted later;
 * - SIGSTOP of a node for a few seconds, then SIGCONT.
 *
 * Then the workers finish their input, the output is read back
 * read_committed, and ctp-checker.ts checks: no duplicates, no aborted
 * reads, no partial or lost committed transactions, and the committed
 * offsets match what was produced.
 *
 * Seeds: TXN_CHAOS_SEED=n replays the fault schedule (order and victims);
 * the timing of real processes is not replayed. The seed is printed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { Connection } from '../../../src/net/connection.js';
import { findCoordinatorOnce } from '../../../src/client/group-apis.js';
import { SeededRandom, type Random } from '../../../src/util/random.js';
import { startCluster, type ClusterProcess } from '../../helpers/cluster-process.js';
import { CHAOS_NODE_CONFIG, CHAOS_READY_TIMEOUT_MS, NODES } from '../replication/scenario.js';
import { checkTransactions } from './ctp-checker.js';
import { committedOffsets, liveReader, readCommitted, startWorkers } from './ctp-load.js';

const SEED_VARIABLE = 'TXN_CHAOS_SEED';
const PARTITIONS = 3;
const INPUT_PER_PARTITION = 300;
/** How long a victim stays down or paused: past the session timeout of the test clusters (2 s). */
const OUTAGE_MS = 5_000;
const WARMUP_MS = 3_000;
/** The workers stop at this deadline (from their start) whether done or not. */
const WORK_MS_MAX = 100_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function seedOf(): number {
  const raw = process.env[SEED_VARIABLE];
  if (raw === undefined || raw === '') return 1 + Math.floor(Math.random() * 1_000_000_000);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${SEED_VARIABLE}=${raw}: expected a non-negative integer`);
  return n;
}

interface Ctx {
  readonly cluster: ClusterProcess;
  readonly random: Random;
  readonly output: string;
  readonly transactionalIdPrefix: string;
  readonly log: string[];
  readonly began: number;
}

/**
 * Records a step of the run, and writes it to stderr at once: the summary
 * diagnostics come only at the end, so a run that hangs until the test's
 * timeout shows in the CI log where it stood.
 */
function step(ctx: Pick<Ctx, 'log' | 'began'>, line: string, keep = true): void {
  if (keep) ctx.log.push(line);
  process.stderr.write(`[ctp-processes +${Date.now() - ctx.began} ms] ${line}\n`);
}

/** The first live node's answer to `ask`. */
async function fromLiveNode<T>(cluster: ClusterProcess, ask: (port: number) => Promise<T>): Promise<T> {
  let last: unknown = null;
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const id of NODES) {
      if (!cluster.node(id).isAlive()) continue;
      try {
        return await ask(cluster.node(id).port);
      } catch (err) {
        last = err;
      }
    }
    await sleep(200);
  }
  throw new Error(`no live node answered: ${String(last)}`);
}

async function coordinatorOf(cluster: ClusterProcess, transactionalId: string): Promise<number> {
  return fromLiveNode(cluster, async (port) => {
    const conn = await Connection.connect({ host: '127.0.0.1', port, connectTimeoutMs: 1_000, requestTimeoutMs: 3_000 });
    try {
      return (await findCoordinatorOnce(conn, transactionalId, 1)).nodeId;
    } finally {
      conn.destroy();
    }
  });
}

async function leaderOf(cluster: ClusterProcess, topic: string, partition: number): Promise<number> {
  return fromLiveNode(cluster, async (port) => {
    const id = NODES.find((n) => cluster.node(n).port === port)!;
    const leader = (await cluster.metadata(id, 2_000)).topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leader ?? -1;
    if (leader < 0) throw new Error(`${topic}-${partition} has no leader`);
    return leader;
  });
}

async function bringBack(ctx: Ctx, id: number): Promise<void> {
  step(ctx, `bringing node ${id} back`, false);
  if (!ctx.cluster.node(id).isAlive()) await ctx.cluster.node(id).start();
  await ctx.cluster.waitForBrokers([...NODES], [...NODES], CHAOS_READY_TIMEOUT_MS);
  step(ctx, `node ${id} is back and every node registered`, false);
}

const FAULTS: Record<string, (ctx: Ctx) => Promise<void>> = {
  async coordinatorKill(ctx) {
    const id = `${ctx.transactionalIdPrefix}-${ctx.random.int(PARTITIONS)}`;
    const victim = await coordinatorOf(ctx.cluster, id);
    await ctx.cluster.node(victim).kill9();
    step(ctx, `kill -9 of node ${victim} (transaction coordinator of ${id})`);
    await sleep(OUTAGE_MS);
    await bringBack(ctx, victim);
  },
  async partitionLeaderKill(ctx) {
    const partition = ctx.random.int(PARTITIONS);
    const victim = await leaderOf(ctx.cluster, ctx.output, partition);
    await ctx.cluster.node(victim).kill9();
    step(ctx, `kill -9 of node ${victim} (leader of ${ctx.output}-${partition})`);
    await sleep(OUTAGE_MS);
    await bringBack(ctx, victim);
  },
  async pause(ctx) {
    const victim = NODES[ctx.random.int(NODES.length)]!;
    ctx.cluster.pause(victim);
    step(ctx, `SIGSTOP of node ${victim}`);
    await sleep(OUTAGE_MS);
    ctx.cluster.resume(victim);
    step(ctx, `SIGCONT of node ${victim}`);
    await bringBack(ctx, victim);
  },
};

async function fillInput(bootstrap: string, topic: string): Promise<void> {
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap }, keySerializer: Serializers.string, valueSerializer: Serializers.string });
  try {
    const records = [];
    for (let p = 0; p < PARTITIONS; p++) for (let i = 0; i < INPUT_PER_PARTITION; i++) records.push({ topic, partition: p, key: `k${i % 17}`, value: `${p}:${i}` });
    await producer.sendBatch(records);
  } finally {
    await producer.close();
  }
}

test('consume-transform-produce through kill -9 of the coordinator and of leaders, and SIGSTOP', { timeout: 300_000 }, async (t) => {
  const seed = seedOf();
  const random = new SeededRandom(seed);
  t.diagnostic(`seed ${seed} (replay the fault schedule with ${SEED_VARIABLE}=${seed})`);
  const cluster = await startCluster({
    name: 'txn-ctp',
    overrides: { ...CHAOS_NODE_CONFIG, 'transaction.state.log.num.partitions': '5', 'transaction.abort.timed.out.transaction.cleanup.interval.ms': '1000' },
    readyTimeoutMs: CHAOS_READY_TIMEOUT_MS,
  });
  t.after(() => cluster.cleanup());
  const [input, output, groupId, prefix] = ['ctp-in', 'ctp-out', 'ctp-group', 'ctp'];
  const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  try {
    for (const name of [input, output]) await admin.createTopic({ name, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
  } finally {
    await admin.close();
  }
  await fillInput(cluster.bootstrap, input);
  const began = Date.now();
  const reader = liveReader(cluster.bootstrap, output, PARTITIONS);
  // Stopped below; also when the test fails before that, so its consumer cannot keep this process alive.
  t.after(() => reader.stop());
  const workload = startWorkers({ bootstrap: cluster.bootstrap, input, output, outputPartitions: PARTITIONS, groupId, transactionalIdPrefix: prefix, inputCount: INPUT_PER_PARTITION, deadlineMs: began + WORK_MS_MAX }, PARTITIONS);
  await sleep(WARMUP_MS);
  const order = Object.keys(FAULTS);
  for (let i = order.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const log: string[] = [];
  const ctx: Ctx = { cluster, random, output, transactionalIdPrefix: prefix, log, began };
  const statusTimer = setInterval(() => {
    for (const line of workload.status()) step(ctx, line, false);
  }, 15_000);
  t.after(() => clearInterval(statusTimer));
  for (const name of order) await FAULTS[name]!(ctx);
  const faultsEnd = Date.now();
  step(ctx, 'faults done; waiting for the workers', false);
  const workers = await workload.done.finally(() => clearInterval(statusTimer));
  const workEnd = Date.now();
  step(ctx, 'workers done; reading the output back', false);
  const finalRead = await readCommitted(cluster.bootstrap, output, PARTITIONS, 60_000);
  step(ctx, `output read back (${finalRead.length} records); waiting for the live reader`, false);
  // The live reader must catch up with the final read (a read_committed consumer that stalls after a fault is a bug too).
  const caughtUpBy = Date.now() + 20_000;
  while (reader.seen.length < finalRead.length && Date.now() < caughtUpBy) await sleep(200);
  await reader.stop();
  const livePerPartition = Array.from({ length: PARTITIONS }, (_, p) => `${reader.seen.filter((r) => r.partition === p).length}/${finalRead.filter((r) => r.partition === p).length}`);
  const committed = await committedOffsets(cluster.bootstrap, groupId, input, PARTITIONS);
  const check = checkTransactions({
    inputPartitions: PARTITIONS,
    inputCount: INPUT_PER_PARTITION,
    transactions: workers.flatMap((w) => w.transactions),
    finalRead,
    liveRead: reader.seen,
    committed,
    complete: workers.every((w) => w.done),
  });
  for (const line of [
    `faults: ${log.join('; ')} (${faultsEnd - began} ms)`,
    ...workers.map((w) => {
      // How far it got (the input offset after its last committed transaction) and its last errors: what a stalled worker was stuck on.
      const reached = Math.max(0, ...w.transactions.filter((x) => x.outcome === 'committed').map((x) => Math.max(...x.inputOffsets) + 1));
      const errors = [...new Set(w.errors.map((e) => e.replace(/\d+\/\d+\/\d+/g, 'L')))];
      return `worker ${w.partition}: ${w.done ? 'done' : 'NOT done'}, input committed to ${reached}/${INPUT_PER_PARTITION}, ${w.transactions.length} transactions, ${w.incarnations} incarnations; errors (first and last): ${[...errors.slice(0, 2), ...errors.slice(2).slice(-3)].join(' | ') || 'none'}`;
    }),
    `transactions: ${JSON.stringify(check.counts)}; output read back: ${finalRead.length} records; live reader saw ${livePerPartition.join(' ')} per partition (errors ${reader.errors.length}: ${reader.errors.slice(0, 2).join(' | ')}); committed offsets ${committed.join(',')}`,
    `timing: work ${workEnd - began} ms`,
  ]) t.diagnostic(line);
  assert.ok(workers.every((w) => w.done), `seed ${seed}: every worker finished its input within ${WORK_MS_MAX} ms`);
  assert.ok(check.counts.committed > 0 && check.counts.aborted > 0, 'transactions were both committed and aborted');
  assert.equal(reader.seen.length, finalRead.length, `seed ${seed}: the live read_committed reader caught up (${livePerPartition.join(' ')})`);
  assert.deepEqual(check.violations.slice(0, 20), [], `seed ${seed}: ${check.violations.length} violation(s)`);
});

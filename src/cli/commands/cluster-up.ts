/**
 * `tributary cluster up`: a multi-node combined cluster (every node broker and
 * controller) on this machine, as child processes, plus optional broker-only
 * nodes (process.roles=broker: Raft observers of the metadata quorum).
 *
 *   tributary cluster up --nodes 3 [--brokers 1] [--dir ./cluster] [--base-port 9092] [--detach]
 *
 * Node i (1-based) gets node.id=i, PLAINTEXT on base+2(i-1), CONTROLLER on
 * base+2(i-1)+1 (combined nodes only: broker-only nodes n+1..n+m have no
 * controller listener and are not voters), data in <dir>/node-<i>, its config in <dir>/node-<i>.properties
 * (so one node can be restarted by hand: `tributary start <dir>/node-2.properties`)
 * and its log in <dir>/node-<i>.log. All share one cluster id, kept in
 * <dir>/cluster.id (re-used when the cluster is brought up again).
 *
 * In the foreground, Ctrl-C / SIGTERM stops every node (SIGTERM, then
 * SIGKILL after a grace period). With --detach the nodes keep running;
 * their pids are in <dir>/pids and `tributary cluster down --dir <dir>`
 * stops them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { resolve, join } from 'node:path';
import type { Command } from 'commander';
import { NODES_MAX, planCluster, type ClusterLayout } from '../../embedded/cluster-plan.js';
import { launchCluster, type LaunchedCluster } from '../../embedded/launcher.js';
import { cliRunner } from '../../embedded/node-runner.js';
import { portAccepts } from '../../embedded/probe.js';
import { EXIT_RUNTIME, collectKeyValue, nonNegativeInt, positiveInt, usageError, withExamples, writeOut } from './common.js';

export { NODES_MAX } from '../../embedded/cluster-plan.js';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;
const POLL_MS = 100;

interface UpOptions {
  nodes: number;
  brokers: number;
  dir: string;
  basePort: number;
  host: string;
  detach?: boolean;
  override?: Record<string, string>;
}

async function checkFree(cmd: Command, layout: ClusterLayout, pidFile: string, dir: string): Promise<void> {
  if (existsSync(pidFile)) usageError(cmd, `${pidFile} exists: a detached cluster may be running there; run \`tributary cluster down --dir ${dir}\` first`);
  for (const node of layout.nodes) {
    if (await portAccepts(layout.host, node.brokerPort) || (node.controllerPort !== null && await portAccepts(layout.host, node.controllerPort))) {
      usageError(cmd, `port ${node.brokerPort}${node.controllerPort === null ? '' : ` or ${node.controllerPort}`} is in use; choose another --base-port`);
    }
  }
}

function summary(options: UpOptions, cluster: LaunchedCluster): string[] {
  const layout = cluster.layout;
  return [
    `Cluster ${layout.clusterId}: ${options.nodes} nodes (broker + controller)${options.brokers > 0 ? ` + ${options.brokers} broker-only` : ''}, data in ${layout.dir}`,
    ...cluster.nodes.map((n) => `  node ${n.id}  pid ${n.pid ?? '?'}  broker ${options.host}:${n.port}  ${n.controllerPort === null ? 'broker-only (observer)' : `controller ${options.host}:${n.controllerPort}`}  log ${n.layout.logFile}`),
    `Bootstrap: ${layout.bootstrap}`,
    `Voters:    ${layout.voters}`,
    `Status:    tributary cluster status --bootstrap ${layout.bootstrap}`,
  ];
}

async function up(options: UpOptions, cmd: Command): Promise<void> {
  const total = options.nodes + options.brokers;
  if (total > NODES_MAX) usageError(cmd, `--nodes + --brokers: at most ${NODES_MAX} nodes on one machine`);
  if (options.basePort + 2 * total - 1 > 65535) usageError(cmd, '--base-port: the ports do not fit below 65536');
  const layout = planCluster({ controllers: options.nodes, brokerOnly: options.brokers, dir: options.dir, host: options.host, ports: options.basePort });
  mkdirSync(layout.dir, { recursive: true });
  const pidFile = join(layout.dir, 'pids');
  await checkFree(cmd, layout, pidFile, options.dir);
  writeFileSync(join(layout.dir, 'cluster.id'), `${layout.clusterId}\n`);

  const main = process.argv[1];
  if (main === undefined) throw new Error('cannot tell which script runs tributary (process.argv[1] is empty)');
  const detach = options.detach === true;
  const cluster = launchCluster({
    layout,
    runner: cliRunner({ main, output: 'file', detached: detach, startTimeoutMs: READY_TIMEOUT_MS, stopTimeoutMs: STOP_GRACE_MS }),
    overrides: { ...replicationDefaults(layout.nodes.length), ...options.override },
    readyTimeoutMs: READY_TIMEOUT_MS,
    killOnExit: false,
    keepAlive: !detach,
    onUnexpectedExit: (node, exit) => {
      if (exit.code !== 0 && exit.signal === null) process.stderr.write(`node ${node.id} exited with code ${exit.code} (see ${node.layout.logFile})\n`);
    },
  });
  const stop = (): void => {
    void cluster.stop().then(() => rmSync(pidFile, { force: true }));
  };
  if (!detach) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  try {
    await cluster.start();
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message} (see the logs in ${layout.dir})\n`);
    await cluster.stop();
    process.exitCode = EXIT_RUNTIME;
    return;
  }
  const lines = summary(options, cluster);
  if (detach) {
    writeFileSync(pidFile, cluster.nodes.map((n) => String(n.pid)).join('\n') + '\n');
    await writeOut(`${lines.join('\n')}\nDetached; stop with: tributary cluster down --dir ${options.dir}\n`);
    return;
  }
  await writeOut(`${lines.join('\n')}\nPress Ctrl-C to stop every node.\n`);
  await Promise.all(cluster.nodes.map((n) => n.run?.exited));
}

async function down(options: { dir: string }, cmd: Command): Promise<void> {
  const pidFile = join(resolve(options.dir), 'pids');
  if (!existsSync(pidFile)) usageError(cmd, `no ${pidFile}: no detached cluster was started in ${options.dir}`);
  const pids = readFileSync(pidFile, 'utf8').split('\n').filter((l) => l.trim() !== '').map(Number);
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_GRACE_MS;
  while (pids.some(alive) && Date.now() < deadline) await sleep(POLL_MS);
  for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  await writeOut(`Stopped ${pids.length} nodes.\n`);
}

export function registerClusterUpCommands(cluster: Command): void {
  withExamples(cluster.command('up').description('start a multi-node cluster on this machine (child processes; Ctrl-C stops them)'), [
    'tributary cluster up --nodes 3',
    'tributary cluster up --nodes 3 --dir /tmp/trib --base-port 19092 --detach',
    'tributary cluster up --nodes 3 --brokers 2',
  ])
    .option('-n, --nodes <n>', 'number of nodes, each broker and controller', positiveInt('--nodes'), 3)
    .option('-b, --brokers <m>', 'extra broker-only nodes (process.roles=broker, not voters)', nonNegativeInt('--brokers'), 0)
    .option('-d, --dir <dir>', 'directory for data, configs and logs', './cluster')
    .option('-p, --base-port <port>', 'first port; node i uses base+2(i-1) (broker) and the next (controller)', positiveInt('--base-port'), 9092)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('-o, --override <key=value>', 'extra config for every node (repeatable)', collectKeyValue)
    .option('--detach', 'leave the nodes running in the background')
    .action(async (options: UpOptions, cmd: Command) => up(options, cmd));

  withExamples(cluster.command('down').description('stop a cluster started with `cluster up --detach`'), ['tributary cluster down --dir ./cluster'])
    .option('-d, --dir <dir>', 'the directory given to cluster up', './cluster')
    .action(async (options: { dir: string }, cmd: Command) => down(options, cmd));
}

/**
 * A cluster made to try replication replicates: topics created without a
 * replication factor get min(3, nodes) replicas, and acks=all needs two of
 * them (min.insync.replicas 2 from 3 nodes), so one node can fail without
 * losing an acknowledged record or stopping acks=all. `--override` wins.
 */
export function replicationDefaults(nodes: number): Record<string, string> {
  return {
    'default.replication.factor': String(Math.min(3, nodes)),
    'min.insync.replicas': String(nodes >= 3 ? 2 : 1),
  };
}

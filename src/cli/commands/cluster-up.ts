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
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, closeSync, writeFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve, join } from 'node:path';
import type { Command } from 'commander';
import { Connection } from '../../net/connection.js';
import { MetadataRequest, MetadataResponse } from '../../protocol/messages/03-metadata.js';
import { EXIT_RUNTIME, collectKeyValue, nonNegativeInt, positiveInt, usageError, withExamples, writeOut } from './common.js';

export const NODES_MAX = 9;
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;
const POLL_MS = 100;

export interface ClusterLayout {
  readonly dir: string;
  readonly clusterId: string;
  readonly nodes: readonly NodeLayout[];
  /** `controller.quorum.voters` */
  readonly voters: string;
  /** Broker listeners, comma-separated: what clients bootstrap from. */
  readonly bootstrap: string;
}

export interface NodeLayout {
  readonly id: number;
  readonly brokerPort: number;
  /** Null for a broker-only node (not a voter, no controller listener). */
  readonly controllerPort: number | null;
  readonly dataDir: string;
  readonly configFile: string;
  readonly logFile: string;
}

interface UpOptions {
  nodes: number;
  brokers: number;
  dir: string;
  basePort: number;
  host: string;
  detach?: boolean;
  override?: Record<string, string>;
}

/** A 22-character base64url uuid, as Kafka's cluster ids. */
function newClusterId(): string {
  const b = randomBytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  return b.toString('base64url');
}

/**
 * Ports, directories and the voter list of an n-node cluster (plus `brokers` broker-only
 * nodes after them); pure apart from reading an existing cluster.id.
 */
export function planCluster(n: number, dir: string, basePort: number, host = '127.0.0.1', brokers = 0): ClusterLayout {
  const abs = resolve(dir);
  const idFile = join(abs, 'cluster.id');
  const clusterId = existsSync(idFile) ? readFileSync(idFile, 'utf8').trim() : newClusterId();
  const nodes: NodeLayout[] = [];
  for (let i = 1; i <= n + brokers; i++) {
    nodes.push({
      id: i,
      brokerPort: basePort + 2 * (i - 1),
      controllerPort: i <= n ? basePort + 2 * (i - 1) + 1 : null,
      dataDir: join(abs, `node-${i}`),
      configFile: join(abs, `node-${i}.properties`),
      logFile: join(abs, `node-${i}.log`),
    });
  }
  return {
    dir: abs,
    clusterId,
    nodes,
    voters: nodes.flatMap((x) => (x.controllerPort === null ? [] : [`${x.id}@${host}:${x.controllerPort}`])).join(','),
    bootstrap: nodes.map((x) => `${host}:${x.brokerPort}`).join(','),
  };
}

export function nodeProperties(layout: ClusterLayout, node: NodeLayout, host = '127.0.0.1', overrides: Record<string, string> = {}): string {
  const props: Record<string, string> = {
    'process.roles': node.controllerPort === null ? 'broker' : 'broker,controller',
    'node.id': String(node.id),
    'cluster.id': layout.clusterId,
    'listeners': node.controllerPort === null ? `PLAINTEXT://${host}:${node.brokerPort}` : `PLAINTEXT://${host}:${node.brokerPort},CONTROLLER://${host}:${node.controllerPort}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.quorum.voters': layout.voters,
    'log.dir': node.dataDir,
    ...overrides,
  };
  return `# Written by tributary cluster up (node ${node.id} of ${layout.nodes.length}).\n${Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n')}\n`;
}

function portAccepts(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (ok: boolean): void => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** How many live (registered, unfenced) brokers a node's Metadata lists; 0 when it does not answer. */
async function liveBrokers(host: string, port: number): Promise<number> {
  if (!(await portAccepts(host, port))) return 0;
  try {
    const conn = await Connection.connect({ host, port, clientId: 'tributary-cluster-up', connectTimeoutMs: 1_000, requestTimeoutMs: 2_000, negotiateVersions: false });
    try {
      const md = await conn.send({ request: MetadataRequest, response: MetadataResponse }, 1, { topics: [] });
      return md.brokers.length;
    } finally {
      conn.destroy();
    }
  } catch {
    return 0;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function startNode(node: NodeLayout, detach: boolean): ChildProcess {
  const main = process.argv[1];
  if (main === undefined) throw new Error('cannot tell which script runs tributary (process.argv[1] is empty)');
  const out = openSync(node.logFile, 'a');
  try {
    // Own process group even in the foreground: a terminal's Ctrl-C reaches only
    // this process, which sends each node exactly one SIGTERM (a second one
    // would make a node skip its graceful shutdown).
    const child = spawn(process.execPath, [main, 'start', '--config', node.configFile], { stdio: ['ignore', out, out], detached: true });
    if (detach) child.unref();
    return child;
  } finally {
    closeSync(out);
  }
}

async function waitReady(layout: ClusterLayout, host: string, children: readonly ChildProcess[]): Promise<string | null> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const pending = new Set(layout.nodes);
  while (pending.size > 0) {
    for (const [i, child] of children.entries()) {
      if (child.exitCode !== null || child.signalCode !== null) return `node ${i + 1} exited (see ${layout.nodes[i]?.logFile ?? 'its log'})`;
    }
    for (const node of [...pending]) if (await liveBrokers(host, node.brokerPort) === layout.nodes.length) pending.delete(node);
    if (pending.size === 0) break;
    if (Date.now() > deadline) return `nodes ${[...pending].map((x) => x.id).join(', ')} did not start serving (every broker registered and unfenced) within ${READY_TIMEOUT_MS / 1000} s (see their logs in ${layout.dir})`;
    await sleep(POLL_MS);
  }
  return null;
}

function stopAll(children: readonly ChildProcess[]): Promise<void> {
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of alive) c.kill('SIGTERM');
  return new Promise((done) => {
    const kill = setTimeout(() => {
      for (const c of alive) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }, STOP_GRACE_MS);
    let left = alive.length;
    if (left === 0) {
      clearTimeout(kill);
      done();
    }
    for (const c of alive) {
      c.once('exit', () => {
        if (--left === 0) {
          clearTimeout(kill);
          done();
        }
      });
    }
  });
}

async function up(options: UpOptions, cmd: Command): Promise<void> {
  const total = options.nodes + options.brokers;
  if (total > NODES_MAX) usageError(cmd, `--nodes + --brokers: at most ${NODES_MAX} nodes on one machine`);
  if (options.basePort + 2 * total - 1 > 65535) usageError(cmd, '--base-port: the ports do not fit below 65536');
  const layout = planCluster(options.nodes, options.dir, options.basePort, options.host, options.brokers);
  mkdirSync(layout.dir, { recursive: true });
  const pidFile = join(layout.dir, 'pids');
  if (existsSync(pidFile)) usageError(cmd, `${pidFile} exists: a detached cluster may be running there; run \`tributary cluster down --dir ${options.dir}\` first`);
  for (const node of layout.nodes) {
    if (await portAccepts(options.host, node.brokerPort) || (node.controllerPort !== null && await portAccepts(options.host, node.controllerPort))) {
      usageError(cmd, `port ${node.brokerPort}${node.controllerPort === null ? '' : ` or ${node.controllerPort}`} is in use; choose another --base-port`);
    }
  }
  writeFileSync(join(layout.dir, 'cluster.id'), `${layout.clusterId}\n`);
  for (const node of layout.nodes) writeFileSync(node.configFile, nodeProperties(layout, node, options.host, options.override ?? {}));

  const detach = options.detach === true;
  const children = layout.nodes.map((node) => startNode(node, detach));
  const stop = (): void => {
    void stopAll(children).then(() => {
      rmSync(pidFile, { force: true });
    });
  };
  if (!detach) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  const problem = await waitReady(layout, options.host, children);
  if (problem !== null) {
    process.stderr.write(`error: ${problem}\n`);
    await stopAll(children);
    process.exitCode = EXIT_RUNTIME;
    return;
  }
  const lines = [
    `Cluster ${layout.clusterId}: ${options.nodes} nodes (broker + controller)${options.brokers > 0 ? ` + ${options.brokers} broker-only` : ''}, data in ${layout.dir}`,
    ...layout.nodes.map((n) => `  node ${n.id}  pid ${children[n.id - 1]?.pid ?? '?'}  broker ${options.host}:${n.brokerPort}  ${n.controllerPort === null ? 'broker-only (observer)' : `controller ${options.host}:${n.controllerPort}`}  log ${n.logFile}`),
    `Bootstrap: ${layout.bootstrap}`,
    `Voters:    ${layout.voters}`,
    `Status:    tributary cluster status --bootstrap ${layout.bootstrap}`,
  ];
  if (detach) {
    writeFileSync(pidFile, children.map((c) => String(c.pid)).join('\n') + '\n');
    await writeOut(`${lines.join('\n')}\nDetached; stop with: tributary cluster down --dir ${options.dir}\n`);
    return;
  }
  await writeOut(`${lines.join('\n')}\nPress Ctrl-C to stop every node.\n`);
  await Promise.all(
    children.map(
      (c, i) =>
        new Promise<void>((done) => {
          if (c.exitCode !== null || c.signalCode !== null) return done();
          c.once('exit', (code, signal) => {
            if (code !== 0 && signal === null) process.stderr.write(`node ${i + 1} exited with code ${code} (see ${layout.nodes[i]?.logFile})\n`);
            done();
          });
        }),
    ),
  );
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

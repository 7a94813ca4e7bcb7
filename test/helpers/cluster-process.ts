/**
 * A multi-node Tributary cluster as child processes on loopback, every node
 * combined (broker + controller), for cluster integration and chaos tests.
 *
 *   const cluster = await startCluster({ nodes: 3 });   // free ports, temp data dirs
 *   t.after(() => cluster.cleanup());
 *   const leader = await cluster.activeController();     // DescribeQuorum
 *   await cluster.node(leader).kill9();                   // BrokerProcess API per node
 *   cluster.pause(2); cluster.resume(2);                  // SIGSTOP / SIGCONT
 *
 * Short quorum and session timeouts by default so failover and fencing fit
 * in a test; override with `overrides`. Each node is a BrokerProcess
 * (test/helpers/broker-process.ts): its `port` is the broker listener.
 */
import { randomBytes } from 'node:crypto';
import { BrokerProcess, freePort } from './broker-process.js';
import { metadataV1Request, parseMetadataV1Response, rawRequest, type MetadataV1 } from './raw-kafka.js';
import { Connection } from '../../src/client/connection.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../src/protocol/messages/55-describe-quorum.js';

export const CLUSTER_READY_TIMEOUT_MS = 30_000;

/** Timeouts small enough for tests (defaults: election 1 s, fetch 2 s, session 9 s, heartbeat 2 s). */
export const FAST_CLUSTER_CONFIG: Readonly<Record<string, string>> = {
  'controller.quorum.election.timeout.ms': '300',
  'controller.quorum.fetch.timeout.ms': '600',
  'broker.session.timeout.ms': '2000',
  'broker.heartbeat.interval.ms': '200',
  'log.level': 'info',
};

export interface ClusterOptions {
  nodes?: number;
  overrides?: Record<string, string>;
  name?: string;
  /** Error logs the test provokes on purpose (BrokerOptions.allowErrorLogs), for every node. */
  allowErrorLogs?: readonly RegExp[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class ClusterProcess {
  readonly clusterId = randomBytes(16).toString('base64url');

  private constructor(
    readonly nodes: readonly BrokerProcess[],
    readonly controllerPorts: readonly number[],
  ) {}

  static async create(options: ClusterOptions = {}): Promise<ClusterProcess> {
    const n = options.nodes ?? 3;
    const brokerPorts: number[] = [];
    const controllerPorts: number[] = [];
    for (let i = 0; i < n; i++) {
      brokerPorts.push(await freePort());
      controllerPorts.push(await freePort());
    }
    const voters = controllerPorts.map((p, i) => `${i + 1}@127.0.0.1:${p}`).join(',');
    const nodes: BrokerProcess[] = [];
    const cluster = new ClusterProcess(nodes, controllerPorts);
    for (let i = 0; i < n; i++) {
      nodes.push(
        new BrokerProcess(brokerPorts[i] as number, {
          name: `${options.name ?? 'cluster'}-node${i + 1}`,
          allowErrorLogs: options.allowErrorLogs ?? [],
          overrides: {
            'process.roles': 'broker,controller',
            'node.id': String(i + 1),
            'cluster.id': cluster.clusterId,
            listeners: `PLAINTEXT://127.0.0.1:${brokerPorts[i]},CONTROLLER://127.0.0.1:${controllerPorts[i]}`,
            'controller.listener.names': 'CONTROLLER',
            'controller.quorum.voters': voters,
            ...FAST_CLUSTER_CONFIG,
            ...options.overrides,
          },
        }),
      );
    }
    return cluster;
  }

  get bootstrap(): string {
    return this.nodes.map((n) => n.bootstrap).join(',');
  }

  /** Node by id (1-based, as node.id). */
  node(id: number): BrokerProcess {
    const n = this.nodes[id - 1];
    if (n === undefined) throw new Error(`no node ${id}`);
    return n;
  }

  controllerPort(id: number): number {
    const p = this.controllerPorts[id - 1];
    if (p === undefined) throw new Error(`no node ${id}`);
    return p;
  }

  /** Starts every node at once (a quorum needs a majority up) and waits until `ids` all serve Metadata listing each other. */
  async start(ids: readonly number[] = this.nodes.map((_, i) => i + 1)): Promise<void> {
    await Promise.all(ids.map((id) => this.node(id).start()));
    await this.waitForBrokers(ids, ids);
  }

  /** Metadata v1 from one node's broker listener (null = all topics, never auto-creates). */
  async metadata(id: number, timeoutMs = 5_000): Promise<MetadataV1> {
    return parseMetadataV1Response(await rawRequest(this.node(id).port, metadataV1Request(1, null), timeoutMs));
  }

  /** Waits until every node in `askIds` lists exactly `brokerIds` as live brokers. */
  async waitForBrokers(askIds: readonly number[], brokerIds: readonly number[], timeoutMs = CLUSTER_READY_TIMEOUT_MS): Promise<void> {
    const want = [...brokerIds].sort((a, b) => a - b).join(',');
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      let ok = true;
      for (const id of askIds) {
        try {
          const md = await this.metadata(id, 2_000);
          last = `node ${id}: brokers ${md.brokers.map((b) => b.nodeId).sort((a, b) => a - b).join(',')}`;
          if (md.brokers.map((b) => b.nodeId).sort((a, b) => a - b).join(',') !== want) ok = false;
        } catch (err) {
          last = `node ${id}: ${(err as Error).message}`;
          ok = false;
        }
        if (!ok) break;
      }
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`brokers ${want} not all live on nodes ${askIds.join(',')} within ${timeoutMs} ms; last: ${last}`);
      await sleep(100);
    }
  }

  /** The Raft leader as the first answering controller says (DescribeQuorum, forwarded to the leader); -1 when none. */
  async activeController(ids: readonly number[] = this.nodes.map((_, i) => i + 1)): Promise<number> {
    for (const id of ids) {
      if (!this.node(id).isAlive()) continue;
      try {
        const conn = await Connection.connect({ host: '127.0.0.1', port: this.controllerPort(id), connectTimeoutMs: 1000, requestTimeoutMs: 2000 });
        try {
          const res = await conn.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, 1, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] });
          const p = res.topics[0]?.partitions[0];
          if (p !== undefined && p.leaderId >= 0) return p.leaderId;
        } finally {
          conn.destroy();
        }
      } catch {
        // try the next one
      }
    }
    return -1;
  }

  /** Waits (bounded) for a leader among `ids` other than `not`. */
  async waitForActiveController(ids: readonly number[], not = -1, timeoutMs = CLUSTER_READY_TIMEOUT_MS): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const id = await this.activeController(ids);
      if (id >= 0 && id !== not && ids.includes(id)) return id;
      if (Date.now() > deadline) throw new Error(`no active controller among ${ids.join(',')} (other than ${not}) within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** SIGSTOP: the process freezes (sockets stay open, nothing answers). */
  pause(id: number): void {
    const pid = this.node(id).pid;
    if (pid === undefined) throw new Error(`node ${id} is not running`);
    process.kill(pid, 'SIGSTOP');
  }

  resume(id: number): void {
    const pid = this.node(id).pid;
    if (pid === undefined) throw new Error(`node ${id} is not running`);
    process.kill(pid, 'SIGCONT');
  }

  /** Resumes paused nodes, stops every node, removes the data dirs. */
  async cleanup(): Promise<void> {
    for (const n of this.nodes) {
      if (n.pid !== undefined && n.isAlive()) {
        try {
          process.kill(n.pid, 'SIGCONT');
        } catch {
          // gone
        }
      }
    }
    await Promise.all(this.nodes.map((n) => n.cleanup()));
  }

  /** Every node's last output lines, for failure messages. */
  tails(lines = 30): string {
    return this.nodes.map((n) => `--- ${n.name} (${n.isAlive() ? `pid ${n.pid}` : 'not running'})\n${n.tail(lines)}`).join('\n');
  }
}

/** Creates and starts an n-node cluster; on failure stops what started. */
export async function startCluster(options: ClusterOptions = {}): Promise<ClusterProcess> {
  const cluster = await ClusterProcess.create(options);
  try {
    await cluster.start();
    return cluster;
  } catch (err) {
    const tails = cluster.tails();
    await cluster.cleanup();
    if (err instanceof Error) err.message += `\n${tails}`;
    throw err;
  }
}

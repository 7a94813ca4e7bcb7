/**
 * A cluster of combined nodes (broker + controller) run in this process, for
 * integration tests of what spans nodes over real sockets (security between
 * nodes, ACLs and credentials replicated by the quorum) without the start-up
 * cost of child processes. Node ids are 1..nodes; each node gets
 * `portsPerNode` free ports, the last of which is its CONTROLLER listener
 * (the voters are built from it). `nodeConfig` gives a node's own keys
 * (listeners, security, stores) on top of the shared ones here.
 *
 *   const cluster = await startInProcessCluster({
 *     clusterId: 'QWNsQ2x1c3RlclRlc3QxMQ', portsPerNode: 3, dirPrefix: 'trib-acl',
 *     nodeConfig: (id, [plain, sasl, controller]) => ({ listeners: `PLAINTEXT://127.0.0.1:${plain},...` }),
 *   });
 *   after(() => cluster.close());
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runBroker, type RunningBroker } from '../../src/broker/broker.js';
import { settingsFromConfig } from '../../src/broker/settings.js';
import { parseBrokerConfig } from '../../src/config/broker.js';
import { freePort } from './broker-process.js';
import { FAST_CLUSTER_CONFIG } from './cluster-process.js';

export interface InProcessClusterOptions {
  /** Combined nodes; default 3. */
  readonly nodes?: number;
  /** cluster.id (22 characters of base64url). */
  readonly clusterId: string;
  /** Ports each node needs; the last one is its CONTROLLER listener. */
  readonly portsPerNode: number;
  /** Prefix of each node's temporary data directory. */
  readonly dirPrefix: string;
  /** The node's own config keys, from its ports (they override the shared ones). */
  readonly nodeConfig: (id: number, ports: readonly number[]) => Record<string, string>;
}

export interface InProcessCluster {
  readonly nodeIds: readonly number[];
  /** Node `id`'s ports, in the order nodeConfig got them. */
  ports(id: number): readonly number[];
  /** The running broker of node `id` (null once stopped). */
  broker(id: number): RunningBroker | null;
  /** Stops node `id` (a clean stop). */
  stopNode(id: number, reason: string): Promise<void>;
  /** Stops every node still running and removes the data directories. */
  close(): Promise<void>;
}

export async function startInProcessCluster(options: InProcessClusterOptions): Promise<InProcessCluster> {
  const nodes = options.nodes ?? 3;
  const ids = Array.from({ length: nodes }, (_, i) => i + 1);
  const all = await Promise.all(Array.from({ length: nodes * options.portsPerNode }, () => freePort()));
  const portsOf = (id: number): number[] => all.slice((id - 1) * options.portsPerNode, id * options.portsPerNode);
  const voters = ids.map((id) => `${id}@127.0.0.1:${portsOf(id)[options.portsPerNode - 1]}`).join(',');
  const brokers = new Map<number, RunningBroker | null>();
  const dirs: string[] = [];
  const cluster: InProcessCluster = {
    nodeIds: ids,
    ports: portsOf,
    broker: (id) => brokers.get(id) ?? null,
    async stopNode(id, reason) {
      const b = brokers.get(id);
      brokers.set(id, null);
      await b?.stop(reason);
    },
    async close() {
      await Promise.all([...brokers.values()].map((b) => b?.stop('test done')));
      brokers.clear();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(
      ids.map(async (id) => {
        const dir = mkdtempSync(join(tmpdir(), `${options.dirPrefix}-node${id}-`));
        dirs.push(dir);
        const config = parseBrokerConfig({
          ...FAST_CLUSTER_CONFIG,
          'node.id': String(id),
          'process.roles': 'broker,controller',
          'controller.quorum.voters': voters,
          'controller.listener.names': 'CONTROLLER',
          'cluster.id': options.clusterId,
          'log.dirs': dir,
          'offsets.topic.replication.factor': '3',
          ...options.nodeConfig(id, portsOf(id)),
        });
        brokers.set(id, await runBroker(settingsFromConfig(config), pino({ level: 'warn' })));
      }),
    );
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

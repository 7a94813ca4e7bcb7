/**
 * The plan of a cluster on one machine: which nodes, their ids, roles, ports,
 * data directories and configs. Pure apart from reading an existing
 * `cluster.id`; the launcher (launcher.ts) runs what is planned here, for
 * `tributary cluster up`, `startCluster` and the cluster tests alike.
 *
 * Node i (1-based) has node.id=i. Nodes 1..controllers are combined (broker
 * and controller, voters of the metadata quorum); the nodes after them are
 * broker-only (process.roles=broker: Raft observers, no controller listener).
 * A plan with `lone: true` is the single-node default of `tributary start`:
 * one combined node that is its own quorum, with no controller listener.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** At most this many nodes on one machine (`cluster up` and `startCluster`). */
export const NODES_MAX = 9;

export interface PlanOptions {
  /** Combined nodes (broker + controller): the voters. At least 1. */
  readonly controllers: number;
  /** Broker-only nodes after the combined ones. Default 0. */
  readonly brokerOnly?: number;
  /** Root directory: `cluster.id`, node configs and logs; node data in `<dir>/node-<i>` unless `nodeDir` says otherwise. */
  readonly dir: string;
  readonly host?: string;
  /**
   * The ports, in node order: broker port then controller port for each
   * combined node, broker port alone for a broker-only node. A number is a
   * base port: node i gets base+2(i-1) (broker) and the next (controller).
   */
  readonly ports: number | readonly number[];
  /** One node that is its own quorum (the `tributary start` default); needs controllers 1, brokerOnly 0. */
  readonly lone?: boolean;
  /** A node's data directory; default `<dir>/node-<id>`. */
  readonly nodeDir?: (id: number) => string;
}

export interface NodeLayout {
  readonly id: number;
  /** 0 = an ephemeral port (lone plans only): the bound port is read back. */
  readonly brokerPort: number;
  /** Null for a broker-only node (not a voter, no controller listener) and for a lone node. */
  readonly controllerPort: number | null;
  readonly dataDir: string;
  readonly configFile: string;
  readonly logFile: string;
}

export interface ClusterLayout {
  readonly dir: string;
  readonly host: string;
  readonly clusterId: string;
  readonly lone: boolean;
  readonly nodes: readonly NodeLayout[];
  /** `controller.quorum.voters`; empty for a lone node. */
  readonly voters: string;
  /** Broker listeners, comma-separated: what clients bootstrap from. */
  readonly bootstrap: string;
}

/** A 22-character base64url uuid (version 4), as Kafka's cluster ids. */
export function newClusterId(): string {
  const b = randomBytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  return b.toString('base64url');
}

/** How many ports a plan needs: two per combined node, one per broker-only node. */
export function portsNeeded(controllers: number, brokerOnly: number): number {
  return 2 * controllers + brokerOnly;
}

function portAt(ports: number | readonly number[], index: number): number {
  if (typeof ports === 'number') return ports + index;
  const port = ports[index];
  if (port === undefined) throw new RangeError(`planCluster: ${ports.length} ports given, port #${index + 1} needed`);
  return port;
}

export function planCluster(options: PlanOptions): ClusterLayout {
  const brokerOnly = options.brokerOnly ?? 0;
  const host = options.host ?? '127.0.0.1';
  const lone = options.lone === true;
  if (lone && (options.controllers !== 1 || brokerOnly !== 0)) throw new RangeError('planCluster: a lone plan has exactly one combined node');
  const dir = resolve(options.dir);
  const idFile = join(dir, 'cluster.id');
  const clusterId = existsSync(idFile) ? readFileSync(idFile, 'utf8').trim() : newClusterId();
  const nodes: NodeLayout[] = [];
  // With a base port, node i keeps the pair base+2(i-1), base+2(i-1)+1 whatever its role.
  const stride = typeof options.ports === 'number';
  let next = 0;
  for (let id = 1; id <= options.controllers + brokerOnly; id++) {
    const combined = id <= options.controllers;
    const first = stride ? 2 * (id - 1) : next;
    nodes.push({
      id,
      brokerPort: portAt(options.ports, first),
      controllerPort: combined && !lone ? portAt(options.ports, first + 1) : null,
      dataDir: options.nodeDir?.(id) ?? join(dir, `node-${id}`),
      configFile: join(dir, `node-${id}.properties`),
      logFile: join(dir, `node-${id}.log`),
    });
    next = first + (combined ? 2 : 1);
  }
  return {
    dir,
    host,
    clusterId,
    lone,
    nodes,
    voters: nodes.flatMap((x) => (x.controllerPort === null ? [] : [`${x.id}@${hostPort(host, x.controllerPort)}`])).join(','),
    bootstrap: nodes.map((x) => hostPort(host, x.brokerPort)).join(','),
  };
}

export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** One node's server.properties keys; `overrides` win (e.g. short quorum timeouts in tests). */
export function nodeConfig(layout: ClusterLayout, node: NodeLayout, overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  const plaintext = `PLAINTEXT://${hostPort(layout.host, node.brokerPort)}`;
  if (layout.lone) return { listeners: plaintext, 'log.dirs': node.dataDir, ...overrides };
  const controller = node.controllerPort;
  return {
    'process.roles': controller !== null ? 'broker,controller' : 'broker',
    'node.id': String(node.id),
    'cluster.id': layout.clusterId,
    listeners: controller !== null ? `${plaintext},CONTROLLER://${hostPort(layout.host, controller)}` : plaintext,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.quorum.voters': layout.voters,
    'log.dirs': node.dataDir,
    ...overrides,
  };
}

/** The same keys as a server.properties file (what `tributary start --config` reads). */
export function nodeProperties(layout: ClusterLayout, node: NodeLayout, overrides: Readonly<Record<string, string>> = {}): string {
  return propertiesText(nodeConfig(layout, node, overrides), `node ${node.id} of ${layout.nodes.length}`);
}

export function propertiesText(config: Readonly<Record<string, string>>, what: string): string {
  return `# Written by the tributary cluster launcher (${what}).\n${Object.entries(config).map(([k, v]) => `${k}=${v}`).join('\n')}\n`;
}

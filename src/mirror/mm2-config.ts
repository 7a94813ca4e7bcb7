/**
 * mm2.properties (MirrorMaker 2's dedicated-mode config, KIP-382): which
 * clusters exist, which flows `A->B` are enabled, and the config of each
 * flow's connectors and Connect worker. Precedence, lowest first:
 * top-level keys, `A.consumer.*` (source cluster's consumer) and
 * `B.producer.*` (target cluster's producer), `A->B.*` (the flow, e.g.
 * `A->B.producer.linger.ms`). The `producer.*` keys configure the flow's
 * Connect worker producer (Kafka Connect's worker-level `producer.` prefix). Each flow runs a Connect worker against its target cluster
 * with MirrorMaker's internal topic names (`mm2-configs.A.internal`,
 * `mm2-offsets.A.internal`, `mm2-status.A.internal`, group `A-mm2`).
 *
 * Refused at start, with the reason: a flow naming an undeclared cluster, a
 * cluster without bootstrap.servers, a flow from a cluster to itself, and
 * with IdentityReplicationPolicy two opposite flows that replicate the same
 * topics (identity names cannot tell a record's origin, so it would loop).
 */
import { BYTE_ARRAY_CONVERTER } from './connector-config.js';
import { DEFAULT_POLICY_CLASS, IDENTITY_POLICY_CLASS } from './policy.js';

/** An mm2.properties that cannot run; the message lists every problem. */
export class MirrorConfigError extends Error {
  override readonly name = 'MirrorConfigError';
}

/** One enabled replication flow `source->target` with its effective config. */
export interface Flow {
  readonly source: string;
  readonly target: string;
  /** Top-level keys with the flow's overrides applied (`A->B.topics` -> `topics`). */
  readonly props: Readonly<Record<string, string>>;
}

/** A parsed mm2.properties: clusters, their bootstrap servers, the enabled flows. */
export interface Mm2Config {
  readonly clusters: readonly string[];
  readonly bootstrap: ReadonlyMap<string, string>;
  readonly flows: readonly Flow[];
  readonly raw: Readonly<Record<string, string>>;
}

const FLOW_KEY = /^([^.\s]+)->([^.\s]+)\.(.+)$/;
const CONNECTORS = ['MirrorSourceConnector', 'MirrorCheckpointConnector', 'MirrorHeartbeatConnector'] as const;
export type MirrorConnectorName = (typeof CONNECTORS)[number];
export const MIRROR_CONNECTORS: readonly MirrorConnectorName[] = CONNECTORS;

function list(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Parses and checks mm2.properties; throws MirrorConfigError naming every problem. */
export function parseMm2Config(raw: Readonly<Record<string, string>>): Mm2Config {
  const clusters = list(raw.clusters);
  const problems: string[] = [];
  if (clusters.length === 0) problems.push('clusters is not set (e.g. clusters = A, B)');
  const bootstrap = new Map<string, string>();
  for (const c of clusters) {
    const b = raw[`${c}.bootstrap.servers`];
    if (b === undefined || b.trim() === '') problems.push(`cluster ${c} has no ${c}.bootstrap.servers`);
    else bootstrap.set(c, b.trim());
  }
  const pairs = new Map<string, Record<string, string>>();
  const topLevel: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const m = FLOW_KEY.exec(key);
    if (m !== null) {
      const [, source = '', target = '', rest = ''] = m;
      for (const c of [source, target]) if (!clusters.includes(c)) problems.push(`${key} names cluster ${c}, which is not in clusters (${clusters.join(', ')})`);
      if (source === target) problems.push(`${key}: a flow needs two different clusters`);
      const p = pairs.get(`${source}->${target}`) ?? {};
      p[rest] = value;
      pairs.set(`${source}->${target}`, p);
    } else if (!clusters.some((c) => key.startsWith(`${c}.`)) && key !== 'clusters') {
      topLevel[key] = value;
    }
  }
  const flows: Flow[] = [];
  for (const [name, overrides] of pairs) {
    if ((overrides.enabled ?? 'false').trim().toLowerCase() !== 'true') continue;
    const [source = '', target = ''] = name.split('->');
    const clientKeys: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (k.startsWith(`${source}.consumer.`)) clientKeys[k.slice(source.length + 1)] = v;
      if (k.startsWith(`${target}.producer.`)) clientKeys[k.slice(target.length + 1)] = v;
    }
    flows.push({ source, target, props: { ...topLevel, ...clientKeys, ...overrides } });
  }
  problems.push(...identityCycles(flows));
  if (problems.length > 0) throw new MirrorConfigError(`mm2 config is invalid:\n  ${problems.join('\n  ')}`);
  if (flows.length === 0) throw new MirrorConfigError('mm2 config enables no flow: set e.g. A->B.enabled = true');
  return { clusters, bootstrap, flows, raw };
}

function isIdentity(props: Readonly<Record<string, string>>): boolean {
  const cls = (props['replication.policy.class'] ?? DEFAULT_POLICY_CLASS).trim();
  return cls === IDENTITY_POLICY_CLASS || cls === 'IdentityReplicationPolicy';
}

/** Opposite identity flows with the same (or the catch-all) topic patterns would send records back and forth forever. */
function identityCycles(flows: readonly Flow[]): string[] {
  const out: string[] = [];
  for (const f of flows) {
    if (f.source > f.target || !isIdentity(f.props)) continue;
    const back = flows.find((g) => g.source === f.target && g.target === f.source);
    if (back === undefined || !isIdentity(back.props)) continue;
    const a = list(f.props.topics ?? '.*').sort().join(',');
    const b = list(back.props.topics ?? '.*').sort().join(',');
    if (a === b || a === '.*' || b === '.*') {
      out.push(`${f.source}->${f.target} and ${f.target}->${f.source} both replicate topics "${a === '.*' ? b : a}" with IdentityReplicationPolicy: records would cycle between the clusters; give each direction its own topics filter or use DefaultReplicationPolicy`);
    }
  }
  return out;
}

/** The connector config of one mirror connector of a flow. */
export function connectorConfig(config: Mm2Config, flow: Flow, name: MirrorConnectorName): Record<string, string> {
  const worker = new Set(['bootstrap.servers', 'listeners', 'plugin.path', 'group.id']);
  const base = Object.fromEntries(Object.entries(flow.props).filter(([k]) => !worker.has(k) && k !== 'enabled' && !k.startsWith('producer.')));
  return {
    ...base,
    name,
    'connector.class': `org.apache.kafka.connect.mirror.${name}`,
    'source.cluster.alias': flow.source,
    'target.cluster.alias': flow.target,
    'source.cluster.bootstrap.servers': config.bootstrap.get(flow.source) ?? '',
    'target.cluster.bootstrap.servers': config.bootstrap.get(flow.target) ?? '',
    'key.converter': BYTE_ARRAY_CONVERTER,
    'value.converter': BYTE_ARRAY_CONVERTER,
    'tasks.max': flow.props['tasks.max'] ?? '1',
  };
}

/** The Connect worker config of a flow: against the target cluster, with MirrorMaker's internal topic names. */
export function workerConfig(config: Mm2Config, flow: Flow, pluginPath: string): Record<string, string> {
  const p = flow.props;
  const s = flow.source;
  return {
    'bootstrap.servers': config.bootstrap.get(flow.target) ?? '',
    'group.id': p['group.id'] ?? `${s}-mm2`,
    'config.storage.topic': `mm2-configs.${s}.internal`,
    'offset.storage.topic': `mm2-offsets.${s}.internal`,
    'status.storage.topic': `mm2-status.${s}.internal`,
    'config.storage.replication.factor': p['config.storage.replication.factor'] ?? '3',
    'offset.storage.replication.factor': p['offset.storage.replication.factor'] ?? '3',
    'status.storage.replication.factor': p['status.storage.replication.factor'] ?? '3',
    'offset.flush.interval.ms': p['offset.flush.interval.ms'] ?? '5000',
    // One dedicated node that restarts should get its work back at once, not after the KIP-415 delay.
    'scheduled.rebalance.max.delay.ms': p['scheduled.rebalance.max.delay.ms'] ?? '0',
    listeners: p.listeners ?? 'http://127.0.0.1:0',
    'plugin.path': pluginPath,
    'client.id': `mm2-${s}-${flow.target}`,
    'key.converter': BYTE_ARRAY_CONVERTER,
    'value.converter': BYTE_ARRAY_CONVERTER,
    ...Object.fromEntries(Object.entries(p).filter(([k]) => k.startsWith('producer.'))),
  };
}

/**
 * `tributary mirror status`: what each enabled flow is doing, read from the
 * clusters (so it works from any machine, with no running process to ask):
 * connector and task states from `mm2-status.A.internal`, the replicated
 * position of each source partition from `mm2-offsets.A.internal` (flushed
 * every offset.flush.interval.ms), the lag in records (source end offset
 * minus that position) and in seconds (age of the oldest record not yet
 * replicated), and the age of the newest checkpoint. In exact mode the
 * position is the remote partition's end on the target.
 */
import { Admin, Consumer } from '../client/index.js';
import { TOPICS_EXCLUDE_DEFAULT } from './connector-config.js';
import { RegexFilter } from './filters.js';
import { parseMm2Config, type Flow, type Mm2Config } from './mm2-config.js';
import { policyFromConfig, replicable } from './policy.js';
import { readTopic } from './topic-reader.js';
import { readCheckpoints } from './translate.js';

/** One flow as `tributary mirror status` shows it. */
export interface FlowStatus {
  flow: string;
  /** connector or task (`name-n`) -> state (with the reason when FAILED). */
  states: Record<string, string>;
  partitions: number;
  lagRecords: number;
  /** Age of the oldest source record not replicated yet; 0 when there is none. */
  lagSeconds: number;
  /** Age of the newest checkpoint; null when there is none. */
  checkpointAgeSeconds: number | null;
}

interface Position {
  topic: string;
  partition: number;
  next: bigint;
}

async function states(bootstrap: string, source: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const r of await readTopic(bootstrap, `mm2-status.${source}.internal`)) {
    const key = r.key?.toString('utf8') ?? '';
    const m = /^status-(?:connector|task)-(.+)$/.exec(key);
    if (m === null) continue;
    if (r.value === null) {
      delete out[m[1] ?? ''];
      continue;
    }
    const v = JSON.parse(r.value.toString('utf8')) as { state?: string; trace?: string | null };
    const firstLine = (v.trace ?? '').split('\n')[0] ?? '';
    out[m[1] ?? ''] = v.state === 'FAILED' && firstLine !== '' ? `FAILED: ${firstLine}` : (v.state ?? '?');
  }
  return out;
}

/** Where replication of each source partition stands (next offset to copy), from the Connect offsets topic. */
async function positions(bootstrap: string, source: string): Promise<Position[]> {
  const latest = new Map<string, Position>();
  for (const r of await readTopic(bootstrap, `mm2-offsets.${source}.internal`)) {
    if (r.key === null || r.value === null) continue;
    const [connector, part] = JSON.parse(r.key.toString('utf8')) as [string, { topic?: string; partition?: number; cluster?: string }];
    if (connector !== 'MirrorSourceConnector' || part.cluster !== source || part.topic === undefined || part.partition === undefined) continue;
    const off = (JSON.parse(r.value.toString('utf8')) as { offset?: number }).offset ?? -1;
    latest.set(`${part.topic}\u0000${part.partition}`, { topic: part.topic, partition: part.partition, next: BigInt(off) + 1n });
  }
  return [...latest.values()];
}

const list = (v: string | undefined, d: string): string[] => (v ?? d).split(',').map((x) => x.trim()).filter((x) => x !== '');

/**
 * Exact mode keeps no source offsets: where each source partition stands is
 * the end of its remote partition on the target (the copy position itself).
 */
async function exactPositions(config: Mm2Config, flow: Flow): Promise<Position[]> {
  const policy = policyFromConfig(flow.props, flow.source);
  const filter = new RegexFilter('topics', list(flow.props.topics, '.*'), list(flow.props['topics.exclude'], TOPICS_EXCLUDE_DEFAULT));
  const source = await Admin.connect({ bootstrap: config.bootstrap.get(flow.source) ?? '', clientId: 'mirror-status' });
  const target = await Admin.connect({ bootstrap: config.bootstrap.get(flow.target) ?? '', clientId: 'mirror-status' });
  try {
    const topics = (await source.listTopics({ includeInternal: false })).filter((t) => filter.matches(t.name) && replicable(policy, t.name, flow.target));
    const parts = topics.flatMap((t) => Array.from({ length: t.partitionCount }, (_, partition) => ({ topic: t.name, partition })));
    if (parts.length === 0) return [];
    const ends = await target.listOffsets(parts.map((p) => ({ topic: policy.formatRemoteTopic(flow.source, p.topic), partition: p.partition, spec: 'latest' as const })));
    return parts.map((p, i) => ({ ...p, next: ends[i]?.error === null ? (ends[i]?.offset ?? 0n) : 0n }));
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
}

/** The timestamp of the record at `offset` in the source partition (null when it cannot be read in time). */
async function timestampAt(bootstrap: string, p: Position): Promise<number | null> {
  const consumer = new Consumer({ bootstrap, clientId: 'mirror-status', autoOffsetReset: 'earliest', maxPollRecords: 1 });
  const timer = setTimeout(() => void consumer.close(), 5000);
  try {
    consumer.assign([{ topic: p.topic, partition: p.partition }]);
    consumer.seek({ topic: p.topic, partition: p.partition }, p.next);
    for await (const b of consumer.batches()) return b.records[0]?.timestamp ?? null;
    return null;
  } finally {
    clearTimeout(timer);
    await consumer.close();
  }
}

async function flowStatus(config: Mm2Config, flow: Flow): Promise<FlowStatus> {
  const sourceBootstrap = config.bootstrap.get(flow.source) ?? '';
  const targetBootstrap = config.bootstrap.get(flow.target) ?? '';
  const pos = flow.props.mode === 'exact' ? await exactPositions(config, flow) : await positions(targetBootstrap, flow.source);
  let lagRecords = 0n;
  let oldest: Position | null = null;
  const admin = await Admin.connect({ bootstrap: sourceBootstrap, clientId: 'mirror-status' });
  try {
    const ends = await admin.listOffsets(pos.map((p) => ({ topic: p.topic, partition: p.partition, spec: 'latest' as const })));
    pos.forEach((p, i) => {
      const end = ends[i];
      if (end === undefined || end.error !== null || end.offset <= p.next) return;
      lagRecords += end.offset - p.next;
      oldest ??= p;
    });
  } finally {
    await admin.close();
  }
  const ts = oldest === null ? null : await timestampAt(sourceBootstrap, oldest);
  const checkpoints = await readCheckpoints(targetBootstrap, flow.source, policyFromConfig(flow.props, flow.source));
  const newest = Math.max(...[...checkpoints.values()].map((c) => c.timestamp), -1);
  return {
    flow: `${flow.source}->${flow.target}`,
    states: await states(targetBootstrap, flow.source),
    partitions: pos.length,
    lagRecords: Number(lagRecords),
    lagSeconds: ts === null ? 0 : Math.max(0, (Date.now() - ts) / 1000),
    checkpointAgeSeconds: newest < 0 ? null : Math.max(0, (Date.now() - newest) / 1000),
  };
}

/** The status of every enabled flow of an mm2.properties config. */
export async function mirrorStatus(raw: Readonly<Record<string, string>>): Promise<FlowStatus[]> {
  const config = parseMm2Config(raw);
  return Promise.all(config.flows.map((f) => flowStatus(config, f)));
}

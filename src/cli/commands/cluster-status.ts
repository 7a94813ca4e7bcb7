/**
 * `tributary cluster status`: the metadata quorum and the brokers.
 *
 * Quorum: DescribeQuorum (55) on `__cluster_metadata-0`, sent to a broker
 * (which forwards it to the active controller) or, with `--controller
 * host:port[,...]`, straight to a controller listener. Shows the leader, its
 * epoch and high watermark, and each voter's and observer's log end offset
 * and lag (the leader's log end minus theirs).
 * Brokers: DescribeCluster lists the live (unfenced) ones with their
 * endpoints and racks; a voter or observer missing from it is not live (fenced, down, or controller-only).
 */
import type { Command } from 'commander';
import { Connection } from '../../net/connection.js';
import { UnsupportedVersionError } from '../../net/errors.js';
import { parseBootstrap, type BrokerNode } from '../../client/cluster.js';
import { errorName } from '../../client/cluster.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../protocol/messages/55-describe-quorum.js';
import { EXIT_RUNTIME, checkBootstrap, formatTable, toJson, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

const METADATA_TOPIC = '__cluster_metadata';

interface StatusOptions extends CommonOptions {
  controller?: string;
  json?: boolean;
}

export interface ReplicaStatus {
  readonly nodeId: number;
  readonly role: 'leader' | 'follower' | 'observer';
  readonly logEndOffset: bigint;
  readonly lag: bigint;
  readonly lastFetchTimestamp: bigint;
  readonly lastCaughtUpTimestamp: bigint;
}

export interface QuorumStatus {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: bigint;
  readonly replicas: readonly ReplicaStatus[];
}

export interface ClusterStatus {
  readonly clusterId: string | null;
  readonly quorum: QuorumStatus | { readonly error: string; readonly unsupported?: boolean };
  readonly brokers: readonly { nodeId: number; host: string | null; port: number | null; rack: string | null; state: 'unfenced' | 'not live' }[];
}

export function quorumFrom(res: DescribeQuorumResponse): QuorumStatus | { error: string } {
  if (res.errorCode !== 0) return { error: errorName(res.errorCode) };
  const p = res.topics.find((t) => t.topicName === METADATA_TOPIC)?.partitions[0];
  if (p === undefined) return { error: 'the answer has no __cluster_metadata-0' };
  if (p.errorCode !== 0) return { error: errorName(p.errorCode) };
  const leaderEnd = p.currentVoters.find((v) => v.replicaId === p.leaderId)?.logEndOffset ?? p.highWatermark;
  const row = (r: (typeof p.currentVoters)[number], observer: boolean): ReplicaStatus => ({
    nodeId: r.replicaId,
    role: observer ? 'observer' : r.replicaId === p.leaderId ? 'leader' : 'follower',
    logEndOffset: r.logEndOffset,
    lag: r.logEndOffset < 0n ? -1n : leaderEnd - r.logEndOffset,
    lastFetchTimestamp: r.lastFetchTimestamp,
    lastCaughtUpTimestamp: r.lastCaughtUpTimestamp,
  });
  return {
    leaderId: p.leaderId,
    leaderEpoch: p.leaderEpoch,
    highWatermark: p.highWatermark,
    replicas: [...p.currentVoters.map((r) => row(r, false)), ...p.observers.map((r) => row(r, true))].sort((a, b) => a.nodeId - b.nodeId),
  };
}

async function describeQuorumAt(host: string, port: number, timeoutMs: number): Promise<DescribeQuorumResponse> {
  const conn = await Connection.connect({ host, port, clientId: 'tributary-cli', requestTimeoutMs: timeoutMs });
  try {
    const version = conn.pickVersion(55, 0, 1);
    return await conn.send({ request: DescribeQuorumRequest, response: DescribeQuorumResponse }, version, {
      topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: 0 }] }],
    });
  } finally {
    await conn.close();
  }
}

/** Asks each address in turn; the first answer without a "not the leader" error wins. */
async function describeQuorum(addresses: readonly { host: string; port: number }[], timeoutMs: number): Promise<QuorumStatus | { error: string; unsupported?: boolean }> {
  let last: QuorumStatus | { error: string } = { error: 'no address to ask' };
  for (const a of addresses) {
    try {
      last = quorumFrom(await describeQuorumAt(a.host, a.port, timeoutMs));
      if (!('error' in last)) return last;
    } catch (err) {
      // A lone node (a one-voter Raft quorum, no controller listener) does not serve DescribeQuorum.
      if (err instanceof UnsupportedVersionError) return { error: 'unknown: the broker does not answer DescribeQuorum', unsupported: true };
      last = { error: `${a.host}:${a.port}: ${(err as Error).message}` };
    }
  }
  return last;
}

export function formatStatus(s: ClusterStatus): string {
  const out: string[] = [`ClusterId: ${s.clusterId ?? '-'}`];
  if ('error' in s.quorum) {
    out.push(s.quorum.unsupported === true ? `Quorum: ${s.quorum.error}` : `Quorum: unavailable (${s.quorum.error})`);
  } else {
    const q = s.quorum;
    out.push(`Quorum: leader ${q.leaderId < 0 ? 'none' : q.leaderId}\tepoch ${q.leaderEpoch}\thigh watermark ${q.highWatermark}`);
    const ago = (ts: bigint): string => (ts < 0n ? '-' : `${Math.max(0, Date.now() - Number(ts))} ms ago`);
    out.push(formatTable(['NODE', 'ROLE', 'LOG-END', 'LAG', 'LAST-FETCH', 'LAST-CAUGHT-UP'], q.replicas.map((r) => [String(r.nodeId), r.role, String(r.logEndOffset), String(r.lag), ago(r.lastFetchTimestamp), ago(r.lastCaughtUpTimestamp)])));
  }
  out.push(formatTable(['BROKER', 'HOST', 'PORT', 'RACK', 'STATE'], s.brokers.map((b) => [String(b.nodeId), b.host ?? '-', b.port === null ? '-' : String(b.port), b.rack ?? '-', b.state])));
  return `${out.join('\n')}\n`;
}

export function registerClusterStatusCommand(cluster: Command): void {
  withExamples(withClientOptions(cluster.command('status').description('the metadata quorum (leader, epoch, log end and lag of each voter) and the brokers')), [
    'tributary cluster status --bootstrap 127.0.0.1:9092',
    'tributary cluster status --controller 127.0.0.1:9093,127.0.0.1:9095',
  ])
    .option('--controller <host:port,...>', 'ask these controller listeners for the quorum instead of a broker')
    .option('--json', 'print JSON')
    .action(async (options: StatusOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      if (options.controller !== undefined) checkBootstrap(cmd, options.controller);
      await withAdmin(options, async (admin) => {
        const d = await admin.describeCluster();
        const timeoutMs = options.requestTimeoutMs ?? 5_000;
        const targets = options.controller !== undefined ? parseBootstrap(options.controller) : [...d.brokers.map((b) => ({ host: b.host, port: b.port })), ...parseBootstrap(options.bootstrap)];
        const quorum = await describeQuorum(targets, timeoutMs);
        const live = new Map<number, BrokerNode>(d.brokers.map((b) => [b.nodeId, b]));
        const ids = new Set<number>([...live.keys(), ...('error' in quorum ? [] : quorum.replicas.map((r) => r.nodeId))]);
        const status: ClusterStatus = {
          clusterId: d.clusterId,
          quorum,
          brokers: [...ids].sort((a, b) => a - b).map((id) => {
            const b = live.get(id);
            return b === undefined
              ? { nodeId: id, host: null, port: null, rack: null, state: 'not live' as const }
              : { nodeId: id, host: b.host, port: b.port, rack: b.rack, state: 'unfenced' as const };
          }),
        };
        await writeOut(options.json === true ? `${toJson(status, 2)}\n` : formatStatus(status));
        if ('error' in quorum && quorum.unsupported !== true) process.exitCode = EXIT_RUNTIME;
      });
    });
}

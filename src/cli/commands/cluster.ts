/**
 * `tributary cluster describe|log-dirs|elect-leaders|reassignments|reassign`: the
 * cluster as the Kafka protocol shows it (DescribeCluster, DescribeLogDirs,
 * ElectLeaders, ListPartitionReassignments; `reassign` in cluster-reassign.ts), so it works against any
 * Kafka-compatible broker.
 */
import type { Command } from 'commander';
import type { BrokerLogDirs, ClusterDescription, ElectionResult, PartitionReassignment } from '../../client/cluster-admin.js';
import type { TopicPartitions } from '../../client/consumer-protocol.js';
import { parseTopicSelection } from './group.js';
import { registerClusterUpCommands } from './cluster-up.js';
import { registerClusterStatusCommand } from './cluster-status.js';
import { registerReassignCommand } from './cluster-reassign.js';
import { formatBytes } from './produce.js';
import {
  EXIT_RUNTIME,
  checkBootstrap,
  collect,
  formatTable,
  reportError,
  toJson,
  usageError,
  withAdmin,
  withClientOptions,
  withExamples,
  writeOut,
  type CommonOptions,
} from './common.js';

interface JsonOptions extends CommonOptions {
  json?: boolean;
}

interface LogDirsOptions extends JsonOptions {
  topic?: string[];
}

interface ElectOptions extends JsonOptions {
  topic?: string[];
  unclean?: boolean;
}

export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('start a local cluster; describe the cluster, its quorum, log directories, leaders and reassignments');
  withExamples(cluster, ['tributary cluster up --nodes 3', 'tributary cluster status', 'tributary cluster describe', 'tributary cluster log-dirs --topic orders', 'tributary cluster elect-leaders --topic orders', 'tributary cluster reassign --execute plan.json']);
  registerClusterUpCommands(cluster);
  registerClusterStatusCommand(cluster);
  registerDescribeCommand(cluster);
  registerLogDirsCommand(cluster);
  registerElectLeadersCommand(cluster);
  registerReassignmentsCommand(cluster);
  registerReassignCommand(cluster);
}

/** `cluster describe`: cluster id, controller and brokers (DescribeCluster). */
function registerDescribeCommand(cluster: Command): void {
  withExamples(withClientOptions(cluster.command('describe').description('cluster id, controller and brokers')), [
    'tributary cluster describe',
    'tributary cluster describe --json | jq .controllerId',
  ])
    .option('--json', 'print JSON')
    .action(async (options: JsonOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const d = await admin.describeCluster();
        await writeOut(options.json === true ? `${toJson(d, 2)}\n` : formatCluster(d));
      });
    });
}

/** `cluster log-dirs`: DescribeLogDirs of every broker; exit 1 if any broker or directory reported an error. */
function registerLogDirsCommand(cluster: Command): void {
  withExamples(withClientOptions(cluster.command('log-dirs').description('log directories of every broker, with the size of each partition')), [
    'tributary cluster log-dirs',
    'tributary cluster log-dirs --topic orders --topic payments',
    'tributary cluster log-dirs --json',
  ])
    .option('-t, --topic <topic>', 'only partitions of this topic; repeatable', collect)
    .option('--json', 'print JSON (sizes in bytes)')
    .action(async (options: LogDirsOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const brokers = await admin.describeLogDirs(options.topic ?? null);
        await writeOut(options.json === true ? `${toJson(brokers, 2)}\n` : formatLogDirs(brokers));
        const failed = brokers.flatMap((b) => [b.error, ...b.logDirs.map((d) => d.error)]).filter((e) => e !== null);
        for (const e of failed) reportError(e);
        if (failed.length > 0) process.exitCode = EXIT_RUNTIME;
      });
    });
}

/** `cluster elect-leaders`: ElectLeaders (preferred or unclean); ELECTION_NOT_NEEDED is not a failure. */
function registerElectLeadersCommand(cluster: Command): void {
  withExamples(withClientOptions(cluster.command('elect-leaders').description('move leadership back to the preferred replica (or elect an unclean leader)')), [
    'tributary cluster elect-leaders                        every partition that needs it',
    'tributary cluster elect-leaders --topic orders:0,1',
    'tributary cluster elect-leaders --topic orders --unclean',
  ])
    .option('-t, --topic <topic[:p,p...]>', 'topic, optionally with partitions (orders or orders:0,2); repeatable (default: every partition)', collect)
    .option('--unclean', 'unclean election: any live replica may lead, even out of sync (may lose records)')
    .option('--json', 'print JSON')
    .action(async (options: ElectOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      let selections: { topic: string; partitions: number[] | null }[] | null = null;
      try {
        if (options.topic !== undefined) selections = options.topic.map(parseTopicSelection);
      } catch (err) {
        usageError(cmd, (err as Error).message);
      }
      await withAdmin(options, async (admin) => {
        let partitions: TopicPartitions[] | null = null;
        if (selections !== null) {
          partitions = [];
          for (const s of selections) {
            const t = await admin.cluster.topic(s.topic, true);
            partitions.push({ topic: s.topic, partitions: s.partitions ?? t.partitions.map((p) => p.partition) });
          }
        }
        const results = await admin.electLeaders(options.unclean === true ? 'unclean' : 'preferred', partitions);
        if (options.json === true) await writeOut(`${toJson(results, 2)}\n`);
        else await writeOut(formatElections(results));
        const failed = results.filter((r) => r.error !== null && r.error.errorName !== 'ELECTION_NOT_NEEDED');
        for (const r of failed) reportError(r.error);
        if (failed.length > 0) process.exitCode = EXIT_RUNTIME;
      });
    });
}

/** `cluster reassignments`: ListPartitionReassignments. */
function registerReassignmentsCommand(cluster: Command): void {
  withExamples(withClientOptions(cluster.command('reassignments').description('partition reassignments in progress')), [
    'tributary cluster reassignments',
    'tributary cluster reassignments --json',
  ])
    .option('--json', 'print JSON')
    .action(async (options: JsonOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const list = await admin.listPartitionReassignments();
        await writeOut(options.json === true ? `${toJson(list, 2)}\n` : formatReassignments(list));
      });
    });
}

export function formatCluster(d: ClusterDescription): string {
  const summary = [`ClusterId: ${d.clusterId ?? '-'}`, `Controller: ${d.controllerId < 0 ? 'none' : d.controllerId}`, `Brokers: ${d.brokers.length}`].join('\t');
  const rows = d.brokers.map((b) => [String(b.nodeId), b.host, String(b.port), b.rack ?? '-', b.nodeId === d.controllerId ? 'yes' : 'no']);
  return `${summary}\n${formatTable(['BROKER', 'HOST', 'PORT', 'RACK', 'CONTROLLER'], rows)}\n`;
}

export function formatLogDirs(brokers: readonly BrokerLogDirs[]): string {
  const parts: string[] = [];
  for (const b of brokers) {
    if (b.error !== null) continue;
    for (const d of b.logDirs) {
      const size = d.partitions.reduce((sum, p) => sum + p.sizeBytes, 0n);
      const summary = [
        `Broker: ${b.nodeId}`,
        `LogDir: ${d.path}`,
        `Partitions: ${d.partitions.length}`,
        `Size: ${bytes(size)}`,
        `Total: ${d.totalBytes === null ? '-' : bytes(d.totalBytes)}`,
        `Usable: ${d.usableBytes === null ? '-' : bytes(d.usableBytes)}`,
        ...(d.error === null ? [] : [`Error: ${d.error.errorName}`]),
      ].join('\t');
      const rows = d.partitions.map((p) => [p.topic, String(p.partition), bytes(p.sizeBytes), String(p.sizeBytes), String(p.offsetLag), p.isFuture ? 'yes' : 'no']);
      parts.push(rows.length === 0 ? `${summary}\n(no partitions)\n` : `${summary}\n${formatTable(['TOPIC', 'PARTITION', 'SIZE', 'BYTES', 'OFFSET-LAG', 'FUTURE'], rows)}\n`);
    }
  }
  return parts.length === 0 ? '(no log directories)\n' : parts.join('\n');
}

export function formatElections(results: readonly ElectionResult[]): string {
  if (results.length === 0) return 'No partition needed an election.\n';
  const rows = results.map((r) => [
    r.topic,
    String(r.partition),
    r.error === null ? 'elected' : r.error.errorName === 'ELECTION_NOT_NEEDED' ? 'not needed' : 'failed',
    r.error === null || r.error.errorName === 'ELECTION_NOT_NEEDED' ? '-' : r.error.errorName,
  ]);
  return `${formatTable(['TOPIC', 'PARTITION', 'RESULT', 'ERROR'], rows)}\n`;
}

export function formatReassignments(list: readonly PartitionReassignment[]): string {
  if (list.length === 0) return 'No partition reassignments in progress.\n';
  const ids = (xs: readonly number[]): string => (xs.length === 0 ? '-' : xs.join(','));
  const rows = list.map((r) => [r.topic, String(r.partition), ids(r.replicas), ids(r.addingReplicas), ids(r.removingReplicas)]);
  return `${formatTable(['TOPIC', 'PARTITION', 'REPLICAS', 'ADDING', 'REMOVING'], rows)}\n`;
}

function bytes(n: bigint): string {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? formatBytes(Number(n)) : `${n} B`;
}

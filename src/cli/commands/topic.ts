/**
 * `tributary topic create|list|describe|delete`: topic administration over
 * the Kafka protocol (CreateTopics, Metadata, DescribeConfigs, DeleteTopics),
 * so it works against any Kafka-compatible broker.
 */
import type { Command } from 'commander';
import type { TopicDescription } from '../../client/admin.js';
import {
  EXIT_RUNTIME,
  checkBootstrap,
  collectKeyValue,
  formatTable,
  positiveInt,
  reportError,
  toJson,
  withAdmin,
  withClientOptions,
  withExamples,
  writeOut,
} from './common.js';
import type { CommonOptions } from './common.js';

interface CreateOptions extends CommonOptions {
  partitions?: number;
  replicationFactor?: number;
  config?: Record<string, string>;
  ifNotExists?: boolean;
  validateOnly?: boolean;
}

interface ListOptions extends CommonOptions {
  json?: boolean;
  includeInternal?: boolean;
}

interface DescribeOptions extends CommonOptions {
  json?: boolean;
  underReplicatedPartitions?: boolean;
  unavailablePartitions?: boolean;
  underMinIsrPartitions?: boolean;
  atMinIsrPartitions?: boolean;
}

/** kafka-topics.sh's partition filters: each keeps the partitions it names (several: any of them). */
export interface PartitionFilter {
  underReplicated?: boolean | undefined;
  unavailable?: boolean | undefined;
  underMinIsr?: boolean | undefined;
  atMinIsr?: boolean | undefined;
}

/**
 * The topic with only the partitions the filter keeps (all of them when no
 * filter is set): under-replicated = ISR smaller than the replicas;
 * unavailable = no leader; under / at min ISR compare the ISR with the
 * topic's min.insync.replicas (its config entry, else 1).
 */
export function filterPartitions(t: TopicDescription, f: PartitionFilter): TopicDescription {
  if (f.underReplicated !== true && f.unavailable !== true && f.underMinIsr !== true && f.atMinIsr !== true) return t;
  const minIsr = Number(t.configs?.find((c) => c.name === 'min.insync.replicas')?.value ?? '1') || 1;
  const keep = (p: TopicDescription['partitions'][number]): boolean =>
    (f.underReplicated === true && p.isr.length < p.replicas.length) ||
    (f.unavailable === true && p.leader < 0) ||
    (f.underMinIsr === true && p.isr.length < minIsr) ||
    (f.atMinIsr === true && p.isr.length === minIsr);
  return { ...t, partitions: t.partitions.filter(keep) };
}

interface DeleteOptions extends CommonOptions {
  ifExists?: boolean;
}

export function registerTopicCommands(program: Command): void {
  const topic = program.command('topic').description('create, list, describe and delete topics');
  withExamples(topic, ['tributary topic create orders --partitions 6', 'tributary topic list', 'tributary topic describe orders', 'tributary topic delete orders']);
  registerCreateCommand(topic);
  registerListCommand(topic);
  registerDescribeCommand(topic);
  registerDeleteCommand(topic);
}

/** `topic create NAME`: CreateTopics; --if-not-exists turns TOPIC_ALREADY_EXISTS into success. */
function registerCreateCommand(topic: Command): void {
  withExamples(withClientOptions(topic.command('create').description('create a topic')), [
    'tributary topic create orders --partitions 6',
    'tributary topic create events --config cleanup.policy=compact --config retention.ms=86400000',
    'tributary topic create orders --if-not-exists            exit 0 when it already exists',
  ])
    .argument('<name>', 'topic name')
    .option('-p, --partitions <n>', 'number of partitions (default: the broker num.partitions)', positiveInt('--partitions'))
    .option('-r, --replication-factor <n>', 'replicas per partition (default: the broker default.replication.factor)', positiveInt('--replication-factor'))
    .option('-c, --config <key=value>', 'topic config, repeatable (e.g. cleanup.policy=compact)', collectKeyValue)
    .option('--if-not-exists', 'succeed when the topic already exists')
    .option('--validate-only', 'ask the broker to validate without creating')
    .action(async (name: string, options: CreateOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const newTopic = {
          name,
          ...(options.partitions === undefined ? {} : { numPartitions: options.partitions }),
          ...(options.replicationFactor === undefined ? {} : { replicationFactor: options.replicationFactor }),
          ...(options.config === undefined ? {} : { configs: options.config }),
        };
        const [result] = await admin.createTopics([newTopic], { validateOnly: options.validateOnly === true });
        if (result === undefined) throw new Error('no result from CreateTopics');
        if (result.error !== null) {
          if (options.ifNotExists === true && result.error.errorName === 'TOPIC_ALREADY_EXISTS') {
            await writeOut(`Topic ${name} already exists.\n`);
            return;
          }
          throw result.error;
        }
        const details = [
          result.numPartitions >= 0 ? `partitions: ${result.numPartitions}` : null,
          result.replicationFactor >= 0 ? `replication factor: ${result.replicationFactor}` : null,
          result.topicId === null ? null : `id: ${result.topicId}`,
        ].filter((d) => d !== null);
        const verb = options.validateOnly === true ? 'Validated' : 'Created';
        await writeOut(`${verb} topic ${name}${details.length > 0 ? ` (${details.join(', ')})` : ''}.\n`);
      });
    });
}

/** `topic list`: one row per topic (Metadata). */
function registerListCommand(topic: Command): void {
  withExamples(withClientOptions(topic.command('list').description('list topics')), [
    'tributary topic list',
    'tributary topic list --include-internal --json',
  ])
    .option('--json', 'print JSON')
    .option('--include-internal', 'include internal topics such as __consumer_offsets')
    .action(async (options: ListOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const topics = await admin.listTopics({ includeInternal: options.includeInternal === true });
        if (options.json === true) {
          await writeOut(`${toJson(topics, 2)}\n`);
          return;
        }
        const rows = topics.map((t) => [t.name, String(t.partitionCount), String(t.replicationFactor), t.topicId ?? '-']);
        await writeOut(`${formatTable(['TOPIC', 'PARTITIONS', 'REPLICATION-FACTOR', 'TOPIC-ID'], rows)}\n`);
      });
    });
}

/** `topic describe [NAME...]`: partitions and topic-level config overrides; exit 1 if any topic failed. */
function registerDescribeCommand(topic: Command): void {
  withExamples(withClientOptions(topic.command('describe').description('describe topics: partitions, leaders, replicas, ISR, configs')), [
    'tributary topic describe                    every topic',
    'tributary topic describe orders payments',
    'tributary topic describe orders --json',
    'tributary topic describe --under-replicated-partitions',
    'tributary topic describe --unavailable-partitions --under-min-isr-partitions',
  ])
    .argument('[names...]', 'topics to describe (default: all)')
    .option('--json', 'print JSON')
    .option('--under-replicated-partitions', 'only partitions whose ISR is smaller than their replicas')
    .option('--unavailable-partitions', 'only partitions without a leader')
    .option('--under-min-isr-partitions', 'only partitions whose ISR is below min.insync.replicas')
    .option('--at-min-isr-partitions', 'only partitions whose ISR is exactly min.insync.replicas')
    .action(async (names: string[], options: DescribeOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const filter: PartitionFilter = { underReplicated: options.underReplicatedPartitions, unavailable: options.unavailablePartitions, underMinIsr: options.underMinIsrPartitions, atMinIsr: options.atMinIsrPartitions };
      const filtering = Object.values(filter).some((v) => v === true);
      await withAdmin(options, async (admin) => {
        const described = await admin.describeTopics(names);
        // With a filter, topics left without a partition are not shown (as kafka-topics.sh).
        const topics = described.map((t) => (t.error === null ? filterPartitions(t, filter) : t)).filter((t) => t.error !== null || !filtering || t.partitions.length > 0);
        if (options.json === true) {
          await writeOut(`${toJson(topics, 2)}\n`);
        } else {
          await writeOut(topics.filter((t) => t.error === null).map(formatDescription).join('\n'));
        }
        const failed = topics.filter((t) => t.error !== null);
        for (const t of failed) reportError(t.error);
        if (failed.length > 0) process.exitCode = EXIT_RUNTIME;
      });
    });
}

/** `topic delete NAME...`: DeleteTopics; every named topic is handled, exit 1 if any failed. */
function registerDeleteCommand(topic: Command): void {
  withExamples(withClientOptions(topic.command('delete').description('delete topics')), [
    'tributary topic delete orders',
    'tributary topic delete orders payments --if-exists',
  ])
    .argument('<names...>', 'topics to delete')
    .option('--if-exists', 'succeed for topics that do not exist')
    .action(async (names: string[], options: DeleteOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const results = await admin.deleteTopics(names);
        for (const r of results) {
          if (r.error === null) await writeOut(`Deleted topic ${r.name}.\n`);
          else if (options.ifExists === true && r.error.errorName === 'UNKNOWN_TOPIC_OR_PARTITION') await writeOut(`Topic ${r.name} does not exist.\n`);
          else {
            reportError(r.error);
            process.exitCode = EXIT_RUNTIME;
          }
        }
      });
    });
}

/** kafka-topics.sh style: a summary line, then one row per partition. */
export function formatDescription(t: TopicDescription): string {
  const overrides = (t.configs ?? []).filter((c) => c.source === 'DYNAMIC_TOPIC_CONFIG').map((c) => `${c.name}=${c.value ?? '(sensitive)'}`);
  const summary = [
    `Topic: ${t.name}`,
    `TopicId: ${t.topicId ?? '-'}`,
    `PartitionCount: ${t.partitions.length}`,
    `ReplicationFactor: ${t.partitions[0]?.replicas.length ?? 0}`,
    `Configs: ${overrides.join(',')}`,
  ].join('\t');
  const rows = t.partitions.map((p) => [
    String(p.partition),
    p.leader < 0 ? 'none' : String(p.leader),
    p.replicas.join(','),
    p.isr.join(','),
    p.elr === null || p.elr.length === 0 ? '-' : p.elr.join(','),
    p.lastKnownElr === null || p.lastKnownElr.length === 0 ? '-' : p.lastKnownElr.join(','),
    p.offlineReplicas.length > 0 ? p.offlineReplicas.join(',') : '-',
    p.error ?? '-',
  ]);
  return `${summary}\n${formatTable(['PARTITION', 'LEADER', 'REPLICAS', 'ISR', 'ELR', 'LAST_KNOWN_ELR', 'OFFLINE', 'ERROR'], rows)}\n`;
}

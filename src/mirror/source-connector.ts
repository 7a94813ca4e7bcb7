/**
 * MirrorSourceConnector (Kafka's class name and behaviour): finds the source
 * topics to replicate (`topics`, `topics.exclude`, never internal topics,
 * never a topic that came from the target cluster), creates their remote
 * topics on the target with the same partition count, copies topic
 * configs, and spreads the partitions over `tasks.max` tasks round-robin.
 * Every `refresh.topics.interval.seconds` it looks again: a new topic or
 * partition creates what is missing and asks the worker for new task
 * configs. With `mode = exact` the remote topics are read-only mirror
 * topics and the tasks copy batches at their offsets (exact-task.ts).
 */
import { Admin } from '../client/index.js';
import type { ConfigDef, ConfigValue } from '../connect/config-def.js';
import type { SourceConnector, SourceConnectorContext, SourceTaskClass } from '../connect/spi.js';
import { SOURCE_DEF, intervalMs, parseMirrorConfig, validateMirror, type MirrorConfig } from './connector-config.js';
import { RegexFilter } from './filters.js';
import { MirrorSourceTask } from './source-task.js';
import { MirrorExactTask } from './exact-task.js';
import { syncTopicAcls } from './acl-sync.js';
import { createRemoteTopics, ensureInternalTopic, partitionsOf, replicatedTopics, syncTopicConfigs, type TopicSyncOptions } from './topic-sync.js';
import { MIRROR_VERSION, encodePartitions } from './task-assignment.js';

export class MirrorSourceConnector implements SourceConnector {
  readonly type = 'source';
  private mirror: MirrorConfig | null = null;
  private props: Readonly<Record<string, string>> = {};
  private sourceAdmin: Admin | null = null;
  private targetAdmin: Admin | null = null;
  private topics = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private aclsDisabledSaid = false;
  private context: SourceConnectorContext | null = null;
  private syncOptions: TopicSyncOptions | null = null;

  version(): string {
    return MIRROR_VERSION;
  }

  config(): ConfigDef {
    return SOURCE_DEF;
  }

  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return validateMirror(SOURCE_DEF, props);
  }

  async start(props: Readonly<Record<string, string>>, context: SourceConnectorContext): Promise<void> {
    const config = parseMirrorConfig(SOURCE_DEF, props);
    this.mirror = config;
    this.props = props;
    this.context = context;
    const log = (m: string): void => {
      process.stderr.write(`[MirrorSourceConnector ${config.source}->${config.target}] ${m}\n`);
    };
    this.syncOptions = {
      source: config.source,
      target: config.target,
      policy: config.policy,
      topicFilter: config.topicFilter,
      configFilter: new RegexFilter('config.properties.exclude', config.c.list('config.properties.exclude'), []),
      replicationFactor: config.c.number('replication.factor'),
      syncConfigs: config.c.boolean('sync.topic.configs.enabled'),
      exact: config.exact,
      log,
    };
    this.sourceAdmin = await connectAdmin(config.sourceBootstrap, config.source);
    this.targetAdmin = await connectAdmin(config.targetBootstrap, config.target);
    const syncsAdmin = config.c.string('offset-syncs.topic.location') === 'target' ? this.targetAdmin : this.sourceAdmin;
    // Exact mode keeps offsets: there is nothing to sync, but the topic is created all the same for tools that read it.
    await ensureInternalTopic(syncsAdmin, config.policy.offsetSyncsTopic(config.target), config.c.number('offset-syncs.topic.replication.factor'));
    this.topics = await replicatedTopics(this.sourceAdmin, this.syncOptions);
    await createRemoteTopics(this.sourceAdmin, this.targetAdmin, this.topics, this.syncOptions);
    if (config.c.boolean('refresh.topics.enabled')) this.every(intervalMs(config.c, 'refresh.topics.interval.seconds'), () => this.refreshTopics());
    if (this.syncOptions.syncConfigs) this.every(intervalMs(config.c, 'sync.topic.configs.interval.seconds'), () => this.syncConfigs());
    if (config.c.boolean('sync.topic.acls.enabled')) {
      await this.syncAcls();
      this.every(intervalMs(config.c, 'sync.topic.acls.interval.seconds'), () => this.syncAcls());
    }
  }

  private every(ms: number, job: () => Promise<void>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      job()
        .catch((err: unknown) => this.syncOptions?.log(`background job failed: ${(err as Error).message}`))
        .finally(() => {
          running = false;
        });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Looks for new topics and partitions; creates their remote side and asks for new task configs. */
  private async refreshTopics(): Promise<void> {
    if (this.sourceAdmin === null || this.targetAdmin === null || this.syncOptions === null) return;
    const now = await replicatedTopics(this.sourceAdmin, this.syncOptions);
    const changed = now.size !== this.topics.size || [...now].some(([t, n]) => this.topics.get(t) !== n);
    if (!changed) return;
    await createRemoteTopics(this.sourceAdmin, this.targetAdmin, now, this.syncOptions);
    this.topics = now;
    this.syncOptions.log(`topics or partitions changed: ${partitionsOf(now).length} partition(s) now`);
    this.context?.requestTaskReconfiguration();
  }

  /** MM2's topic ACL sync (acl-sync.ts); a cluster without an authorizer has none to sync, said once. */
  private async syncAcls(): Promise<void> {
    const o = this.syncOptions;
    if (this.sourceAdmin === null || this.targetAdmin === null || o === null) return;
    const created = await syncTopicAcls(this.sourceAdmin, this.targetAdmin, {
      replicated: (topic) => this.topics.has(topic),
      remoteTopic: (topic) => o.policy.formatRemoteTopic(o.source, topic),
      log: o.log,
    });
    if (created === null && !this.aclsDisabledSaid) {
      this.aclsDisabledSaid = true;
      o.log('topic ACLs are not synced: a cluster has no authorizer (SECURITY_DISABLED)');
    }
  }

  private async syncConfigs(): Promise<void> {
    if (this.sourceAdmin === null || this.targetAdmin === null || this.syncOptions === null) return;
    await syncTopicConfigs(this.sourceAdmin, this.targetAdmin, [...this.topics.keys()], this.syncOptions);
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    const partitions = partitionsOf(this.topics);
    if (this.mirror === null || partitions.length === 0) return [];
    const n = Math.max(1, Math.min(maxTasks, partitions.length));
    const groups: (typeof partitions)[] = Array.from({ length: n }, () => []);
    partitions.forEach((tp, i) => groups[i % n]?.push(tp));
    return groups.map((g) => ({ ...this.props, 'task.assigned.partitions': encodePartitions(g) }));
  }

  taskClass(): SourceTaskClass {
    return this.mirror?.exact === true ? MirrorExactTask : MirrorSourceTask;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all([this.sourceAdmin?.close(), this.targetAdmin?.close()]);
    this.sourceAdmin = null;
    this.targetAdmin = null;
  }
}

/** An admin client of one cluster; a cluster that cannot be reached fails with its alias and address in the message. */
export async function connectAdmin(bootstrap: string, alias: string): Promise<Admin> {
  try {
    return await Admin.connect({ bootstrap, clientId: `mirror-${alias}-admin` });
  } catch (err) {
    throw new Error(`cluster ${alias} (${bootstrap}) is unreachable: ${(err as Error).message}`, { cause: err });
  }
}

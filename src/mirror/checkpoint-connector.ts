/**
 * MirrorCheckpointConnector (Kafka's class name and behaviour): lists the
 * consumer groups of the source cluster that pass `groups` and
 * `groups.exclude`, creates `<source>.checkpoints.internal` on the target,
 * and spreads the groups over `tasks.max` tasks. Every
 * `refresh.groups.interval.seconds` it looks again and asks for new task
 * configs when the set changed. No groups (or emit.checkpoints.enabled
 * false): no tasks.
 */
import type { Admin } from '../client/index.js';
import type { ConfigDef, ConfigValue } from '../connect/config-def.js';
import type { SourceConnector, SourceConnectorContext, SourceTaskClass } from '../connect/spi.js';
import { MirrorCheckpointTask } from './checkpoint-task.js';
import { CHECKPOINT_DEF, intervalMs, parseMirrorConfig, validateMirror, type MirrorConfig } from './connector-config.js';
import { RegexFilter } from './filters.js';
import { connectAdmin } from './source-connector.js';
import { MIRROR_VERSION, encodeGroups } from './task-assignment.js';
import { ensureInternalTopic } from './topic-sync.js';

export class MirrorCheckpointConnector implements SourceConnector {
  readonly type = 'source';
  private mirror: MirrorConfig | null = null;
  private props: Readonly<Record<string, string>> = {};
  private sourceAdmin: Admin | null = null;
  private groups: string[] = [];
  private groupFilter: RegexFilter | null = null;
  private timer: NodeJS.Timeout | null = null;

  version(): string {
    return MIRROR_VERSION;
  }

  config(): ConfigDef {
    return CHECKPOINT_DEF;
  }

  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return validateMirror(CHECKPOINT_DEF, props);
  }

  async start(props: Readonly<Record<string, string>>, context: SourceConnectorContext): Promise<void> {
    const mirror = parseMirrorConfig(CHECKPOINT_DEF, props);
    this.mirror = mirror;
    this.props = props;
    this.groupFilter = new RegexFilter('groups', mirror.c.list('groups'), mirror.c.list('groups.exclude'));
    const targetAdmin = await connectAdmin(mirror.targetBootstrap, mirror.target);
    try {
      await ensureInternalTopic(targetAdmin, mirror.policy.checkpointsTopic(mirror.source), mirror.c.number('checkpoints.topic.replication.factor'));
    } finally {
      await targetAdmin.close();
    }
    this.sourceAdmin = await connectAdmin(mirror.sourceBootstrap, mirror.source);
    this.groups = await this.listGroups();
    if (mirror.c.boolean('refresh.groups.enabled')) {
      let running = false;
      this.timer = setInterval(() => {
        if (running) return;
        running = true;
        this.listGroups()
          .then((now) => {
            if (now.join('\n') === this.groups.join('\n')) return;
            this.groups = now;
            context.requestTaskReconfiguration();
          })
          .catch(() => undefined)
          .finally(() => {
            running = false;
          });
      }, intervalMs(mirror.c, 'refresh.groups.interval.seconds'));
      this.timer.unref();
    }
  }

  private async listGroups(): Promise<string[]> {
    const admin = this.sourceAdmin;
    const filter = this.groupFilter;
    if (admin === null || filter === null) return [];
    const listed = await admin.listGroups();
    return listed.map((g) => g.groupId).filter((g) => filter.matches(g)).sort();
  }

  taskConfigs(maxTasks: number): Record<string, string>[] {
    if (this.mirror === null || !this.mirror.c.boolean('emit.checkpoints.enabled') || this.groups.length === 0) return [];
    const n = Math.max(1, Math.min(maxTasks, this.groups.length));
    const split: string[][] = Array.from({ length: n }, () => []);
    this.groups.forEach((g, i) => split[i % n]?.push(g));
    return split.map((g) => ({ ...this.props, 'task.assigned.groups': encodeGroups(g) }));
  }

  taskClass(): SourceTaskClass {
    return MirrorCheckpointTask;
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.sourceAdmin?.close();
    this.sourceAdmin = null;
  }
}

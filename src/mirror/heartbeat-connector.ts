/**
 * MirrorHeartbeatConnector and its task (Kafka's class names): one task
 * that writes a Heartbeat {source, target, timestamp} to the `heartbeats`
 * topic of the cluster its worker produces to, every
 * `emit.heartbeats.interval.seconds`. Replicated onward (`A.heartbeats`),
 * heartbeats show that a flow is alive and how long records take.
 */
import type { ConfigDef, ConfigValue } from '../connect/config-def.js';
import { Schemas } from '../connect/data/schema.js';
import type { SourceConnector, SourceRecord, SourceTask, SourceTaskClass } from '../connect/spi.js';
import { HEARTBEAT_DEF, intervalMs, parseMirrorConfig, validateMirror, type MirrorConfig } from './connector-config.js';
import { encodeHeartbeat } from './records.js';
import { connectAdmin } from './source-connector.js';
import { MIRROR_VERSION } from './task-assignment.js';
import { ensureInternalTopic } from './topic-sync.js';

const BYTES_SCHEMA = Schemas.bytes({ optional: true });

export class MirrorHeartbeatTask implements SourceTask {
  private mirror: MirrorConfig | null = null;
  private intervalMs = 1000;
  private nextAtMs = 0;
  private stopped = false;
  private wake: (() => void) | null = null;

  version(): string {
    return MIRROR_VERSION;
  }

  start(props: Readonly<Record<string, string>>): void {
    this.mirror = parseMirrorConfig(HEARTBEAT_DEF, props);
    this.intervalMs = intervalMs(this.mirror.c, 'emit.heartbeats.interval.seconds');
    this.nextAtMs = Date.now();
  }

  async poll(): Promise<SourceRecord[] | null> {
    const m = this.mirror;
    if (m === null) return null;
    const waitMs = this.nextAtMs - Date.now();
    if (waitMs > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(waitMs, 500));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
      if (this.stopped || Date.now() < this.nextAtMs) return null;
    }
    const now = Date.now();
    this.nextAtMs = now + this.intervalMs;
    const { key, value } = encodeHeartbeat({ sourceClusterAlias: m.source, targetClusterAlias: m.target, timestamp: BigInt(now) });
    const heartbeat: SourceRecord = {
      topic: m.policy.heartbeatsTopic(),
      kafkaPartition: 0,
      keySchema: BYTES_SCHEMA,
      key,
      valueSchema: BYTES_SCHEMA,
      value,
      timestamp: now,
      headers: [],
      sourcePartition: { sourceClusterAlias: m.source, targetClusterAlias: m.target },
      sourceOffset: { offset: 0 },
    };
    return [heartbeat];
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}

export class MirrorHeartbeatConnector implements SourceConnector {
  readonly type = 'source';
  private props: Readonly<Record<string, string>> = {};
  private enabled = true;

  version(): string {
    return MIRROR_VERSION;
  }

  config(): ConfigDef {
    return HEARTBEAT_DEF;
  }

  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return validateMirror(HEARTBEAT_DEF, props);
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const m = parseMirrorConfig(HEARTBEAT_DEF, props);
    this.props = props;
    this.enabled = m.c.boolean('emit.heartbeats.enabled');
    const admin = await connectAdmin(m.targetBootstrap, m.target);
    try {
      await ensureInternalTopic(admin, m.policy.heartbeatsTopic(), m.c.number('heartbeats.topic.replication.factor'));
    } finally {
      await admin.close();
    }
  }

  taskConfigs(): Record<string, string>[] {
    return this.enabled ? [{ ...this.props }] : [];
  }

  taskClass(): SourceTaskClass {
    return MirrorHeartbeatTask;
  }

  stop(): void {}
}

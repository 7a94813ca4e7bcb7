/**
 * MirrorCheckpointTask: every `emit.checkpoints.interval.seconds`, reads
 * the committed offsets of its groups on the source, translates them
 * through the offset syncs and emits the changed ones as Checkpoint records
 * to `<source>.checkpoints.internal` on the target; with
 * `sync.group.offsets.enabled`, every `sync.group.offsets.interval.seconds`
 * it commits the translated offsets to the target groups that are idle
 * there. The offset syncs are read to their end before the first
 * checkpoint (translation is refused before). In exact mode there are no
 * offset syncs: a committed offset is the same on the target, held at the
 * remote partition's end while the copy is behind (exactTranslator).
 */
import type { Admin, CommittedOffset } from '../client/index.js';
import { Schemas } from '../connect/data/schema.js';
import type { SourceRecord, SourceTask } from '../connect/spi.js';
import { CHECKPOINT_DEF, intervalMs, parseMirrorConfig, type MirrorConfig } from './connector-config.js';
import { checkpointsFor, exactTranslator, renameTopic, syncGroupOffsets, type CheckpointContext } from './checkpoints.js';
import { replicable } from './policy.js';
import { flowLabel, mirrorMetrics } from './metrics.js';
import { OffsetSyncReader } from './offset-sync-reader.js';
import { encodeCheckpoint, type Checkpoint } from './records.js';
import { connectAdmin } from './source-connector.js';
import { MIRROR_VERSION, decodeGroups } from './task-assignment.js';

const POLL_WAIT_MS = 200;
const BYTES_SCHEMA = Schemas.bytes({ optional: true });

export class MirrorCheckpointTask implements SourceTask {
  private config: MirrorConfig | null = null;
  private groups: string[] = [];
  private reader: OffsetSyncReader | null = null;
  private sourceAdmin: Admin | null = null;
  private targetAdmin: Admin | null = null;
  private ctx: CheckpointContext | null = null;
  private readonly out: SourceRecord[] = [];
  /** The last checkpoint emitted per group and target partition: unchanged ones are not emitted again. */
  private readonly emitted = new Map<string, Checkpoint>();
  private readonly timers: NodeJS.Timeout[] = [];
  private failure: unknown = null;
  private label = { flow: '' };

  version(): string {
    return MIRROR_VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const config = parseMirrorConfig(CHECKPOINT_DEF, props);
    this.config = config;
    this.label = flowLabel(config.source, config.target);
    this.groups = decodeGroups(props['task.assigned.groups']);
    const log = (m: string): void => {
      process.stderr.write(`[MirrorCheckpointTask ${config.source}->${config.target}] ${m}\n`);
    };
    // Exact mode needs no offset syncs: offsets are the same on both sides (exactTranslator).
    if (!config.exact) {
      const syncsBootstrap = config.c.string('offset-syncs.topic.location') === 'target' ? config.targetBootstrap : config.sourceBootstrap;
      this.reader = new OffsetSyncReader(syncsBootstrap, config.policy.offsetSyncsTopic(config.target), log);
      await this.reader.start();
    }
    this.sourceAdmin = await connectAdmin(config.sourceBootstrap, config.source);
    this.targetAdmin = await connectAdmin(config.targetBootstrap, config.target);
    const store = this.reader?.store ?? exactTranslator(new Map());
    this.ctx = { source: config.source, target: config.target, policy: config.policy, topicFilter: config.topicFilter, store };
    if (config.c.boolean('emit.checkpoints.enabled')) this.every(intervalMs(config.c, 'emit.checkpoints.interval.seconds'), () => this.emitCheckpoints());
    if (config.c.boolean('sync.group.offsets.enabled')) this.every(intervalMs(config.c, 'sync.group.offsets.interval.seconds'), () => this.syncOffsets());
  }

  private every(ms: number, job: () => Promise<void>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      job()
        .catch((err: unknown) => {
          this.failure = err;
        })
        .finally(() => {
          running = false;
        });
    }, ms);
    this.timers.push(timer);
  }

  private async emitCheckpoints(): Promise<void> {
    const { config, ctx, sourceAdmin } = this;
    if (config === null || ctx === null || sourceAdmin === null) return;
    const topic = config.policy.checkpointsTopic(config.source);
    for (const group of this.groups) {
      const committed = await sourceAdmin.fetchGroupOffsets(group);
      const translating = config.exact ? { ...ctx, store: exactTranslator(await this.remoteEnds(committed)) } : ctx;
      for (const cp of checkpointsFor(translating, group, committed)) {
        const key = `${group}\u0000${cp.topic}\u0000${cp.partition}`;
        const last = this.emitted.get(key);
        if (last !== undefined && last.upstreamOffset === cp.upstreamOffset && last.downstreamOffset === cp.downstreamOffset) continue;
        this.emitted.set(key, cp);
        const { key: k, value } = encodeCheckpoint(cp);
        this.out.push({
          topic,
          kafkaPartition: 0,
          keySchema: BYTES_SCHEMA,
          key: k,
          valueSchema: BYTES_SCHEMA,
          value,
          timestamp: Date.now(),
          headers: [],
          sourcePartition: { group, topic: cp.topic, partition: cp.partition },
          sourceOffset: { offset: 0 },
        });
      }
    }
    await this.updateLag();
  }

  /** Exact mode: the end offset of each committed partition's remote partition on the target, by upstream topic and partition. */
  private async remoteEnds(committed: readonly CommittedOffset[]): Promise<Map<string, bigint>> {
    const { ctx, targetAdmin } = this;
    const ends = new Map<string, bigint>();
    if (ctx === null || targetAdmin === null) return ends;
    const wanted = committed.filter((o) => o.error === null && o.offset >= 0n && ctx.topicFilter.matches(o.topic) && replicable(ctx.policy, o.topic, ctx.target));
    if (wanted.length === 0) return ends;
    const listed = await targetAdmin.listOffsets(wanted.map((o) => ({ topic: renameTopic(ctx, o.topic), partition: o.partition, spec: 'latest' as const })));
    wanted.forEach((o, i) => {
      const end = listed[i];
      if (end !== undefined && end.error === null) ends.set(`${o.topic}\u0000${o.partition}`, end.offset);
    });
    return ends;
  }

  /** Checkpoint lag per group: the largest distance from a translated offset to the end of its remote partition. */
  private async updateLag(): Promise<void> {
    const admin = this.targetAdmin;
    if (admin === null || this.emitted.size === 0) return;
    const cps = [...this.emitted.values()];
    const ends = await admin.listOffsets(cps.map((c) => ({ topic: c.topic, partition: c.partition, spec: 'latest' as const })));
    const lag = new Map<string, bigint>();
    cps.forEach((c, i) => {
      const end = ends[i];
      if (end === undefined || end.error !== null) return;
      const d = end.offset - c.downstreamOffset;
      if (d > (lag.get(c.group) ?? -1n)) lag.set(c.group, d);
    });
    for (const [group, d] of lag) mirrorMetrics.checkpointLag.set({ ...this.label, group }, Number(d));
  }

  private async syncOffsets(): Promise<void> {
    const admin = this.targetAdmin;
    if (admin === null) return;
    for (const group of this.groups) {
      const cps = [...this.emitted.values()].filter((c) => c.group === group);
      await syncGroupOffsets(admin, group, cps);
    }
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.failure !== null) throw this.failure;
    if (this.out.length === 0) await new Promise((r) => setTimeout(r, POLL_WAIT_MS));
    if (this.out.length === 0) return null;
    const batch = this.out.splice(0, this.out.length);
    mirrorMetrics.checkpoints.inc(this.label, batch.length);
    return batch;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.reader?.close();
    await Promise.all([this.sourceAdmin?.close(), this.targetAdmin?.close()]);
  }
}

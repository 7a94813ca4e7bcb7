/**
 * MirrorSourceTask in exact mode (`mode = exact`, docs/mirror.md): one
 * PartitionCopier (exact-copier.ts) per assigned source partition, each
 * copying the partition's batches into the remote topic at the same offsets.
 * Each copier has its own connections to both clusters, so one partition's
 * long poll does not hold up another's request (a broker answers a
 * connection's requests in order).
 * The task hands no records to the worker (poll() returns none): the copies
 * go through MirrorAppend, and the target's log end is the only position
 * kept, so Connect's source offsets are not used.
 *
 * A remote topic whose mirror.state is `promoted` is not copied into (it
 * was failed over and takes its own writes). A partition that cannot be
 * copied exactly (ExactMirrorError: the target was written by someone else,
 * the source lost records) stops at once, before anything diverges; the
 * task then fails with that reason, so `mirror status` shows it, and the
 * task's other partitions stop with it (with tasks.max at least the number
 * of partitions, a task holds one partition).
 */
import { Admin, Cluster } from '../client/index.js';
import type { SourceRecord, SourceTask } from '../connect/spi.js';
import { SOURCE_DEF, parseMirrorConfig } from './connector-config.js';
import { PartitionCopier } from './exact-copier.js';
import { flowLabel, mirrorMetrics } from './metrics.js';
import { MIRROR_VERSION, decodePartitions } from './task-assignment.js';

const POLL_WAIT_MS = 200;
/** Bytes fetched per partition per request. */
const FETCH_MAX_BYTES = 4 * 1024 * 1024;

export class MirrorExactTask implements SourceTask {
  /** Each copier's own clients: a copier's long-polling fetch (or acks=-1 append) must not hold the others' requests behind it on a shared connection, where a broker answers in order. */
  private readonly clusters: Cluster[] = [];
  private readonly copiers: PartitionCopier[] = [];
  private readonly runs: Promise<void>[] = [];
  private failure: unknown = null;

  version(): string {
    return MIRROR_VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const config = parseMirrorConfig(SOURCE_DEF, props);
    const label = flowLabel(config.source, config.target);
    const log = (m: string): void => {
      process.stderr.write(`[MirrorExactTask ${config.source}->${config.target}] ${m}\n`);
    };
    const clientId = `mirror-${config.source}-${config.target}-exact`;
    const partitions = decodePartitions(props['task.assigned.partitions']);
    const remote = (topic: string): string => config.policy.formatRemoteTopic(config.source, topic);
    const promoted = await promotedTopics(config.targetBootstrap, [...new Set(partitions.map((tp) => remote(tp.topic)))]);
    for (const tp of partitions) {
      const targetTopic = remote(tp.topic);
      if (promoted.has(targetTopic)) {
        log(`${targetTopic} is promoted (mirror.state=promoted): not copied into`);
        continue;
      }
      const source = await Cluster.connect({ bootstrap: config.sourceBootstrap, clientId });
      const target = await Cluster.connect({ bootstrap: config.targetBootstrap, clientId });
      this.clusters.push(source, target);
      const copier = new PartitionCopier({
        source,
        target,
        sourceTopic: tp.topic,
        targetTopic,
        partition: tp.partition,
        acks: -1,
        fetchMaxBytes: FETCH_MAX_BYTES,
        log,
        onCopied: (bytes, offsets, maxTimestampMs) => {
          mirrorMetrics.records.inc(label, offsets);
          mirrorMetrics.bytes.inc(label, bytes);
          if (maxTimestampMs >= 0n) mirrorMetrics.latency.observe(label, Math.max(0, Date.now() - Number(maxTimestampMs)) / 1000);
        },
      });
      this.copiers.push(copier);
      this.runs.push(copier.run().catch((err: unknown) => this.fail(err, log)));
    }
  }

  /** The first failure stops every copier of the task; poll() then throws it (the worker marks the task FAILED). */
  private fail(err: unknown, log: (m: string) => void): void {
    if (this.failure !== null) return;
    this.failure = err;
    log(`stopping: ${(err as Error).message}`);
    for (const c of this.copiers) c.stop();
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.failure !== null) throw this.failure;
    await new Promise((r) => setTimeout(r, POLL_WAIT_MS));
    if (this.failure !== null) throw this.failure;
    return null;
  }

  async stop(): Promise<void> {
    for (const c of this.copiers) c.stop();
    // Closing the clients first fails what the copiers have in flight (a long-polling fetch, an
    // acks=-1 append, a request to a broker that stopped answering), so none of them holds the stop.
    await Promise.all(this.clusters.map((c) => c.close()));
    await Promise.allSettled(this.runs);
  }
}

/** The topics among `topics` whose mirror.state on the target is `promoted`. */
async function promotedTopics(bootstrap: string, topics: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (topics.length === 0) return out;
  const admin = await Admin.connect({ bootstrap, clientId: 'mirror-exact-states' });
  try {
    const described = await admin.describeTopicConfigs(topics).catch(() => null);
    for (const [topic, entries] of described ?? []) if (entries.some((e) => e.name === 'mirror.state' && e.value === 'promoted')) out.add(topic);
  } finally {
    await admin.close();
  }
  return out;
}

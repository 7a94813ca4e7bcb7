/**
 * A Consumer's pattern subscription (`subscribe(/regex/)`, consumer.ts):
 * the topics matching the pattern are listed at subscribe and again every
 * `metadataMaxAgeMs` (as Java), and the group member is told the new set
 * (it rejoins when the set changed). Internal topics never match. Separate
 * because it is a timer loop of its own beside the consumer's pull.
 *
 * A topic list is watched the same way (Java refreshes metadata every
 * `metadata.max.age.ms` and rejoins when a subscribed topic's partition
 * count changed): a topic that did not exist at subscribe, or that got more
 * partitions, is assigned after the next refresh instead of never.
 */
import type { Cluster } from './cluster.js';
import type { GroupMember } from './group.js';

/** What the refresh needs from the Consumer. */
export interface PatternHost {
  /** The cluster client, once connected. */
  cluster(): Cluster | null;
  member(): GroupMember | null;
  closed(): boolean;
}

export class PatternSubscription {
  /** The pattern subscribed to; null while subscribed to a topic list (or not at all). */
  private pattern: RegExp | null = null;
  /** The topic list subscribed to, and its partition counts at the last look (0: missing). */
  private watched: { topics: readonly string[]; counts: string } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly refreshIntervalMs: number,
    private readonly host: PatternHost,
  ) {}

  get active(): boolean {
    return this.pattern !== null;
  }

  /** Subscribes to `pattern` (without its g/y flags: `test` must not keep state) and lists the topics matching it now. */
  subscribe(pattern: RegExp, cluster: Cluster): Promise<string[]> {
    this.pattern = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
    return this.matchPattern(cluster);
  }

  /** A topic list replaces the pattern; its partition counts are watched. */
  watch(topics: readonly string[], cluster: Cluster): void {
    this.pattern = null;
    this.watched = { topics: [...topics], counts: partitionCounts(cluster, topics) };
  }

  /** Re-lists the matching topics after refreshIntervalMs, and so on until close (one timer at a time). */
  scheduleMetadataRefresh(): void {
    if (this.timer !== null || this.host.closed()) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const cluster = this.host.cluster();
      if (cluster === null || this.host.closed()) return;
      const refreshed = this.pattern !== null
        ? this.matchPattern(cluster).then((topics) => this.host.member()?.setTopics(topics))
        : this.checkWatched(cluster);
      void refreshed.catch(() => undefined).finally(() => this.scheduleMetadataRefresh());
    }, this.refreshIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Refreshes the listed topics; a changed partition count (a topic appeared, grew) asks the member to rejoin. */
  private async checkWatched(cluster: Cluster): Promise<void> {
    const watched = this.watched;
    if (watched === null) return;
    await cluster.withRetry(() => cluster.refreshMetadata([...watched.topics]));
    const counts = partitionCounts(cluster, watched.topics);
    if (counts === watched.counts) return;
    watched.counts = counts;
    this.host.member()?.requestRejoin('the partitions of a subscribed topic changed');
  }

  private async matchPattern(cluster: Cluster): Promise<string[]> {
    const pattern = this.pattern as RegExp;
    const metadata = await cluster.withRetry(() => cluster.refreshMetadata(null));
    return [...metadata.topics.values()].filter((t) => !t.isInternal && t.errorCode === 0 && pattern.test(t.name)).map((t) => t.name).sort();
  }
}

/** "topic:count,..." of the topics in the client's metadata (0 for a missing one). */
function partitionCounts(cluster: Cluster, topics: readonly string[]): string {
  return topics.map((t) => {
    const m = cluster.metadata.topics.get(t);
    return `${t}:${m !== undefined && m.errorCode === 0 ? m.partitions.length : 0}`;
  }).join(',');
}

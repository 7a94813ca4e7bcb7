/**
 * A Consumer's pattern subscription (`subscribe(/regex/)`, consumer.ts):
 * the topics matching the pattern are listed at subscribe and again every
 * `metadataMaxAgeMs` (as Java), and the group member is told the new set
 * (it rejoins when the set changed). Internal topics never match. Separate
 * because it is a timer loop of its own beside the consumer's pull.
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

  /** A topic list replaces the pattern. */
  clear(): void {
    this.pattern = null;
  }

  /** Re-lists the matching topics after refreshIntervalMs, and so on until close (one timer at a time). */
  scheduleMetadataRefresh(): void {
    if (this.timer !== null || this.host.closed()) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const cluster = this.host.cluster();
      if (cluster === null || this.host.closed() || this.pattern === null) return;
      void this.matchPattern(cluster)
        .then((topics) => this.host.member()?.setTopics(topics))
        .catch(() => undefined)
        .finally(() => this.scheduleMetadataRefresh());
    }, this.refreshIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private async matchPattern(cluster: Cluster): Promise<string[]> {
    const pattern = this.pattern as RegExp;
    const metadata = await cluster.withRetry(() => cluster.refreshMetadata(null));
    return [...metadata.topics.values()].filter((t) => !t.isInternal && t.errorCode === 0 && pattern.test(t.name)).map((t) => t.name).sort();
  }
}

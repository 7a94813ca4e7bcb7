/**
 * Interactive-query routing (Kafka's StreamsMetadataState): from the tasks
 * of every client by `application.server` endpoint, which the assignor sends
 * in each assignment, answers which instance holds a key of a store (active
 * and standbys) and what every instance holds. The key's task is found as
 * the default partitioner places it: murmur2 of the serialized key over the
 * task count of the sub-topology that owns the store.
 */
import { partitionForKey } from '../../client/index.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Subtopology } from '../topology.js';
import { parseTaskId, taskIdOf, type HostTasks } from './assignment-info.js';
import { parseHostInfo, type HostInfo } from './config.js';

/** Where a key of a store lives (Kafka's KeyQueryMetadata); activeHost null while it is not assigned (rebalancing). */
export interface KeyQueryMetadata {
  activeHost: HostInfo | null;
  standbyHosts: HostInfo[];
  partition: number;
}

/** What one instance holds (Kafka's StreamsMetadata). */
export interface StreamsMetadata {
  hostInfo: HostInfo;
  stateStoreNames: string[];
  topicPartitions: { topic: string; partition: number }[];
  standbyStateStoreNames: string[];
  standbyTopicPartitions: { topic: string; partition: number }[];
}

/** Serializes a key as the store's source topics are keyed (a Serde works). */
export interface KeySerializer<K> {
  serialize(topic: string, key: K): Buffer | null;
}

export class StreamsMetadataState {
  private hosts = new Map<string, HostTasks>();

  constructor(
    private readonly subtopologies: readonly Subtopology[],
    /** Resolved source topic names per sub-topology. */
    private readonly sourceTopics: (sub: Subtopology) => string[],
    /** Tasks (partitions) per sub-topology id. */
    private readonly taskCounts: () => ReadonlyMap<number, number>,
  ) {}

  /** The hosts of the latest assignment. */
  update(hosts: ReadonlyMap<string, HostTasks>): void {
    this.hosts = new Map(hosts);
  }

  forKey<K>(storeName: string, key: K, serializer: KeySerializer<K>): KeyQueryMetadata {
    const sub = this.subtopologies.find((s) => s.stores.includes(storeName));
    if (sub === undefined) throw new StreamsError(StreamsErrorCode.STORE, `no sub-topology has a store '${storeName}'`);
    const n = this.taskCounts().get(sub.id) ?? 0;
    if (n === 0) return { activeHost: null, standbyHosts: [], partition: -1 };
    const bytes = serializer.serialize(this.sourceTopics(sub)[0] ?? storeName, key);
    if (bytes === null) throw new StreamsError(StreamsErrorCode.SERDE, `the key of a query on '${storeName}' serialized to null`);
    const partition = partitionForKey(bytes, n);
    const task = taskIdOf(sub.id, partition);
    let activeHost: HostInfo | null = null;
    const standbyHosts: HostInfo[] = [];
    for (const [endpoint, tasks] of this.hosts) {
      const host = parseHostInfo(endpoint);
      if (host === null) continue;
      if (tasks.active.includes(task)) activeHost = host;
      if (tasks.standby.includes(task)) standbyHosts.push(host);
    }
    return { activeHost, standbyHosts, partition };
  }

  all(): StreamsMetadata[] {
    const out: StreamsMetadata[] = [];
    for (const [endpoint, tasks] of [...this.hosts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const hostInfo = parseHostInfo(endpoint);
      if (hostInfo === null) continue;
      out.push({
        hostInfo,
        stateStoreNames: this.storesOf(tasks.active),
        topicPartitions: this.partitionsOf(tasks.active),
        standbyStateStoreNames: this.storesOf(tasks.standby),
        standbyTopicPartitions: this.partitionsOf(tasks.standby),
      });
    }
    return out;
  }

  private storesOf(tasks: readonly string[]): string[] {
    const subs = new Set(tasks.map((t) => parseTaskId(t).subtopology));
    return [...new Set(this.subtopologies.filter((s) => subs.has(s.id)).flatMap((s) => s.stores))].sort();
  }

  private partitionsOf(tasks: readonly string[]): { topic: string; partition: number }[] {
    return tasks.flatMap((t) => {
      const { subtopology, partition } = parseTaskId(t);
      const sub = this.subtopologies.find((s) => s.id === subtopology);
      return sub === undefined ? [] : this.sourceTopics(sub).map((topic) => ({ topic, partition }));
    });
  }
}

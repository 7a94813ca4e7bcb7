/**
 * The broker's metrics in a prom-client Registry. Nothing here runs on the
 * request path: counters are plain numbers kept by RequestMetrics and
 * TrafficMetrics, copied into prom-client metrics by their `collect()` at
 * scrape time; per-partition and consumer-group gauges are computed then
 * from the replica manager and the group coordinator.
 *
 * Names follow Kafka's broker metrics (BytesInPerSec -> tributary_topic_bytes_in_total,
 * UnderReplicatedPartitions -> tributary_under_replicated_partitions, ...);
 * docs/metrics.md lists each with its labels.
 */
import { Counter, Gauge, type Histogram, type Registry } from 'prom-client';
import { apiKeyName } from '../../protocol/api-keys.js';
import { errorName } from '../../protocol/errors.js';
import type { GroupCoordinator } from '../../coordinator/group/coordinator.js';
import type { ReplicaManager } from '../../replication/replica-manager.js';
import { REQUEST_LATENCY_BUCKETS_SECONDS, type RequestMetrics } from '../request-metrics.js';
import type { TrafficMetrics } from './traffic.js';
import { registerQuotaMetrics, type QuotaMetricsSource } from './quota-collectors.js';
import { registerTransactionMetrics, type TransactionMetricsSource } from './transactions.js';

/** What the exporter reads; all of it at scrape time. */
export interface MetricsSources {
  readonly nodeId: number;
  readonly clusterId: string;
  readonly requests: RequestMetrics;
  readonly traffic: TrafficMetrics;
  readonly replicaManager: ReplicaManager;
  readonly groups: GroupCoordinator;
  topicExists(topic: string): boolean;
  /** Open client connections per listener name. */
  connections(): ReadonlyMap<string, number>;
  /** Connections accepted since start, per listener name. */
  connectionsAccepted(): ReadonlyMap<string, number>;
  /** The largest lag, in records, of the partitions this broker follows (absent: follows nothing). */
  replicaFetchMaxLag?: () => bigint;
  /** The fetch session cache (KIP-227): open sessions and the partitions they hold. */
  fetchSessions?: () => { sessions: number; partitions: number };
  /** This node's controller (every node has one; only the active one elects and fences). */
  readonly controller?: ControllerMetricsSource | undefined;
  /** Quota throttles, refused connections and per-principal usage (quota-collectors.ts). */
  readonly quotas?: QuotaMetricsSource | undefined;
  /** The transaction coordinator and the hanging transaction detector (metrics/transactions.ts). */
  readonly transactions?: TransactionMetricsSource | undefined;
}

export interface ControllerMetricsSource {
  /** This node is the active controller. */
  isActive(): boolean;
  /** Leader elections committed by this node, by how the leader was chosen (leadership.ts ElectionKind). */
  elections(): ReadonlyMap<string, number>;
  /** Brokers fenced at once because their heartbeat connection closed. */
  fastFences(): number;
  /** Partitions without a leader, and with fewer in-sync replicas than replicas, in the metadata image. */
  partitionCounts(): { offline: number; underReplicated: number; underMinIsr: number };
}

export const METRIC_PREFIX = 'tributary_';

export function registerBrokerMetrics(registry: Registry, s: MetricsSources): void {
  const registers = [registry];
  const name = (n: string): string => `${METRIC_PREFIX}${n}`;

  new Gauge({
    name: name('broker_info'),
    help: 'Always 1; labels identify the broker.',
    labelNames: ['node_id', 'cluster_id'] as const,
    registers,
    collect() {
      this.set({ node_id: s.nodeId, cluster_id: s.clusterId }, 1);
    },
  });

  registerTrafficMetrics(registers, s);
  registerRequestMetrics(registry, s);
  registerConnectionMetrics(registers, s);
  registerPartitionMetrics(registers, s);
  if (s.transactions !== undefined) registerTransactionMetrics(registers, METRIC_PREFIX, s.transactions);
  registerGroupMetrics(registers, s);
  if (s.controller !== undefined) registerControllerMetrics(registers, s.controller);
  if (s.quotas !== undefined) registerQuotaMetrics(registry, s.quotas, METRIC_PREFIX);
}

// ---------------------------------------------------------------- controller

/**
 * Kafka's controller metrics: ActiveControllerCount, OfflinePartitionsCount,
 * leader election rates (LeaderElectionRateAndTimeMs,
 * UncleanLeaderElectionsPerSec) as counters by kind. Partition counts are
 * reported by the active controller only, so a sum over nodes is the cluster's.
 */
function registerControllerMetrics(registers: Registry[], c: ControllerMetricsSource): void {
  const name = (n: string): string => `${METRIC_PREFIX}${n}`;
  new Gauge({
    name: name('controller_active'),
    help: '1 on the active controller, else 0 (Kafka ActiveControllerCount).',
    registers,
    collect() {
      this.set(c.isActive() ? 1 : 0);
    },
  });
  new Counter({
    name: name('controller_leader_elections_total'),
    help: 'Leader elections this node committed as active controller, by kind: isr, elr, last_known, preferred, unclean, none (the partition went offline).',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.reset();
      for (const [kind, n] of c.elections()) this.inc({ kind }, n);
    },
  });
  new Counter({
    name: name('controller_unclean_leader_elections_total'),
    help: 'Unclean leader elections (Kafka UncleanLeaderElectionsPerSec): the leader may miss acknowledged records.',
    registers,
    collect() {
      this.reset();
      this.inc(c.elections().get('unclean') ?? 0);
    },
  });
  new Counter({
    name: name('controller_fast_fences_total'),
    help: 'Brokers fenced at once because the connection their heartbeats came on closed (not by session timeout).',
    registers,
    collect() {
      this.reset();
      this.inc(c.fastFences());
    },
  });
  const partitionGauge = (metric: string, help: string, pick: (n: ReturnType<ControllerMetricsSource['partitionCounts']>) => number): void => {
    new Gauge({
      name: name(metric),
      help,
      registers,
      collect() {
        this.set(c.isActive() ? pick(c.partitionCounts()) : 0);
      },
    });
  };
  partitionGauge('controller_offline_partitions', 'Partitions without a leader (Kafka OfflinePartitionsCount); active controller only.', (n) => n.offline);
  partitionGauge('controller_under_replicated_partitions', 'Partitions whose ISR is smaller than their replica set; active controller only.', (n) => n.underReplicated);
  partitionGauge('controller_under_min_isr_partitions', 'Partitions whose ISR is below min.insync.replicas; active controller only.', (n) => n.underMinIsr);
}

// ---------------------------------------------------------------- traffic

function registerTrafficMetrics(registers: Registry[], s: MetricsSources): void {
  /** The traffic map, minus topics deleted since (their series disappear, as Kafka removes topic metrics). */
  const live = (): ReadonlyMap<string, { bytesIn: number; recordsIn: number; bytesOut: number }> => {
    for (const topic of s.traffic.topicTraffic().keys()) if (!s.topicExists(topic)) s.traffic.forgetTopic(topic);
    return s.traffic.topicTraffic();
  };
  const perTopic = (metric: string, help: string, value: (t: { bytesIn: number; recordsIn: number; bytesOut: number }) => number): void => {
    new Counter({
      name: `${METRIC_PREFIX}${metric}`,
      help,
      labelNames: ['topic'] as const,
      registers,
      collect() {
        this.reset();
        for (const [topic, t] of live()) this.inc({ topic }, value(t));
      },
    });
  };
  perTopic('topic_bytes_in_total', 'Bytes of record batches appended by Produce, per topic (Kafka BytesInPerSec).', (t) => t.bytesIn);
  perTopic('topic_records_in_total', 'Records appended by Produce, per topic, from the batch headers (Kafka MessagesInPerSec).', (t) => t.recordsIn);
  perTopic('topic_bytes_out_total', 'Bytes of record data returned by Fetch, per topic (Kafka BytesOutPerSec).', (t) => t.bytesOut);

  new Counter({
    name: `${METRIC_PREFIX}partition_errors_total`,
    help: 'Partition-level error codes in Produce and Fetch responses.',
    labelNames: ['api', 'error'] as const,
    registers,
    collect() {
      this.reset();
      for (const e of s.traffic.partitionErrors()) this.inc({ api: apiKeyName(e.apiKey), error: errorName(e.errorCode) }, e.count);
    },
  });
}

// ---------------------------------------------------------------- requests

function registerRequestMetrics(registry: Registry, s: MetricsSources): void {
  const registers = [registry];
  const labelsOf = (v: { apiKey: number; apiVersion: number }): { api: string; version: number } => ({ api: apiKeyName(v.apiKey), version: v.apiVersion });
  new Counter({
    name: `${METRIC_PREFIX}requests_total`,
    help: 'Requests answered, per API and version (Kafka RequestsPerSec).',
    labelNames: ['api', 'version'] as const,
    registers,
    collect() {
      this.reset();
      for (const v of s.requests.versions()) this.inc(labelsOf(v), v.requests);
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}request_errors_total`,
    help: 'Requests answered with a top-level error code, or that failed with an unexpected error (UNKNOWN_SERVER_ERROR), per API and version.',
    labelNames: ['api', 'version'] as const,
    registers,
    collect() {
      this.reset();
      for (const v of s.requests.versions()) this.inc(labelsOf(v), v.errors);
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}requests_rejected_total`,
    help: 'Requests refused before a handler saw them (the connection is closed), per reason.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const [reason, n] of s.requests.rejected()) this.inc({ reason }, n);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}requests_in_flight`,
    help: 'Requests dispatched to a handler and not answered yet (long-poll fetches included).',
    registers,
    collect() {
      this.set(s.requests.inFlight());
    },
  });
  registry.registerMetric(
    precomputedHistogram(
      `${METRIC_PREFIX}request_latency_seconds`,
      'Time from reading a request to its response being ready, per API and version (Kafka TotalTimeMs).',
      () => [...s.requests.versions()].map((v) => ({ labels: labelsOf(v), bucketCounts: v.bucketCounts, sum: v.latencySecondsSum })),
    ),
  );
}

interface HistogramSeries {
  labels: Record<string, string | number>;
  /** Per bucket, not cumulative; one more entry than the bounds (+Inf). */
  bucketCounts: readonly number[];
  sum: number;
}

/**
 * A histogram whose buckets are counted elsewhere (RequestMetrics, on the hot
 * path without labels or hashing) and only rendered here: prom-client's own
 * Histogram hashes its labels on every observe. The Registry needs just
 * name/help/type/aggregator, get() and reset() from a metric.
 */
function precomputedHistogram(metricName: string, help: string, series: () => HistogramSeries[]): Histogram {
  const metric = {
    name: metricName,
    help,
    type: 'histogram',
    aggregator: 'sum',
    reset(): void {},
    async get() {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const h of series()) {
        let cumulative = 0;
        REQUEST_LATENCY_BUCKETS_SECONDS.forEach((le, i) => {
          cumulative += h.bucketCounts[i] ?? 0;
          values.push({ metricName: `${metricName}_bucket`, labels: { ...h.labels, le }, value: cumulative });
        });
        cumulative += h.bucketCounts[REQUEST_LATENCY_BUCKETS_SECONDS.length] ?? 0;
        values.push({ metricName: `${metricName}_bucket`, labels: { ...h.labels, le: '+Inf' }, value: cumulative });
        values.push({ metricName: `${metricName}_sum`, labels: h.labels, value: h.sum });
        values.push({ metricName: `${metricName}_count`, labels: h.labels, value: cumulative });
      }
      return { name: metricName, help, type: 'histogram', aggregator: 'sum', values };
    },
  };
  // The Registry is duck-typed; prom-client's typings only name its own classes.
  return metric as unknown as Histogram;
}

// ---------------------------------------------------------------- connections

function registerConnectionMetrics(registers: Registry[], s: MetricsSources): void {
  new Gauge({
    name: `${METRIC_PREFIX}connections`,
    help: 'Open client connections, per listener (Kafka connection-count).',
    labelNames: ['listener'] as const,
    registers,
    collect() {
      this.reset();
      for (const [listener, n] of s.connections()) this.set({ listener }, n);
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}connections_accepted_total`,
    help: 'Client connections accepted since start, per listener (Kafka connection-creation-total).',
    labelNames: ['listener'] as const,
    registers,
    collect() {
      this.reset();
      for (const [listener, n] of s.connectionsAccepted()) this.inc({ listener }, n);
    },
  });
}

// ---------------------------------------------------------------- partitions

function registerPartitionMetrics(registers: Registry[], s: MetricsSources): void {
  const perPartition = (metric: string, help: string, value: (p: PartitionView) => number): void => {
    new Gauge({
      name: `${METRIC_PREFIX}${metric}`,
      help,
      labelNames: ['topic', 'partition'] as const,
      registers,
      collect() {
        this.reset();
        for (const p of s.replicaManager.all()) this.set({ topic: p.topic, partition: p.partition }, value(p));
      },
    });
  };
  perPartition('log_size_bytes', 'Bytes of the partition log on disk, all segments (Kafka Log Size).', (p) => p.log.sizeBytes);
  perPartition('log_segments', 'Segments of the partition log (Kafka Log NumLogSegments).', (p) => p.log.segmentCount);
  perPartition('log_end_offset', 'Offset the next appended record gets (Kafka Log LogEndOffset).', (p) => Number(p.logEndOffset));
  perPartition('log_start_offset', 'First offset still in the log (Kafka Log LogStartOffset).', (p) => Number(p.logStartOffset));
  perPartition('high_watermark', 'Offset below which records are committed and visible to consumers.', (p) => Number(p.highWatermark));
  perPartition('last_stable_offset_lag', 'High watermark minus last stable offset: records held back from read_committed consumers by open transactions (on the leader; 0 on followers).', (p) =>
    p.isLeader ? Number(p.highWatermark - p.lastStableOffset) : 0,
  );
  perPartition('producer_ids', 'Idempotent producers whose state the partition keeps (Kafka Log ProducerIdCount).', (p) => p.log.producerState.size);

  const count = (metric: string, help: string, include: (p: PartitionView) => boolean): void => {
    new Gauge({
      name: `${METRIC_PREFIX}${metric}`,
      help,
      registers,
      collect() {
        let n = 0;
        for (const p of s.replicaManager.all()) if (include(p)) n++;
        this.set(n);
      },
    });
  };
  count('partitions', 'Partitions hosted on this broker (Kafka PartitionCount).', () => true);
  count('leader_partitions', 'Partitions this broker leads (Kafka LeaderCount).', (p) => p.isLeader);
  count('under_replicated_partitions', 'Partitions led here whose ISR is smaller than their replica set (Kafka UnderReplicatedPartitions; 0 on one node).', (p) => p.isLeader && p.isr.length < p.replicas.length);
  count('under_min_isr_partitions', 'Partitions led here whose ISR is below min(min.insync.replicas, replicas): acks=all produce fails (Kafka UnderMinIsrPartitionCount).', (p) => p.isLeader && p.isUnderMinIsr());
  count('at_min_isr_partitions', 'Partitions led here whose ISR is exactly at min.insync.replicas: one more failure stops acks=all (Kafka AtMinIsrPartitionCount).', (p) => p.isLeader && p.isAtMinIsr());
  registerIsrMetrics(registers, s);
}

function registerIsrMetrics(registers: Registry[], s: MetricsSources): void {
  const isrCounter = (metric: string, help: string, value: () => number): void => {
    new Counter({
      name: `${METRIC_PREFIX}${metric}`,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  };
  const counts = (): { shrinks: number; expands: number; failed: number } => s.replicaManager.isrChangeCounts;
  isrCounter('isr_shrinks_total', 'ISR shrinks committed for partitions led here (Kafka IsrShrinksPerSec).', () => counts().shrinks);
  isrCounter('isr_expands_total', 'ISR expansions committed for partitions led here (Kafka IsrExpandsPerSec).', () => counts().expands);
  isrCounter('isr_updates_failed_total', 'ISR changes the controller refused or that did not reach it (Kafka FailedIsrUpdatesPerSec).', () => counts().failed);
  new Gauge({
    name: `${METRIC_PREFIX}replica_fetcher_max_lag`,
    help: 'Largest lag in records, leader high watermark minus local log end, of the partitions this broker follows (Kafka ReplicaFetcherManager MaxLag).',
    registers,
    collect() {
      this.set(Number(s.replicaFetchMaxLag?.() ?? 0n));
    },
  });
  registerFetchSessionMetrics(registers, s);
}

function registerFetchSessionMetrics(registers: Registry[], s: MetricsSources): void {
  const gauge = (metric: string, help: string, value: (c: { sessions: number; partitions: number }) => number): void => {
    new Gauge({
      name: `${METRIC_PREFIX}${metric}`,
      help,
      registers,
      collect() {
        this.set(value(s.fetchSessions?.() ?? { sessions: 0, partitions: 0 }));
      },
    });
  };
  gauge('incremental_fetch_sessions', 'Open incremental fetch sessions, of consumers and followers (KIP-227; Kafka NumIncrementalFetchSessions).', (c) => c.sessions);
  gauge('incremental_fetch_partitions_cached', 'Partitions held by the open fetch sessions (Kafka NumIncrementalFetchPartitionsCached).', (c) => c.partitions);
}

type PartitionView = ReturnType<ReplicaManager['all']> extends IterableIterator<infer P> ? P : never;

// ---------------------------------------------------------------- consumer groups

function registerGroupMetrics(registers: Registry[], s: MetricsSources): void {
  const snapshot = perScrape(() => groupSnapshot(s));
  const labelNames = ['group', 'topic', 'partition'] as const;
  new Gauge({
    name: `${METRIC_PREFIX}consumer_group_committed_offset`,
    help: 'Committed offset of a consumer group, per partition (groups this broker coordinates).',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const o of snapshot().offsets) this.set(o.labels, o.committed);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}consumer_group_lag`,
    help: 'High watermark minus committed offset, per group and partition (partitions led here; never negative).',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const o of snapshot().offsets) if (o.lag !== null) this.set(o.labels, o.lag);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}consumer_groups`,
    help: 'Consumer groups this broker coordinates, per state.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      this.reset();
      for (const [state, n] of snapshot().states) this.set({ state }, n);
    },
  });
}

interface GroupSnapshot {
  offsets: { labels: { group: string; topic: string; partition: number }; committed: number; lag: number | null }[];
  states: Map<string, number>;
}

/** Committed offsets vs high watermarks for every group the coordinator has loaded. */
function groupSnapshot(s: MetricsSources): GroupSnapshot {
  const out: GroupSnapshot = { offsets: [], states: new Map() };
  for (const g of s.groups.listGroups()) {
    out.states.set(g.state, (out.states.get(g.state) ?? 0) + 1);
    for (const o of s.groups.fetchOffsets(g.groupId, null, false).partitions) {
      if (o.offset < 0n) continue;
      const p = s.replicaManager.get(o.topic, o.partition);
      const lag = p && p.isLeader ? Number(p.highWatermark > o.offset ? p.highWatermark - o.offset : 0n) : null;
      out.offsets.push({ labels: { group: g.groupId, topic: o.topic, partition: o.partition }, committed: Number(o.offset), lag });
    }
  }
  return out;
}

/**
 * Computes once per scrape for several metrics: the Registry calls every
 * metric's collect() in one synchronous pass, so the value is dropped on the
 * next microtask.
 */
function perScrape<T>(compute: () => T): () => T {
  let cached: { value: T } | null = null;
  return () => {
    if (cached === null) {
      cached = { value: compute() };
      queueMicrotask(() => {
        cached = null;
      });
    }
    return cached.value;
  };
}

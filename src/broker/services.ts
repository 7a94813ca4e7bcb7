/**
 * What handlers can reach: the broker's subsystems behind one object, so a
 * handler file imports types only and tests can assemble a broker in-process.
 */
import type { Clock } from '../util/clock.js';
import type { ApiVersionRange } from './handler-registry.js';
import type { RequestMetrics } from './request-metrics.js';
import type { TrafficMetrics } from './metrics/traffic.js';
import type { ReplicaManager } from './replica-manager.js';
import type { MetadataService } from './metadata-service.js';
import type { GroupService } from './group/group-service.js';
import type { ConfigService } from './configs/config-service.js';
import type { ProducerIdManager } from './producer-ids.js';
import type { ClusterServices } from './lifecycle/cluster-services.js';
import type { RaftService } from '../controller/quorum/raft-service.js';
import type { BufferPool } from '../util/buffer-pool.js';

/** Per-topic rules the request path enforces (resolved topic config). */
export interface TopicRules {
  readonly maxMessageBytes: number;
  readonly segmentBytes: number;
  readonly messageTimestampType: 'CreateTime' | 'LogAppendTime';
  readonly timestampBeforeMaxMs: number;
  readonly timestampAfterMaxMs: number;
  readonly minInsyncReplicas: number;
  /** cleanup.policy includes compact: every record needs a key. */
  readonly compacted: boolean;
  /** compression.type: a codec other than `producer` makes Produce recompress batches in another codec. */
  readonly compressionType?: 'uncompressed' | 'zstd' | 'lz4' | 'snappy' | 'gzip' | 'producer';
}

export interface BrokerServices {
  readonly nodeId: number;
  readonly clock: Clock;
  readonly replicaManager: ReplicaManager;
  readonly metadata: MetadataService;
  readonly metrics: RequestMetrics;
  /** Bytes and records in/out per topic, partition-level errors (Produce and Fetch count them). */
  readonly traffic: TrafficMetrics;
  /** Consumer groups: the coordinator and its __consumer_offsets wiring. */
  readonly groups: GroupService;
  /** Topic and broker configs: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs. */
  readonly configs: ConfigService;
  /** Producer ids and epochs for InitProducerId (idempotent producers). */
  readonly producerIds: ProducerIdManager;
  /**
   * Recycled large Buffers (src/util/buffer-pool.ts): Fetch reads them full of
   * log data and releases them after the response's socket write; the
   * connection assembles multi-chunk Produce requests in them and releases
   * them once the handler has settled.
   */
  readonly ioBuffers: BufferPool;
  /** Controller channel (forwarding) and broker-lifecycle operations; absent = a node alone, everything local. */
  readonly cluster?: ClusterServices;
  /** The metadata quorum's RPCs (Vote, BeginQuorumEpoch, DescribeQuorum, FetchSnapshot, raft Fetch); absent on a node that is not a voter. */
  readonly raft?: RaftService;
  apiVersions(): ApiVersionRange[];
  topicRules(topic: string): TopicRules;
}

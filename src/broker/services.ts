/**
 * What handlers can reach: the broker's subsystems behind one object, so a
 * handler file imports types only and tests can assemble a broker in-process.
 */
import type { Clock } from '../util/clock.js';
import type { ApiVersionRange } from './handler-registry.js';
import type { RequestMetrics } from './request-metrics.js';
import type { TrafficMetrics } from './metrics/traffic.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { TopicRules } from '../replication/topic-rules.js';
import type { MetadataService } from './metadata-service.js';
import type { GroupService } from '../coordinator/group/group-service.js';
import type { TransactionService } from '../coordinator/transaction/transaction-service.js';
import type { ConfigService } from './configs/config-service.js';
import type { ProducerIdManager } from './producer-ids.js';
import type { ClusterServices } from './lifecycle/cluster-services.js';
import type { RaftService } from '../controller/quorum/raft-service.js';
import type { BufferPool } from '../util/buffer-pool.js';
import type { FetchSessionCache } from './fetch-sessions.js';
import type { StandardAuthorizer } from '../security/authorizer/standard-authorizer.js';
import type { RequestQuotas } from './request-quotas.js';

export type { TopicRules } from '../replication/topic-rules.js';

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
  /** Transactions: the coordinator and its __transaction_state wiring. */
  readonly transactions: TransactionService;
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
  /** Incremental fetch sessions (KIP-227). */
  readonly fetchSessions: FetchSessionCache;
  /** Client quotas and per-principal usage (request-quotas.ts); absent = no quota is ever enforced (controller listeners: the nodes' own traffic). */
  readonly quotas?: RequestQuotas | undefined;
  /** Controller channel (forwarding) and broker-lifecycle operations; absent = a node alone, everything local. */
  readonly cluster?: ClusterServices;
  /** The metadata quorum's RPCs (Vote, BeginQuorumEpoch, DescribeQuorum, FetchSnapshot, raft Fetch); absent on a node that is not a voter. */
  readonly raft?: RaftService;
  /** The ACL authorizer (authorizer.class.name); null = every request is allowed. Connections cache its decisions. */
  readonly authorizer: StandardAuthorizer | null;
  apiVersions(): ApiVersionRange[];
  topicRules(topic: string): TopicRules;
}

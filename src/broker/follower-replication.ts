/**
 * Partition replication on a cluster node: the follower fetchers
 * (ReplicaFetcherManager over Fetch to the leaders' inter-broker listener)
 * and the leader's periodic ISR check (every half of
 * replica.lag.time.max.ms, as Kafka schedules isr-expiration). A single node
 * runs neither: its partitions have one replica.
 */
import type { ConnectionSecurity } from '../net/connection-options.js';
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import { systemTimers } from '../util/timer.js';
import type { MetadataImage } from '../controller/metadata/image.js';
import { ReplicaFetcherManager } from '../replication/replica-fetcher-manager.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { IsrChangeOutcome, IsrChangeProposal, Partition } from '../replication/partition.js';
import { ErrorCode } from '../protocol/errors.js';
import type { AlterPartitionSender } from './alter-partition-sender.js';
import { BrokerFetchTransport } from './replica-fetch-transport.js';
import type { ReplicationSettings } from './settings.js';

export const REPLICATION_DEFAULTS: Omit<ReplicationSettings, 'interBrokerListenerName'> = {
  lagTimeMaxMs: 30_000,
  fetchMaxBytes: 1_048_576,
  fetchMinBytes: 1,
  fetchWaitMaxMs: 500,
  fetchResponseMaxBytes: 10_485_760,
  fetchBackoffMs: 1_000,
};

export interface FollowerReplicationOptions {
  readonly nodeId: number;
  readonly settings: ReplicationSettings;
  readonly hosted: ReplicaManager;
  readonly image: () => MetadataImage;
  readonly clock: Clock;
  readonly logger: Logger;
  /** TLS/SASL of the inter-broker listener (ClusterSettings.links). */
  readonly security?: ConnectionSecurity | undefined;
}

export interface FollowerReplication {
  readonly fetchers: ReplicaFetcherManager;
  stop(): void;
}

export function startFollowerReplication(opts: FollowerReplicationOptions): FollowerReplication {
  const { settings, hosted, logger } = opts;
  const endpointOf = (id: number): { host: string; port: number } | undefined => {
    const b = opts.image().broker(id);
    const ep = b?.endPoints.find((e) => e.name === settings.interBrokerListenerName) ?? b?.endPoints[0];
    return ep === undefined ? undefined : { host: ep.host, port: ep.port };
  };
  // The client id names the node, so logs and fault-injecting proxies can tell who is fetching.
  const transport = new BrokerFetchTransport(endpointOf, `broker-${opts.nodeId}-replica-fetcher`, opts.security);
  const fetchers = new ReplicaFetcherManager({
    logs: hosted,
    transport,
    clock: opts.clock,
    timers: systemTimers,
    logger,
    options: {
      maxWaitMs: settings.fetchWaitMaxMs,
      minBytes: settings.fetchMinBytes,
      maxBytes: settings.fetchResponseMaxBytes,
      partitionMaxBytes: settings.fetchMaxBytes,
      backoffMs: settings.fetchBackoffMs,
    },
  });
  hosted.onFollowerChange((p) => fetchers.partitionChanged(p));
  // Partitions opened while the metadata replayed, before this started.
  for (const p of hosted.all()) fetchers.partitionChanged(p);
  const isrCheck = setInterval(() => hosted.shrinkIsrs(), Math.max(1, Math.floor(settings.lagTimeMaxMs / 2)));
  isrCheck.unref();
  return {
    fetchers,
    stop: () => {
      clearInterval(isrCheck);
      fetchers.shutdown();
      transport.close();
    },
  };
}

/**
 * A leader's ISR change, sent as AlterPartition v3: every proposed member
 * with the broker epoch the metadata image has for it (KIP-903), so the
 * controller refuses a member that restarted meanwhile.
 */
export async function proposeIsrChange(sender: AlterPartitionSender, image: MetadataImage | undefined, p: Partition, proposal: IsrChangeProposal): Promise<IsrChangeOutcome> {
  const r = await sender.submit({
    topicId: p.topicId,
    topic: p.topic,
    partition: p.partition,
    leaderEpoch: proposal.leaderEpoch,
    partitionEpoch: proposal.partitionEpoch,
    newIsr: proposal.newIsr.map((brokerId) => ({ brokerId, brokerEpoch: image?.broker(brokerId)?.brokerEpoch ?? -1n })),
    leaderRecoveryState: 0,
  });
  if (r.errorCode !== ErrorCode.NONE) return { kind: 'failed', errorCode: r.errorCode };
  return { kind: 'committed', leaderEpoch: r.leaderEpoch, partitionEpoch: r.partitionEpoch, isr: r.isr };
}

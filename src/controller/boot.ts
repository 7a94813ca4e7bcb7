/**
 * Boots the metadata layer of one node: meta.properties, the metadata log,
 * the image (replayed from the log), the publisher and the controller.
 *
 *   const booted = await bootController({ dataDir, fs, clock, random, nodeId,
 *     numPartitionsDefault: 1, replicationFactorDefault: 1,
 *     onDelta: (delta, image) => { ...create/delete partition logs... } });
 *   await booted.controller.registerBroker({ endpoints, rack: null });
 *   await booted.controller.createTopics([...], { validateOnly: false });
 *
 * Order: (1) check or create `<dataDir>/meta.properties`; (2) open and
 * recover `<dataDir>/__cluster_metadata-0/`; (3) replay every committed batch
 * into the image, silently; (4) publish one initial delta (the whole image) to
 * `onDelta`; (5) finalize feature levels and, when `advertisedListeners` is
 * given, register this broker (both no-ops when already in the image).
 * The broker usually registers itself later, once its listeners are bound
 * (port 0 becomes a real port), with `controller.registerBroker`.
 *
 * The metadata log is always Raft (quorum/raft-metadata-log.ts). Without
 * `log`, this node is a quorum of one: a RaftMetadataLog whose only voter is
 * `nodeId`, with no transport (it never sends a message). It elects itself
 * in `start()` (a new epoch and a leader-change entry per start), and every
 * append is fsynced before it commits (one voter: `propose` flushes, then the
 * high watermark moves). A data dir written by the former LocalMetadataLog
 * (plain batches of epoch 0) opens unchanged. Multi-voter clusters pass their
 * own RaftMetadataLog (src/broker/lifecycle/cluster-node.ts).
 */
import type { FileSystem, LogConfig } from '../storage/index.js';
import type { Clock } from '../util/clock.js';
import { validateTopicConfigs as validateTopicConfigsDefault } from '../config/topic-broker.js';
import { systemRandom, type Random } from '../util/random.js';
import type { ConfigSchema } from './config-plan.js';
import { QuorumController, type ControllerOptions } from './controller.js';
import { MetadataImage } from './metadata/image.js';
import { MetadataPublisher, type DeltaListener } from './metadata/publisher.js';
import { MetadataLogError, type MetadataLog } from './metadata-log.js';
import { RaftMetadataLog, type RaftTimer } from './quorum/raft-metadata-log.js';
import { ensureMetaProperties, type MetaProperties } from './meta-properties.js';
import type { BrokerConfigValidator, ListenerEndpoint, TopicConfigValidator } from './types.js';

export interface BootControllerOptions {
  dataDir: string;
  fs: FileSystem;
  clock: Clock;
  /** Cluster id, topic ids, incarnation ids, replica placement. Default: systemRandom (pass a SeededRandom in tests). */
  random?: Random | undefined;
  /** node.id */
  nodeId: number;
  /** For a new data dir; drawn from `random` when absent; must match meta.properties otherwise. */
  clusterId?: string | undefined;
  /** num.partitions */
  numPartitionsDefault: number;
  /** default.replication.factor */
  replicationFactorDefault: number;
  /** See ControllerOptions.replicationFactorMax. */
  replicationFactorMax?: number | undefined;
  /** Default: src/config/topic-broker.ts validateTopicConfigs. */
  validateTopicConfigs?: TopicConfigValidator | undefined;
  validateBrokerConfigs?: BrokerConfigValidator | undefined;
  /** Key types and inherited values for IncrementalAlterConfigs APPEND/SUBTRACT. */
  configSchema?: ConfigSchema | undefined;
  featureLevels?: Readonly<Record<string, number>> | undefined;
  /** Subscribed before the replay: gets the initial delta, then one per committed batch. */
  onDelta?: DeltaListener | undefined;
  /** A delta subscriber threw. Default: rethrow asynchronously (the process stops, CONTRIBUTING.md: assert invariants). */
  onListenerError?: ((err: unknown) => void) | undefined;
  /** Register this broker during boot (else call controller.registerBroker later). */
  advertisedListeners?: readonly ListenerEndpoint[] | undefined;
  rack?: string | null | undefined;
  /** Replaces the one-voter Raft log (a multi-voter RaftMetadataLog; tests). */
  log?: MetadataLog | undefined;
  /** broker.session.timeout.ms (the active controller fences brokers silent for this long). */
  brokerSessionTimeoutMs?: number | undefined;
  /** Election settings and the elections listener (ControllerOptions). */
  minInSyncReplicasDefault?: number | undefined;
  uncleanLeaderElectionDefault?: boolean | undefined;
  onElections?: ControllerOptions['onElections'];
  /** Segment settings of the one-voter log's `__cluster_metadata-0` PartitionLog. */
  metadataLogConfig?: Partial<LogConfig> | undefined;
  /**
   * The one-voter log's periodic Raft tick (util/timer.ts systemTimer in the
   * broker). A lone voter commits inside append and needs no tick to make
   * progress, so tests may leave it out (nothing then runs between appends).
   */
  timer?: RaftTimer | undefined;
  /** Interval of that tick (default ONE_VOTER_TICK_INTERVAL_MS). */
  tickIntervalMs?: number | undefined;
  /** The one-voter log's snapshot thresholds (RaftMetadataLog's defaults: 10 000 records, 16 MiB). */
  snapshotIntervalRecords?: number | undefined;
  snapshotIntervalBytes?: number | undefined;
  /** The one-voter log's warnings (a damaged snapshot ignored, a failed log). */
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * A lone voter's tick has no peer to fetch from, vote with or announce to,
 * and its check-quorum always passes (it is its own majority): it only
 * re-checks the commit that append already made. So it runs rarely.
 */
export const ONE_VOTER_TICK_INTERVAL_MS = 500;

/** Never fires: the one-voter log's appends tick it themselves. */
const NO_TIMER: RaftTimer = { every: () => () => undefined };

/** The single-node default: a Raft quorum whose only voter is this node (no transport, no controller listener). */
export function oneVoterLog(opts: BootControllerOptions & { clusterId: string; random: Random }): RaftMetadataLog {
  return RaftMetadataLog.open({
    fs: opts.fs,
    clock: opts.clock,
    random: opts.random,
    timer: opts.timer ?? NO_TIMER,
    dataDir: opts.dataDir,
    nodeId: opts.nodeId,
    // The endpoint is never dialled (one voter sends nothing); it only names the leader in NotLeaderError.
    voters: [{ id: opts.nodeId, host: '', port: 0 }],
    clusterId: opts.clusterId,
    tickIntervalMs: opts.tickIntervalMs ?? ONE_VOTER_TICK_INTERVAL_MS,
    snapshotIntervalRecords: opts.snapshotIntervalRecords,
    snapshotIntervalBytes: opts.snapshotIntervalBytes,
    logConfig: opts.metadataLogConfig,
    onWarning: opts.onWarning,
  });
}

export interface BootedController {
  readonly clusterId: string;
  readonly nodeId: number;
  readonly metaProperties: MetaProperties;
  readonly controller: QuorumController;
  readonly log: MetadataLog;
  /** The current image (the same object, kept current). */
  image(): MetadataImage;
  /** Gets the initial delta at once, then one per committed batch; returns unsubscribe. */
  subscribe(listener: DeltaListener): () => void;
  close(): Promise<void>;
}

function adaptTopicValidator(configs: ReadonlyMap<string, string>): readonly { key: string; message: string }[] {
  return validateTopicConfigsDefault(Object.fromEntries(configs));
}

function rethrowLater(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}

export async function bootController(opts: BootControllerOptions): Promise<BootedController> {
  const random = opts.random ?? systemRandom;
  const { properties } = ensureMetaProperties({ fs: opts.fs, dataDir: opts.dataDir, nodeId: opts.nodeId, clusterId: opts.clusterId, random });
  const log = opts.log ?? oneVoterLog({ ...opts, clusterId: properties.clusterId, random });
  const image = new MetadataImage(properties.clusterId);
  const publisher = new MetadataPublisher(image, opts.onListenerError ?? rethrowLater);
  if (opts.onDelta !== undefined) publisher.subscribe(opts.onDelta);
  try {
    await log.start(publisher.handleCommit);
  } catch (err) {
    await log.close().catch(() => undefined);
    throw err;
  }
  publisher.finishLoad();
  const controller = new QuorumController({
    nodeId: opts.nodeId,
    log,
    image,
    random,
    numPartitionsDefault: opts.numPartitionsDefault,
    replicationFactorDefault: opts.replicationFactorDefault,
    replicationFactorMax: opts.replicationFactorMax,
    validateTopicConfigs: opts.validateTopicConfigs ?? adaptTopicValidator,
    validateBrokerConfigs: opts.validateBrokerConfigs ?? null,
    configSchema: opts.configSchema ?? null,
    featureLevels: opts.featureLevels,
    clock: opts.clock,
    brokerSessionTimeoutMs: opts.brokerSessionTimeoutMs,
    minInSyncReplicasDefault: opts.minInSyncReplicasDefault,
    uncleanLeaderElectionDefault: opts.uncleanLeaderElectionDefault,
    onElections: opts.onElections,
  });
  // On a multi-voter quorum this node may not lead (yet): the active
  // controller finalizes features when it becomes active.
  await controller.finalizeFeatures().catch((err: unknown) => {
    if (!(err instanceof MetadataLogError && err.code === 'ERR_TRIB_METADATA_NOT_LEADER')) throw err;
  });
  if (opts.advertisedListeners !== undefined) {
    await controller.registerBroker({ endpoints: opts.advertisedListeners, rack: opts.rack ?? null });
  }
  return {
    clusterId: properties.clusterId,
    nodeId: opts.nodeId,
    metaProperties: properties,
    controller,
    log,
    image: () => image,
    subscribe: (listener) => publisher.subscribe(listener),
    close: async () => {
      await controller.close();
      await log.close();
    },
  };
}

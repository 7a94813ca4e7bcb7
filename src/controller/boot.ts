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
 */
import type { FileSystem, LogConfig } from '../storage/index.js';
import type { Clock } from '../util/clock.js';
import { validateTopicConfigs as validateTopicConfigsDefault } from '../util/config/topic.js';
import { systemRandom, type Random } from '../util/random.js';
import type { ConfigSchema } from './config-plan.js';
import { QuorumController } from './controller.js';
import { MetadataImage } from './metadata/image.js';
import { MetadataPublisher, type DeltaListener } from './metadata/publisher.js';
import { LocalMetadataLog, MetadataLogError, type MetadataLog } from './metadata-log.js';
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
  /** Default: src/util/config/topic.ts validateTopicConfigs. */
  validateTopicConfigs?: TopicConfigValidator | undefined;
  validateBrokerConfigs?: BrokerConfigValidator | undefined;
  /** Key types and inherited values for IncrementalAlterConfigs APPEND/SUBTRACT. */
  configSchema?: ConfigSchema | undefined;
  featureLevels?: Readonly<Record<string, number>> | undefined;
  /** Subscribed before the replay: gets the initial delta, then one per committed batch. */
  onDelta?: DeltaListener | undefined;
  /** A delta subscriber threw. Default: rethrow asynchronously (the process stops, STYLE.md principle 4). */
  onListenerError?: ((err: unknown) => void) | undefined;
  /** Register this broker during boot (else call controller.registerBroker later). */
  advertisedListeners?: readonly ListenerEndpoint[] | undefined;
  rack?: string | null | undefined;
  /** Replaces the one-voter local log (Raft, later; tests). */
  log?: MetadataLog | undefined;
  /** broker.session.timeout.ms (the active controller fences brokers silent for this long). */
  brokerSessionTimeoutMs?: number | undefined;
  /** Segment settings of the local metadata log. */
  metadataLogConfig?: Partial<LogConfig> | undefined;
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
  const log = opts.log ?? LocalMetadataLog.open({ fs: opts.fs, clock: opts.clock, dataDir: opts.dataDir, config: opts.metadataLogConfig ?? {} });
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
    validateTopicConfigs: opts.validateTopicConfigs ?? adaptTopicValidator,
    validateBrokerConfigs: opts.validateBrokerConfigs ?? null,
    configSchema: opts.configSchema ?? null,
    featureLevels: opts.featureLevels,
    clock: opts.clock,
    brokerSessionTimeoutMs: opts.brokerSessionTimeoutMs,
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

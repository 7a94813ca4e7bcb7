/**
 * Assembles and runs one broker node: storage (LogManager), the metadata
 * layer (controller + Raft metadata log, a quorum of one by default), the replica
 * manager, request handlers and the socket server, plus the background tick
 * that runs time-based flushes and retention (log-maintenance.ts).
 *
 * Start-up order: recover the logs, replay the metadata log into the image,
 * open the partitions the image assigns to this node, then listen. Shutdown
 * (SIGTERM) reverses it: stop accepting, answer in-flight requests, flush
 * and checkpoint every log, close the metadata log.
 *
 * runBrokerWith runs those steps in that order, one function each (openLogs,
 * bootMetadata, assembleServices, listenAndRegister, startLocalControllerTick,
 * startServing, startLogMaintenance); stopInOrder is the shutdown.
 */
import type { Logger } from 'pino';
import { NodeFileSystem } from '../storage/fs.js';
import { resolveOpenFilesMax } from './open-files.js';
import { LogManager } from '../storage/log-manager.js';
import type { RecoveryReport } from '../storage/log-loader.js';
import { systemClock, type Clock } from '../util/clock.js';
import { HandlerRegistry } from './handler-registry.js';
import { allHandlers } from './handlers/index.js';
import { ReplicaManager } from '../replication/replica-manager.js';
import { systemTimers } from '../util/timer.js';
import type { MetadataImage } from '../controller/metadata/image.js';
import { REPLICATION_DEFAULTS, proposeIsrChange, startFollowerReplication, type FollowerReplication } from './follower-replication.js';
import type { AlterPartitionSender } from './alter-partition-sender.js';
import { RequestMetrics } from './request-metrics.js';
import { BufferPool } from '../util/buffer-pool.js';
import { SocketServer } from './server.js';
import { RequestQuotas } from './request-quotas.js';
import type { QuotaMetricsSource } from './metrics/quota-collectors.js';
import { ClientQuotaManager } from '../security/quota/client-quota-manager.js';
import { ConnectionQuotas } from '../security/quota/connection-quotas.js';
import { UsageTracker } from '../security/quota/usage.js';
import { DEFAULT_QUOTA_SETTINGS } from '../security/quota/settings.js';
import type { QuotaEntityPart } from '../controller/metadata/client-quotas.js';
import type { BrokerServices } from './services.js';
import { StandardAuthorizer } from '../security/authorizer/standard-authorizer.js';
import { nodeLinkAuthorizationWarnings } from '../security/node-links.js';
import { isSingleNode, settingsFromConfig, type BrokerSettings, type ListenerSettings } from './settings.js';
import type { BrokerConfig } from '../config/broker.js';
import { startMetadata, type StartedMetadata } from './metadata-bridge.js';
import type { MetadataService } from './metadata-service.js';
import { startLogMaintenance, type LogMaintenance } from './log-maintenance.js';
import { ConfigService } from './configs/config-service.js';
import { topicConfigs, type TopicConfigs } from './topic-configs.js';
import { GroupService } from '../coordinator/group/group-service.js';
import { createTransactions, type BrokerTransactions } from './transactions.js';
import { startMetricsExporter, TrafficMetrics, type MetricsExporter } from './metrics/index.js';
import { ProducerIdManager } from './producer-ids.js';
import { routeMetadataChanges } from './controller-channel.js';
import { partitionCounts } from '../controller/partition-admin.js';
import type { ClusterNode } from './lifecycle/cluster-node.js';
import { handlersForListener } from './lifecycle/listener-apis.js';
import { replicaSelectorFor } from '../replication/replica-selector.js';
import { FETCH_SESSION_EVICTION_MS, FETCH_SESSION_SLOTS_DEFAULT, FetchSessionCache } from './fetch-sessions.js';
import type { MetadataLog } from '../controller/metadata-log.js';
import { RaftMetadataLog } from '../controller/quorum/raft-metadata-log.js';
import type { RaftService } from '../controller/quorum/raft-service.js';


/** The Raft service of the booted metadata log when it has one (the one-voter RaftMetadataLog does). */
function raftServiceOf(log: MetadataLog): { raft?: RaftService } {
  return log instanceof RaftMetadataLog ? { raft: log.service } : {};
}
/** How often a lone node's controller looks for expired broker sessions (ClusterNode's CONTROLLER_TICK_MS). */
const LOCAL_CONTROLLER_TICK_MS = 250;

export interface RunningBroker {
  readonly nodeId: number;
  readonly clusterId: string;
  readonly boundAddresses: { name: string; host: string; port: number }[];
  readonly services: BrokerServices;
  /** `metrics.listeners` as bound (port 0 replaced by the real port); empty when metrics are off. */
  readonly metricsAddresses: readonly { host: string; port: number; url: string }[];
  stop(reason?: string): Promise<void>;
}

export interface RunBrokerOptions {
  /** `metrics.listeners`: `http://host:port` entries serving /metrics and /health; none = off. */
  readonly metricsListeners?: readonly string[];
}

export async function runBroker(configured: BrokerSettings, logger: Logger, clock: Clock = systemClock, options: RunBrokerOptions = {}): Promise<RunningBroker> {
  const settings = configured;
  // Bound first so /health answers 503 while the logs recover.
  const exporter = await startMetricsExporter(options.metricsListeners ?? settings.metricsListeners, logger);
  try {
    return await runBrokerWith(settings, logger, clock, exporter);
  } catch (err) {
    await exporter?.close();
    throw err;
  }
}

async function runBrokerWith(settings: BrokerSettings, logger: Logger, clock: Clock, exporter: MetricsExporter | null): Promise<RunningBroker> {
  const fs = new NodeFileSystem({
    openFilesMax: resolveOpenFilesMax(settings.logOpenFilesMax),
    // Checkpoints and snapshots written in the background are written again later; say so.
    onBackgroundWriteError: (path, err) => logger.warn({ path, err }, 'a background checkpoint or snapshot write failed'),
  });
  const started = performance.now();
  const topics = topicConfigs(settings);

  // Bound lazily: the cleaner asks for high watermarks, the replica manager needs the log manager.
  let replicaManager: ReplicaManager | undefined;
  const logManager = openLogs(settings, fs, clock, logger.child({ component: 'log' }), () => replicaManager);
  // Bound once the metadata layer is up: an unhosted partition of a known topic answers NOT_LEADER_OR_FOLLOWER.
  let metadataService: MetadataService | undefined;
  let image: (() => MetadataImage) | undefined;
  let alterPartitionSender: AlterPartitionSender | undefined;
  const hosted = new ReplicaManager({
    logManager,
    localNodeId: settings.nodeId,
    logConfigFor: topics.logConfigFor,
    topicRules: topics.topicRules,
    topicExists: (topic) => metadataService?.topicExists(topic) ?? false,
    clock,
    timers: systemTimers,
    logger: logger.child({ component: 'replicas' }),
    replicaLagTimeMaxMs: settings.replication?.lagTimeMaxMs,
    isReplicaEligible: (id) => {
      const b = image?.().broker(id);
      return b !== undefined && !b.fenced && !b.inControlledShutdown;
    },
    replicaSelector: replicaSelectorFor(settings.replication?.selectorClass ?? null),
    rackOf: (id) => image?.().broker(id)?.rack ?? null,
    alterPartition: (p, proposal) => {
      if (alterPartitionSender === undefined) return Promise.reject(new Error('no controller channel (a single node has no followers)'));
      return proposeIsrChange(alterPartitionSender, image?.(), p, proposal);
    },
  });
  replicaManager = hosted;
  const metrics = new RequestMetrics();

  const booted = await bootMetadata({ settings, fs, clock, logger, hosted, topicOverrides: topics.topicOverrides });
  metadataService = booted.metadata.service;
  image = () => booted.metadata.booted.image();
  alterPartitionSender = booted.clusterNode?.alterPartitionSender;
  const replication = booted.clusterNode === null || booted.clusterNode.isControllerOnly
    ? null
    : startFollowerReplication({
      nodeId: settings.nodeId,
      settings: settings.replication ?? { ...REPLICATION_DEFAULTS, interBrokerListenerName: settings.advertisedListeners[0]?.name ?? 'PLAINTEXT' },
      hosted,
      image,
      clock,
      logger: logger.child({ component: 'replica-fetcher' }),
      security: settings.cluster?.links?.interBroker,
    });
  const parts: NodeParts = { settings, logger, logManager, hosted, replication, ...booted };
  const { services, registry, transactions } = assembleServices(parts, clock, metrics, topics);
  const server = new SocketServer(registry, services, { requestBytesMax: settings.requestBytesMax, inFlightRequestsMax: settings.inFlightRequestsMax }, logger.child({ component: 'network' }), connectionQuotasOf(settings, booted.metadata.booted.image, clock));
  const bound = await listenAndRegister(parts, server, services);

  const controllerTick = startLocalControllerTick(parts);
  startServing(parts, exporter, services, server, transactions);
  const maintenance = startLogMaintenance({
    settings,
    clock,
    logger,
    logManager,
    hosted,
    producerIds: services.producerIds,
    dynamicConfig: topics.dynamicConfig,
    onFatal: (reason) => void stop(reason),
  });
  const stop = stopInOrder(parts, { exporter, maintenance, controllerTick, server, transactions });

  const { metadata } = parts;
  for (const warning of nodeLinkAuthorizationWarnings(settings.cluster?.links, settings.authorizer?.superUsers ?? null)) logger.warn(warning);
  logger.info(
    { nodeId: settings.nodeId, clusterId: metadata.service.clusterId, listeners: bound, dataDir: settings.dataDir, startupMs: Math.round(performance.now() - started) },
    'broker started',
  );
  return { nodeId: settings.nodeId, clusterId: metadata.service.clusterId, boundAddresses: bound, services, metricsAddresses: exporter?.addresses ?? [], stop };
}

/** Logs what recovery found in one log that needs an operator's attention (a cut tail, unusable producer snapshots). */
function logRecoveryProblems(r: RecoveryReport, logger: Logger): void {
  if (r.truncations.length > 0 || r.segmentsDropped.length > 0) logger.warn({ recovery: r }, 'recovered a log with a damaged tail');
  const ps = r.producerState;
  if (ps !== undefined && ps.snapshotProblems.length > 0) {
    logger.warn({ dir: r.dir, problems: ps.snapshotProblems, rebuiltFrom: ps.snapshotLoaded ?? 'log start', batchesScanned: ps.batchesScanned }, 'ignored unusable producer state snapshots; rebuilt the state from an older one or the log');
  }
}

/**
 * Opens every log in the data dir and logs what recovery found. The logs
 * the checkpoints cover are deferred: after a clean shutdown loaded on first
 * use, after a crash recovered on first use or by the background recovery
 * (log-maintenance.ts); their reports are logged then. `replicaManager` is
 * asked lazily, by the cleaner.
 */
function openLogs(settings: BrokerSettings, fs: NodeFileSystem, clock: Clock, logger: Logger, replicaManager: () => ReplicaManager | undefined): LogManager {
  const { manager: logManager, reports, deferred, awaitingRecovery, hadCleanShutdown, checkpointProblems, deletionsCompleted } = LogManager.open({
    fs,
    clock,
    dataDir: settings.dataDir,
    defaultConfig: settings.logConfigFor(new Map()),
    retentionCheckIntervalMs: settings.retentionCheckIntervalMs,
    cleaner: {
      backoffMs: settings.logCleanerBackoffMs,
      // Never compact above the high watermark: a follower could still
      // truncate the newer record that made an older one obsolete.
      cleanableBound: (log) => replicaManager()?.get(log.topic, log.partition)?.lastStableOffset ?? log.logStartOffset,
    },
    onDeferredLoad: (r) => logRecoveryProblems(r, logger),
    // Periodic flushes and checkpoints fsync on the thread pool, not on the event loop.
    backgroundSyncs: true,
  });
  for (const r of reports) logRecoveryProblems(r, logger);
  for (const p of checkpointProblems) logger.warn({ problem: p }, 'ignored an unreadable checkpoint file');
  for (const d of deletionsCompleted) logger.info({ dir: d }, 'finished an interrupted topic deletion');
  logger.info({ logs: reports.length + deferred, deferred, awaitingRecovery, cleanShutdown: hadCleanShutdown, openFilesMax: fs.handles.openFilesMax, filesOpen: fs.handles.openCount }, 'logs loaded');
  return logManager;
}

/** The metadata layer as booted, with the group service that follows its `__consumer_offsets` changes. */
interface BootedMetadata {
  /** Null for a lone node (no Raft log of its own, no controller channel, no lifecycle). */
  readonly clusterNode: ClusterNode | null;
  readonly metadata: StartedMetadata;
  /** The service before routeMetadataChanges: what requests on a controller listener use. */
  readonly localMetadata: MetadataService;
  readonly groupService: GroupService;
}

/** What start-up has built once the metadata layer is up; the later steps and stop() work on it. */
interface NodeParts extends BootedMetadata {
  readonly settings: BrokerSettings;
  readonly logger: Logger;
  readonly logManager: LogManager;
  readonly hosted: ReplicaManager;
  /** Follower fetchers and ISR checks (a cluster node with the broker role), else null. */
  readonly replication: FollowerReplication | null;
}

interface BootMetadataOptions {
  readonly settings: BrokerSettings;
  readonly fs: NodeFileSystem;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly hosted: ReplicaManager;
  readonly topicOverrides: Map<string, ReadonlyMap<string, string>>;
}

/** Replays the metadata log into the image (opening the partitions it assigns here), then creates the group service. */
async function bootMetadata({ settings, fs, clock, logger, hosted, topicOverrides }: BootMetadataOptions): Promise<BootedMetadata> {
  // Not alone (controller.quorum.voters names others): the Raft log, the controller channel, the lifecycle.
  // Loaded only then: a lone node does not pay for Raft and the controller client at start-up.
  const clusterNode: ClusterNode | null = isSingleNode(settings) ? null : (await import('./lifecycle/cluster-node.js')).ClusterNode.create({ settings, fs, clock, logger });
  const metadata = await startMetadata({
    ...(clusterNode === null ? {} : { log: clusterNode.log }),
    settings,
    fs,
    clock,
    logger: logger.child({ component: 'metadata' }),
    replicaManager: hosted,
    topicOverrides,
  });
  clusterNode?.attach(metadata.booted);
  // The broker's own metadata changes (__consumer_offsets, auto-created topics, producer id blocks) go to the active controller.
  // Requests arriving on a controller listener keep the local service: they are never passed on again.
  const localMetadata = metadata.service;
  if (clusterNode !== null) metadata.service = routeMetadataChanges(metadata.service, clusterNode.channel, settings.nodeId, logger);
  // Loads and unloads __consumer_offsets partitions as their leadership moves (the coordinator runtime).
  const groupService = new GroupService(settings.groups, metadata.service, hosted, clock, logger.child({ component: 'group' }));
  return { clusterNode, metadata, localMetadata, groupService };
}

/** Client quotas read from the metadata image at every request (a change applies to the next one). */
function requestQuotasOf(settings: BrokerSettings, image: () => MetadataImage, metadata: MetadataService, clock: Clock): RequestQuotas {
  const windows = (settings.quotas ?? DEFAULT_QUOTA_SETTINGS).windows;
  const lookup = (entity: readonly QuotaEntityPart[], key: string): number | undefined => image().clientQuotas.value(entity, key);
  const nowMs = (): number => clock.monotonicMs();
  const anyQuota = (): boolean => image().clientQuotas.size > 0;
  return new RequestQuotas(new ClientQuotaManager({ lookup, windows, nowMs, anyQuota }), new UsageTracker(windows, nowMs), metadata);
}

function quotaMetricsOf(quotas: RequestQuotas, server: SocketServer): QuotaMetricsSource {
  return {
    throttleStats: () => quotas.clientQuotas.throttleStats(),
    refusedConnections: () => server.refusedByReason,
    usage: () => quotas.usage.all(),
    connectionsByPrincipal: () => server.connectionsByPrincipal(),
  };
}

function connectionQuotasOf(settings: BrokerSettings, image: () => MetadataImage, clock: Clock): ConnectionQuotas {
  const quotas = settings.quotas ?? DEFAULT_QUOTA_SETTINGS;
  return new ConnectionQuotas({ limits: quotas.connections, windows: quotas.windows, lookup: (entity, key) => image().clientQuotas.value(entity, key), nowMs: () => clock.monotonicMs() });
}

/** services.ioBuffers: buffers of 64 KiB-8 MiB (a Fetch's read, a Produce request), up to 64 MiB of free ones kept. */
const IO_BUFFER_POOL = { minBytes: 64 * 1024, maxBytes: 8 * 1024 * 1024, retainBytes: 64 * 1024 * 1024 };

/** What handlers can reach, and the registry of the client listeners' handlers (ApiVersions answers from it). */
function assembleServices(parts: NodeParts, clock: Clock, metrics: RequestMetrics, topics: TopicConfigs): { services: BrokerServices; registry: HandlerRegistry; transactions: BrokerTransactions } {
  const { settings, hosted, metadata, clusterNode, groupService } = parts;
  let registry: HandlerRegistry | undefined;
  const producerIds = new ProducerIdManager(metadata.service);
  const transactions = createTransactions({
    nodeId: settings.nodeId,
    settings: settings.transactions,
    interBrokerListenerName: settings.replication?.interBrokerListenerName ?? settings.advertisedListeners[0]?.name ?? 'PLAINTEXT',
    metadata: metadata.service,
    endpointsOf: (id) => metadata.booted.image().broker(id)?.endPoints,
    hosted,
    producerIds,
    clock,
    logger: parts.logger.child({ component: 'txn' }),
    security: settings.cluster?.links?.interBroker,
  });
  const services: BrokerServices = {
    nodeId: settings.nodeId,
    clock,
    replicaManager: hosted,
    metadata: metadata.service,
    metrics,
    traffic: new TrafficMetrics(),
    groups: groupService,
    transactions: transactions.service,
    apiVersions: () => (registry as HandlerRegistry).ranges(),
    topicRules: topics.topicRules,
    configs: new ConfigService({ config: topics.dynamicConfig, metadata: metadata.service, topicOverrides: topics.overridesOf }),
    producerIds,
    ioBuffers: new BufferPool(IO_BUFFER_POOL),
    authorizer: settings.authorizer == null ? null : new StandardAuthorizer(settings.authorizer, () => metadata.booted.image().acls),
    quotas: requestQuotasOf(settings, metadata.booted.image, metadata.service, clock),
    fetchSessions: new FetchSessionCache({ maxSessions: settings.fetchSessionCacheSlots ?? FETCH_SESSION_SLOTS_DEFAULT, evictionMs: FETCH_SESSION_EVICTION_MS }),
    // Alone, the one-voter Raft log answers DescribeQuorum itself.
    ...(clusterNode === null ? raftServiceOf(metadata.booted.log) : { cluster: clusterNode.services, raft: clusterNode.log.service }),
  };
  registry = new HandlerRegistry(handlersForListener(allHandlers, 'broker'));
  return { services, registry, transactions };
}

/**
 * Binds the listeners, then registers this node's advertised endpoints (a
 * cluster node starts its broker lifecycle). If either fails, what is open
 * is closed (server, cluster node, metadata, logs) and the error rethrown.
 *
 * Ports are known only after binding (port 0 in tests), and the node
 * registers its advertised endpoints with the controller: bind first, serve
 * once metadata is ready (connections wait in the accept queue meanwhile).
 */
async function listenAndRegister(parts: NodeParts, server: SocketServer, services: BrokerServices): Promise<ListenerSettings[]> {
  const { settings, clusterNode, metadata, localMetadata, logManager } = parts;
  const bound: ListenerSettings[] = [];
  try {
    // A cluster node's broker listeners serve once its metadata has caught up (see SocketServer.holdRequests).
    if (clusterNode !== null) server.holdRequests();
    for (const l of settings.listeners) {
      if (clusterNode?.isControllerListener(l.name) === true) bound.push(await server.listen(l, clusterNode.controllerListenerApis(allHandlers, { ...services, metadata: localMetadata, quotas: undefined })));
      else if (clusterNode?.isControllerOnly !== true) bound.push(await server.listen(l, undefined, true));
    }
    if (clusterNode === null) await metadata.registerBroker(advertised(settings, bound));
    else if (!clusterNode.isControllerOnly) await clusterNode.startBroker(advertised(settings, bound), () => server.serveRequests());
    server.serveRequests();
  } catch (err) {
    await server.shutdown(0);
    await clusterNode?.close();
    await metadata.close();
    logManager.close();
    throw err;
  }
  return bound;
}

/**
 * Alone, this node is its own active controller and runs the session check
 * a cluster node runs (ClusterNode.attach). Its own broker registered
 * in-process (registerBroker without a broker id) and is exempt from expiry,
 * as KRaft's combined node whose broker heartbeats to the controller in the
 * same process: the two live and die together, and fencing the only broker
 * would only make every partition leaderless. Any other session is checked.
 * Null on a cluster node.
 */
function startLocalControllerTick({ clusterNode, metadata, logger }: NodeParts): NodeJS.Timeout | null {
  const controllerTick =
    clusterNode === null
      ? setInterval(() => {
          metadata.booted.controller.tick().catch((err: unknown) => logger.warn({ err }, 'controller tick failed'));
        }, LOCAL_CONTROLLER_TICK_MS)
      : null;
  controllerTick?.unref();
  return controllerTick;
}

/** Loads and starts the consumer groups, and turns the metrics exporter (if any) to serving. */
function startServing(parts: NodeParts, exporter: MetricsExporter | null, services: BrokerServices, server: SocketServer, transactions: BrokerTransactions): void {
  const { settings, metadata, hosted, groupService } = parts;
  groupService.loadHostedPartitions();
  groupService.start();
  services.transactions.loadHostedPartitions();
  services.transactions.start();
  exporter?.attach({
    nodeId: settings.nodeId,
    clusterId: metadata.service.clusterId,
    requests: services.metrics,
    traffic: services.traffic,
    replicaManager: hosted,
    groups: groupService.coordinator,
    topicExists: (topic) => metadata.service.topicExists(topic),
    connections: () => server.connectionsByListener(),
    connectionsAccepted: () => server.acceptedByListener,
    replicaFetchMaxLag: () => parts.replication?.fetchers.maxLag() ?? 0n,
    fetchSessions: () => ({ sessions: services.fetchSessions.size, partitions: services.fetchSessions.partitionsCached }),
    ...(services.quotas === undefined ? {} : { quotas: quotaMetricsOf(services.quotas, server) }),
    controller: {
      isActive: () => parts.clusterNode === null || parts.clusterNode.channel.isLocal(),
      elections: () => metadata.booted.controller.stats.elections,
      fastFences: () => metadata.booted.controller.stats.fastFences,
      partitionCounts: () => partitionCounts(metadata.booted.image(), metadata.booted.controller.electionPolicy),
    },
    transactions: {
      states: () => transactions.service.coordinator.queries.countByState(),
      outcomes: () => transactions.service.coordinator.completion.outcomes,
      hanging: () => transactions.hanging.stats,
    },
  });
  exporter?.setState('serving');
}

/** What runs once the broker serves, for stop() to end. */
interface RunningParts {
  readonly exporter: MetricsExporter | null;
  readonly maintenance: LogMaintenance;
  readonly controllerTick: NodeJS.Timeout | null;
  readonly server: SocketServer;
  readonly transactions: BrokerTransactions;
}

/**
 * The broker's `stop()`: runs the shutdown once (later calls get the same
 * promise). Order: timers and the cleaner's step in progress; the controlled
 * shutdown (a cluster node moves its leaderships away); wake waiting fetches
 * and answer in-flight requests within the grace period; the exporter and
 * groups; then the cluster node, the metadata log, and last the logs.
 */
function stopInOrder(parts: NodeParts, running: RunningParts): (reason?: string) => Promise<void> {
  const { settings, logger, clusterNode, hosted, groupService, metadata, logManager } = parts;
  const { exporter, maintenance, controllerTick, server, transactions } = running;
  let stopping: Promise<void> | undefined;
  const stop = (reason = 'stop requested'): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down');
      exporter?.setState('stopping');
      maintenance.stopTimers();
      if (controllerTick !== null) clearInterval(controllerTick);
      await maintenance.stopCleaner();
      await clusterNode?.controlledShutdown();
      parts.replication?.stop();
      hosted.wakeDelayedFetches();
      await server.shutdown(settings.shutdownGraceMs);
      await exporter?.close();
      groupService.stop();
      transactions.close();
      await clusterNode?.close();
      await metadata.close();
      // Every log's fsyncs and snapshot overlapped on the thread pool (many partitions: minutes otherwise).
      await logManager.closeAsync();
      clusterNode?.markCleanShutdown();
      logger.info('shut down cleanly');
    })();
    return stopping;
  };
  return stop;
}

/** Advertised endpoints, with port 0 replaced by the port actually bound. */
function advertised(settings: BrokerSettings, bound: readonly ListenerSettings[]): ListenerSettings[] {
  return settings.advertisedListeners.map((a) => {
    const b = bound.find((x) => x.name === a.name);
    return { name: a.name, host: a.host === '' || a.host === '0.0.0.0' ? '127.0.0.1' : a.host, port: a.port === 0 && b ? b.port : a.port };
  });
}

/** Starts a broker from a parsed config (the `tributary start` entry point). */
export async function startBroker(config: BrokerConfig, options: { logger: Logger }): Promise<RunningBroker> {
  return runBroker(settingsFromConfig(config), options.logger, systemClock);
}

/**
 * Assembles and runs one broker node: storage (LogManager), the metadata
 * layer (controller + Raft metadata log, a quorum of one by default), the replica
 * manager, request handlers and the socket server, plus the background tick
 * that runs time-based flushes and retention.
 *
 * Start-up order: recover the logs, replay the metadata log into the image,
 * open the partitions the image assigns to this node, then listen. Shutdown
 * (SIGTERM) reverses it: stop accepting, answer in-flight requests, flush
 * and checkpoint every log, close the metadata log.
 */
import type { Logger } from 'pino';
import { NodeFileSystem } from '../storage/fs.js';
import { LogManager } from '../storage/log-manager.js';
import { systemClock, type Clock } from '../util/clock.js';
import { HandlerRegistry } from './handler-registry.js';
import { allHandlers } from './handlers/index.js';
import { ReplicaManager } from './replica-manager.js';
import { RequestMetrics } from './request-metrics.js';
import { SocketServer } from './server.js';
import type { BrokerServices, TopicRules } from './services.js';
import { isSingleNode, settingsFromConfig, type BrokerSettings, type ListenerSettings } from './settings.js';
import type { BrokerConfig } from '../util/config/broker.js';
import { startMetadata } from './metadata-bridge.js';
import { ConfigService } from './configs/config-service.js';
import { DynamicBrokerConfig } from './configs/dynamic-broker-config.js';
import { parseBrokerConfig } from '../util/config/broker.js';
import { GroupService } from './group/group-service.js';
import { OFFSETS_TOPIC_NAME } from './group/offsets-topic/index.js';
import { startMetricsExporter, TrafficMetrics, type MetricsExporter } from './metrics/index.js';
import { ProducerIdManager } from './producer-ids.js';
import { routeMetadataChanges } from './controller-channel.js';
import type { ClusterNode } from './lifecycle/cluster-node.js';
import { handlersForListener } from './lifecycle/listener-apis.js';
import type { MetadataLog } from '../controller/metadata-log.js';
import { RaftMetadataLog } from '../controller/quorum/raft-metadata-log.js';
import type { RaftService } from '../controller/quorum/raft-service.js';

const NO_OVERRIDES: ReadonlyMap<string, string> = new Map();

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

export async function runBroker(settings: BrokerSettings, logger: Logger, clock: Clock = systemClock, options: RunBrokerOptions = {}): Promise<RunningBroker> {
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
  const fs = new NodeFileSystem();
  const started = performance.now();
  const topicOverrides = new Map<string, ReadonlyMap<string, string>>();
  const overridesOf = (topic: string): ReadonlyMap<string, string> => topicOverrides.get(topic) ?? NO_OVERRIDES;
  // Resolving a topic's config parses every key; Produce needs the rules per
  // partition, so cache them per overrides map (a config change replaces the
  // topic's map, which drops the cached entry with it).
  let rulesCache = new WeakMap<ReadonlyMap<string, string>, TopicRules>();
  // Dynamic broker defaults (AlterConfigs on a broker resource) change every topic's rules.
  const dynamicConfig = settings.dynamicConfig ?? new DynamicBrokerConfig(parseBrokerConfig({}));
  dynamicConfig.onChange(() => {
    rulesCache = new WeakMap();
  });
  const topicRules = (topic: string): TopicRules => {
    const overrides = overridesOf(topic);
    let rules = rulesCache.get(overrides);
    if (!rules) {
      rules = settings.topicRulesFor(overrides);
      rulesCache.set(overrides, rules);
    }
    return rules;
  };

  // Bound lazily: the cleaner asks for high watermarks, the replica manager needs the log manager.
  let replicaManager: ReplicaManager | undefined;
  const { manager: logManager, reports, hadCleanShutdown, checkpointProblems, deletionsCompleted } = LogManager.open({
    fs,
    clock,
    dataDir: settings.dataDir,
    defaultConfig: settings.logConfigFor(new Map()),
    retentionCheckIntervalMs: settings.retentionCheckIntervalMs,
    cleaner: {
      backoffMs: settings.logCleanerBackoffMs,
      // Never compact above the high watermark: a follower could still
      // truncate the newer record that made an older one obsolete.
      cleanableBound: (log) => replicaManager?.get(log.topic, log.partition)?.highWatermark ?? log.logStartOffset,
    },
  });
  for (const r of reports) {
    if (r.truncations.length > 0 || r.segmentsDropped.length > 0) logger.warn({ recovery: r }, 'recovered a log with a damaged tail');
    const ps = r.producerState;
    if (ps !== undefined && ps.snapshotProblems.length > 0) {
      logger.warn({ dir: r.dir, problems: ps.snapshotProblems, rebuiltFrom: ps.snapshotLoaded ?? 'log start', batchesScanned: ps.batchesScanned }, 'ignored unusable producer state snapshots; rebuilt the state from an older one or the log');
    }
  }
  for (const p of checkpointProblems) logger.warn({ problem: p }, 'ignored an unreadable checkpoint file');
  for (const d of deletionsCompleted) logger.info({ dir: d }, 'finished an interrupted topic deletion');
  logger.info({ logs: reports.length, cleanShutdown: hadCleanShutdown }, 'logs loaded');

  const hosted = new ReplicaManager(logManager, settings.nodeId, (topic) => settings.logConfigFor(overridesOf(topic)), logger);
  replicaManager = hosted;
  const metrics = new RequestMetrics();
  let registry: HandlerRegistry | undefined;

  // Ports are known only after binding (port 0 in tests), and the node
  // registers its advertised endpoints with the controller: bind first, serve
  // once metadata is ready (connections wait in the accept queue meanwhile).
  let groups: GroupService | undefined;
  // Not alone (controller.quorum.voters names others): the Raft log, the controller channel, the lifecycle.
  // Loaded only then: a lone node does not pay for Raft and the controller client at start-up.
  const clusterNode: ClusterNode | null = isSingleNode(settings) ? null : (await import('./lifecycle/cluster-node.js')).ClusterNode.create({ settings, fs, clock, logger });
  const metadata = await startMetadata({
    ...(clusterNode === null ? {} : { log: clusterNode.log }),
    settings,
    fs,
    clock,
    logger,
    replicaManager: hosted,
    topicOverrides,
    onPartitionChanged: (topic, partition) => {
      if (topic === OFFSETS_TOPIC_NAME) groups?.onOffsetsPartitionChanged(partition);
    },
  });
  clusterNode?.attach(metadata.booted);
  // The broker's own metadata changes (__consumer_offsets, auto-created topics, producer id blocks) go to the active controller.
  // Requests arriving on a controller listener keep the local service: they are never passed on again.
  const localMetadata = metadata.service;
  if (clusterNode !== null) metadata.service = routeMetadataChanges(metadata.service, clusterNode.channel, settings.nodeId, logger);
  const groupService = new GroupService(settings.groups, metadata.service, hosted, clock, logger);
  groups = groupService;
  const services: BrokerServices = {
    nodeId: settings.nodeId,
    clock,
    replicaManager: hosted,
    metadata: metadata.service,
    metrics,
    traffic: new TrafficMetrics(),
    groups: groupService,
    apiVersions: () => (registry as HandlerRegistry).ranges(),
    topicRules,
    configs: new ConfigService({ config: dynamicConfig, metadata: metadata.service, topicOverrides: overridesOf }),
    producerIds: new ProducerIdManager(metadata.service),
    // Alone, the one-voter Raft log answers DescribeQuorum itself.
    ...(clusterNode === null ? raftServiceOf(metadata.booted.log) : { cluster: clusterNode.services, raft: clusterNode.log.service }),
  };
  registry = new HandlerRegistry(handlersForListener(allHandlers, 'broker'));
  const server = new SocketServer(registry, services, { requestBytesMax: settings.requestBytesMax, inFlightRequestsMax: settings.inFlightRequestsMax }, logger);
  const bound: ListenerSettings[] = [];
  try {
    for (const l of settings.listeners) {
      if (clusterNode?.isControllerListener(l.name) === true) bound.push(await server.listen(l, clusterNode.controllerListenerApis(allHandlers, { ...services, metadata: localMetadata })));
      else if (clusterNode?.isControllerOnly !== true) bound.push(await server.listen(l));
    }
    if (clusterNode === null) await metadata.registerBroker(advertised(settings, bound));
    else if (!clusterNode.isControllerOnly) await clusterNode.startBroker(advertised(settings, bound));
  } catch (err) {
    await server.shutdown(0);
    await clusterNode?.close();
    await metadata.close();
    logManager.close();
    throw err;
  }

  // Alone, this node is its own active controller and runs the session check
  // a cluster node runs (ClusterNode.attach). Its own broker registered
  // in-process (registerBroker without a broker id) and is exempt from expiry,
  // as KRaft's combined node whose broker heartbeats to the controller in the
  // same process: the two live and die together, and fencing the only broker
  // would only make every partition leaderless. Any other session is checked.
  const controllerTick =
    clusterNode === null
      ? setInterval(() => {
          metadata.booted.controller.tick().catch((err: unknown) => logger.warn({ err }, 'controller tick failed'));
        }, LOCAL_CONTROLLER_TICK_MS)
      : null;
  controllerTick?.unref();

  groupService.loadHostedPartitions();
  groupService.start();
  exporter?.attach({
    nodeId: settings.nodeId,
    clusterId: metadata.service.clusterId,
    requests: metrics,
    traffic: services.traffic,
    replicaManager: hosted,
    groups: groupService.coordinator,
    topicExists: (topic) => metadata.service.topicExists(topic),
    connections: () => server.connectionsByListener(),
    connectionsAccepted: () => server.acceptedByListener,
  });
  exporter?.setState('serving');

  let producersCheckedMs = clock.nowMs();
  const tick = setInterval(() => {
    try {
      const nowMs = clock.nowMs();
      if (nowMs - producersCheckedMs >= dynamicConfig.get('producer.id.expiration.check.interval.ms')) {
        producersCheckedMs = nowMs;
        expireProducers(hosted, services.producerIds, nowMs, dynamicConfig.get('producer.id.expiration.ms'), logger);
      }
      const result = logManager.tick(clock.nowMs());
      if (result.segmentsDeleted > 0) {
        for (const p of hosted.all()) p.onLogStartOffsetChanged();
        logger.info({ segmentsDeleted: result.segmentsDeleted }, 'retention deleted segments');
      }
    } catch (err) {
      // A storage failure in the background is fatal, as in Kafka: better to
      // stop than to keep serving from a log in an unknown state.
      logger.fatal({ err }, 'background log maintenance failed; stopping');
      process.exitCode = 1;
      void stop('storage failure');
    }
  }, settings.logTickIntervalMs);
  tick.unref();

  // Compaction runs in bounded steps (they may await codecs), one at a time:
  // back to back while there is work, yielding to the event loop between
  // steps so requests keep flowing; idle, it looks again on the next tick.
  let cleaning: Promise<void> | null = null;
  let cleanerStopped = false;
  const cleanWhileBusy = async (): Promise<void> => {
    while (!cleanerStopped) {
      const r = await logManager.cleaner.cleanOneStep(clock.nowMs());
      if (r.kind === 'failed') logger.error({ log: r.log, reason: r.reason }, 'log cleaner found corrupt data; that log stays uncompacted');
      if (r.kind === 'idle') return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const cleanerTimer = setInterval(() => {
    if (cleaning !== null || !settings.logCleanerEnable) return;
    cleaning = cleanWhileBusy()
      .catch((err: unknown) => {
        logger.fatal({ err }, 'log cleaner failed; stopping');
        process.exitCode = 1;
        void stop('storage failure');
      })
      .finally(() => {
        cleaning = null;
      });
  }, settings.logTickIntervalMs);
  cleanerTimer.unref();

  let stopping: Promise<void> | undefined;
  const stop = (reason = 'stop requested'): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down');
      exporter?.setState('stopping');
      clearInterval(tick);
      clearInterval(cleanerTimer);
      if (controllerTick !== null) clearInterval(controllerTick);
      cleanerStopped = true;
      await cleaning;
      await clusterNode?.controlledShutdown();
      hosted.delayedFetches.wakeAll();
      await server.shutdown(settings.shutdownGraceMs);
      await exporter?.close();
      groupService.stop();
      await clusterNode?.close();
      await metadata.close();
      logManager.close();
      logger.info('shut down cleanly');
    })();
    return stopping;
  };

  logger.info(
    { nodeId: settings.nodeId, clusterId: metadata.service.clusterId, listeners: bound, dataDir: settings.dataDir, startupMs: Math.round(performance.now() - started) },
    'broker started',
  );
  return { nodeId: settings.nodeId, clusterId: metadata.service.clusterId, boundAddresses: bound, services, metricsAddresses: exporter?.addresses ?? [], stop };
}

/** producer.id.expiration.ms: forgets producers with no append (or InitProducerId) for that long. */
function expireProducers(hosted: ReplicaManager, ids: ProducerIdManager, nowMs: number, expirationMs: number, logger: Logger): void {
  let removed = 0;
  for (const p of hosted.all()) removed += p.log.removeExpiredProducers(nowMs, expirationMs);
  ids.removeExpired(nowMs, expirationMs);
  if (removed > 0) logger.info({ producersExpired: removed, expirationMs }, 'expired idle producer ids');
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

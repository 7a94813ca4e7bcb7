/**
 * `startDistributed`: a distributed Connect worker in this process, as
 * `connect-distributed.sh worker.properties`: loads plugins, creates (if
 * missing) and reads the config, offset and status topics to their end,
 * starts the REST API, then joins its group; connectors are created over
 * REST (on any worker) and spread over the group's workers.
 */
import { Admin, Cluster } from '../../client/index.js';
import { Plugins } from '../plugins.js';
import { buildRestServer } from '../rest/server.js';
import { Worker } from '../runtime/worker.js';
import { parseWorkerConfig } from '../runtime/worker-config.js';
import { ConfigStore } from './config-store.js';
import { advertisedUrl, parseDistributedConfig } from './distributed-config.js';
import { DistributedHerder } from './herder.js';
import { KafkaOffsetStore } from './offset-store.js';
import { StatusStore } from './status-store.js';

/** A running distributed worker: its REST URL (the advertised one), its herder, and `close()` to leave the group and stop. */
export interface DistributedWorkerHandle {
  readonly url: string;
  readonly herder: DistributedHerder;
  close(): Promise<void>;
}

async function clusterId(bootstrap: string): Promise<string> {
  const admin = await Admin.connect({ bootstrap });
  try {
    return (await admin.describeCluster()).clusterId ?? '';
  } finally {
    await admin.close();
  }
}

/** Starts a distributed worker; resolves once its REST API listens and its internal topics are read (joining the group goes on in the background). */
export async function startDistributed(workerProps: Readonly<Record<string, string>>, log: (m: string) => void = (m) => process.stderr.write(m + '\n')): Promise<DistributedWorkerHandle> {
  const config = parseWorkerConfig(workerProps);
  const d = parseDistributedConfig(workerProps);
  const plugins = new Plugins();
  await plugins.loadPluginPath(config.pluginPath);
  const id = await clusterId(config.bootstrap);
  const common = { bootstrap: config.bootstrap, clientId: `${config.clientId}-${d.groupId}` };
  let herder: DistributedHerder | null = null;
  // The stores and the worker report to the herder, made once they exist.
  const configs = new ConfigStore({ ...common, topic: d.configTopic, replicationFactor: d.configReplicationFactor }, {
    onConnectorConfig: (n, removed) => herder?.configEvents.onConnectorConfig(n, removed),
    onTaskConfigs: (n) => herder?.configEvents.onTaskConfigs(n),
    onTargetState: (n, s) => herder?.configEvents.onTargetState(n, s),
    onRestartRequest: (n, t, f) => herder?.configEvents.onRestartRequest(n, t, f),
  });
  const offsets = new KafkaOffsetStore({ ...common, topic: d.offsetTopic, partitions: d.offsetPartitions, replicationFactor: d.offsetReplicationFactor });
  const statuses = new StatusStore({ ...common, topic: d.statusTopic, partitions: d.statusPartitions, replicationFactor: d.statusReplicationFactor });
  const worker = new Worker(config, plugins, offsets, log, {
    onStatus: (c, t, s, trace) => herder?.workerEvents.onStatus(c, t, s, trace),
    onActiveTopic: (c, topic) => herder?.workerEvents.onActiveTopic(c, topic),
    onTaskReconfiguration: (c) => herder?.workerEvents.onTaskReconfiguration(c),
  });
  const stores = [configs.log, offsets.log, statuses.log];
  const cluster = await Cluster.connect({ bootstrap: config.bootstrap, clientId: common.clientId });
  const started = new DistributedHerder(worker, { configs, statuses, offsets }, cluster, d, log);
  herder = started;
  const app = buildRestServer({ herder: started, clusterId: id, metrics: () => worker.metrics.registry.metrics() });
  try {
    await Promise.all([configs.start(), offsets.log.start(), statuses.log.start()]);
    await worker.start();
    const address = new URL(await app.listen({ host: config.listenerHost, port: config.listenerPort }));
    const url = advertisedUrl(d, config, Number(address.port));
    worker.workerId = new URL(url).host;
    started.start(url);
    const connected = cluster;
    const close = async (): Promise<void> => {
      await app.close();
      await started.stop();
      await worker.stop();
      await Promise.all(stores.map((s) => s.stop()));
      await connected.close();
    };
    return { url, herder: started, close };
  } catch (err) {
    await app.close().catch(() => undefined);
    await worker.stop().catch(() => undefined);
    await Promise.all(stores.map((s) => s.stop().catch(() => undefined)));
    await cluster.close().catch(() => undefined);
    throw err;
  }
}

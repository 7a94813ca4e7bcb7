/**
 * `startStandalone`: a standalone Connect worker in this process, as
 * `connect-standalone.sh worker.properties [connector.properties ...]`:
 * loads plugins, opens the offset file, starts the REST API, then creates
 * the connectors given on the command line.
 */
import { Admin } from '../client/index.js';
import { Plugins } from './plugins.js';
import { buildRestServer } from './rest/server.js';
import { FileOffsetStore } from './runtime/offset-store.js';
import { StandaloneHerder } from './runtime/standalone-herder.js';
import { Worker } from './runtime/worker.js';
import { parseWorkerConfig } from './runtime/worker-config.js';
import { ConnectRestError } from './runtime/rest-errors.js';
import { ConnectError } from './spi.js';

/** A running standalone worker, as startStandalone returns it: its REST URL, its herder, and `close()` to stop it. */
export interface ConnectWorkerHandle {
  /** http://host:port of the REST API. */
  readonly url: string;
  readonly herder: StandaloneHerder;
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

/** Starts a standalone Connect worker (as connect-standalone.sh): loads plugins, opens the offset file, starts the REST API, then creates the given connectors. */
export async function startStandalone(workerProps: Readonly<Record<string, string>>, connectorProps: readonly Readonly<Record<string, string>>[] = [], log: (m: string) => void = (m) => process.stderr.write(m + '\n')): Promise<ConnectWorkerHandle> {
  const config = parseWorkerConfig(workerProps);
  if (config.offsetFile === '') throw new ConnectError('offset.storage.file.filename must be set for a standalone worker');
  const plugins = new Plugins();
  await plugins.loadPluginPath(config.pluginPath);
  const offsets = new FileOffsetStore(config.offsetFile);
  const id = await clusterId(config.bootstrap);
  let herder: StandaloneHerder | null = null;
  const worker = new Worker(config, plugins, offsets, log, { onTaskReconfiguration: (name) => void herder?.reconfigure(name) });
  herder = new StandaloneHerder(worker);
  const app = buildRestServer({ herder, clusterId: id, metrics: () => worker.metrics.registry.metrics() });
  await worker.start();
  const address = await app.listen({ host: config.listenerHost, port: config.listenerPort });
  const url = new URL(address);
  worker.workerId = `${url.hostname}:${url.port}`;
  const standalone = herder;
  const close = async (): Promise<void> => {
    await app.close();
    await standalone.stop();
  };
  try {
    for (const props of connectorProps) {
      const name = props.name;
      if (name === undefined) throw new ConnectError('connector properties without a name');
      await standalone.putConnectorConfig(name, { ...props }, false);
    }
  } catch (err) {
    await close();
    throw err instanceof ConnectRestError ? new ConnectError(err.message) : err;
  }
  return { url: address, herder: standalone, close };
}

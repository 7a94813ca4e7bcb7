/**
 * Dedicated mode (`tributary mirror mm2.properties`, as Kafka's
 * connect-mirror-maker.sh): checks the config and that every cluster a flow
 * uses answers, then runs one distributed Connect worker per enabled flow
 * `A->B` against B (MirrorMaker's internal topics and group, mm2-config.ts)
 * with the mirror connectors, created through the worker's REST API (which
 * forwards to the group's leader, so several dedicated nodes share the
 * work).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '../client/index.js';
import { startDistributed, type DistributedWorkerHandle } from '../connect/index.js';
import { MIRROR_CONNECTORS, connectorConfig, parseMm2Config, workerConfig, type Flow, type Mm2Config } from './mm2-config.js';

/** The folder of the plugin module (plugin/index.js next to this file). */
export const MIRROR_PLUGIN_PATH = join(dirname(fileURLToPath(import.meta.url)), 'plugin');
const REACH_TIMEOUT_MS = 15_000;
const CREATE_TIMEOUT_MS = 60_000;

/** A running dedicated mirror, as startMirror returns it: its config, each flow's worker URL, and `close()`. */
export interface MirrorHandle {
  readonly config: Mm2Config;
  /** Each flow with its worker's REST URL. */
  readonly flows: readonly { flow: Flow; url: string }[];
  close(): Promise<void>;
}

/** Fails with the cluster's alias and address when it does not answer in time. */
async function checkReachable(alias: string, bootstrap: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`cluster ${alias} (${bootstrap}) is unreachable: no answer in ${REACH_TIMEOUT_MS} ms`)), REACH_TIMEOUT_MS);
  });
  const probe = (async () => {
    const admin = await Admin.connect({ bootstrap, clientId: `mm2-probe-${alias}`, retries: 2 });
    try {
      await admin.describeCluster();
    } finally {
      await admin.close();
    }
  })();
  try {
    await Promise.race([probe, timeout]);
  } catch (err) {
    const msg = (err as Error).message;
    throw new Error(msg.startsWith(`cluster ${alias}`) ? msg : `cluster ${alias} (${bootstrap}) is unreachable: ${msg}`, { cause: err });
  } finally {
    clearTimeout(timer);
    probe.catch(() => undefined);
  }
}

/** PUT /connectors/{name}/config until the worker's group has a leader that accepts it. */
async function putConnector(url: string, name: string, config: Record<string, string>): Promise<void> {
  const deadline = Date.now() + CREATE_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/connectors/${encodeURIComponent(name)}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(config) });
      const text = await res.text();
      if (res.ok) return;
      // 400: the config is wrong, waiting will not help.
      if (res.status === 400) throw new Error(`connector ${name} rejected: ${text}`);
      last = `${res.status} ${text}`;
    } catch (err) {
      if ((err as Error).message.startsWith(`connector ${name} rejected`)) throw err;
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`creating connector ${name} on ${url} timed out: ${last}`);
}

/** Starts dedicated mode from parsed mm2.properties entries. */
export async function startMirror(raw: Readonly<Record<string, string>>, log: (m: string) => void = (m) => process.stderr.write(m + '\n')): Promise<MirrorHandle> {
  const config = parseMm2Config(raw);
  const used = new Set(config.flows.flatMap((f) => [f.source, f.target]));
  await Promise.all([...used].map((c) => checkReachable(c, config.bootstrap.get(c) ?? '')));
  const workers: { flow: Flow; worker: DistributedWorkerHandle }[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(workers.map((w) => w.worker.close().catch(() => undefined)));
  };
  try {
    for (const flow of config.flows) {
      const worker = await startDistributed(workerConfig(config, flow, MIRROR_PLUGIN_PATH), (m) => log(`[${flow.source}->${flow.target}] ${m}`));
      workers.push({ flow, worker });
      for (const name of MIRROR_CONNECTORS) await putConnector(worker.url, name, connectorConfig(config, flow, name));
      log(`flow ${flow.source}->${flow.target} running (Connect REST API on ${worker.url})`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { config, flows: workers.map((w) => ({ flow: w.flow, url: w.worker.url })), close };
}

/**
 * The broker host: the entry module startCluster runs in a worker thread
 * (isolation 'worker') or a forked child process (isolation 'process'). It
 * waits for a `start` message, parses the config, runs one broker and answers
 * `ready` with the bound ports (or `failed` with the broker's error); on
 * `stop` it shuts the broker down gracefully and answers `stopped`.
 *
 * The broker modules are imported only after the config parsed, and only
 * here: the caller's thread never loads the broker, and a bad config costs no
 * more than the config module. Logs go to fd 2 synchronously (a worker's
 * `process.stderr` is relayed through the caller's event loop; fd 2 is not).
 *
 * A child whose parent disappears (IPC disconnect: the parent exited or was
 * SIGKILLed without stop()) stops the broker, removes the temporary data dir
 * it was told it owns, and exits.
 */
import { rmSync } from 'node:fs';
import { isatty } from 'node:tty';
import { parentPort } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import { createLogger } from '../util/log.js';
import type { RunningBroker } from '../broker/broker.js';
import { isParentMessage, toWireError, type HostMessage, type ParentMessage, type StartParams } from './messages.js';
import type { LogLevel } from '../config/broker.js';

const entryAtMs = performance.timeOrigin + performance.now();
/** How long a child whose parent vanished waits for a graceful stop before exiting anyway. */
const ORPHAN_STOP_TIMEOUT_MS = 10_000;

interface Channel {
  send(message: HostMessage): Promise<void>;
  onMessage(handler: (message: ParentMessage) => void): void;
  /** After `stopped` or `failed`: a child exits; a worker is terminated by its parent. */
  finish(code: number): void;
}

function workerChannel(port: NonNullable<typeof parentPort>): Channel {
  return {
    send: (message) => {
      port.postMessage(message);
      return Promise.resolve();
    },
    onMessage: (handler) => port.on('message', (m: unknown) => (isParentMessage(m) ? handler(m) : undefined)),
    finish: () => undefined,
  };
}

function processChannel(): Channel {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('broker-host runs as a worker thread or a forked child (with an IPC channel); it was started some other way');
  return {
    send: (message) => new Promise<void>((resolve) => void send(message, undefined, undefined, () => resolve())),
    onMessage: (handler) => process.on('message', (m: unknown) => (isParentMessage(m) ? handler(m) : undefined)),
    finish: (code) => process.exit(code),
  };
}

function createHostLogger(level: LogLevel): Logger {
  const out = pino.destination({ dest: 2, sync: true });
  if (level === 'silent' || !isatty(2)) return pino({ level, base: { broker: 'embedded' } }, out);
  // A terminal gets the CLI's one-line format.
  return createLogger(level, { pretty: true, destination: out });
}

const channel = parentPort !== null ? workerChannel(parentPort) : processChannel();
let broker: RunningBroker | undefined;
let stopping: Promise<void> | undefined;

async function start(params: StartParams): Promise<void> {
  try {
    const configStartMs = performance.now();
    const { parseBrokerConfig } = await import('../config/broker.js');
    const config = parseBrokerConfig(params.config);
    const brokerImportStartMs = performance.now();
    const [{ runBroker }, { settingsFromConfig }] = await Promise.all([import('../broker/broker.js'), import('../broker/settings.js')]);
    const importMs = performance.now() - brokerImportStartMs + (brokerImportStartMs - configStartMs);
    const logger = createHostLogger(config.get('log.level'));
    for (const w of config.warnings) logger.warn(w);
    const runStartMs = performance.now();
    broker = await runBroker(settingsFromConfig(config), logger);
    await channel.send({
      type: 'ready',
      nodeId: broker.nodeId,
      clusterId: broker.clusterId,
      listeners: broker.boundAddresses.map((a) => ({ name: a.name, host: a.host, port: a.port })),
      timings: { entryAtMs, importMs, runBrokerMs: performance.now() - runStartMs },
    });
  } catch (err) {
    await channel.send({ type: 'failed', error: toWireError(err) });
    channel.finish(1);
  }
}

function stop(reason: string): Promise<void> {
  stopping ??= (async () => {
    await broker?.stop(reason);
  })();
  return stopping;
}

channel.onMessage((message) => {
  if (message.type === 'start') {
    if (parentPort === null) watchOrphan(message.params.removeOnOrphan);
    void start(message.params);
    return;
  }
  stop('stop requested by startCluster').then(
    async () => {
      await channel.send({ type: 'stopped' });
      channel.finish(0);
    },
    async (err: unknown) => {
      await channel.send({ type: 'failed', error: toWireError(err) });
      channel.finish(1);
    },
  );
});

/**
 * Child only. The parent went away without stop() (IPC disconnect): clean up
 * after it. SIGINT is ignored: a Ctrl-C in a terminal signals the whole
 * process group, and the parent decides (its exit hook, or the disconnect).
 * SIGTERM sent to the child itself stops the broker gracefully.
 */
function watchOrphan(dataDir: string | null): void {
  const shutDown = (reason: string, cleanUp: boolean): void => {
    const timer = setTimeout(() => process.exit(1), ORPHAN_STOP_TIMEOUT_MS);
    void stop(reason).finally(() => {
      clearTimeout(timer);
      if (cleanUp && dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.once('disconnect', () => shutDown('parent process went away', true));
  process.once('SIGTERM', () => shutDown('SIGTERM', false));
  process.on('SIGINT', () => undefined);
}

/**
 * `tributary mirror`: MirrorMaker 2's dedicated mode (`tributary mirror
 * mm2.properties`, as connect-mirror-maker.sh) and `tributary mirror status
 * mm2.properties` (flows, connector states, lag in records and seconds,
 * checkpoint age), and `tributary mirror promote TOPIC` (an exact-mode
 * mirror topic becomes writable, promote.ts). docs/mirror.md is the guide.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Command } from 'commander';
import { parseProperties } from '../../config/properties.js';
import { mirrorMetrics, mirrorStatus, promoteMirrorTopic, startMirror } from '../../mirror/index.js';
import { clientSecurity, formatTable, run, withClientOptions, withExamples, type CommonOptions } from './common.js';

function readProperties(path: string): Record<string, string> {
  const parsed = parseProperties(readFileSync(path, 'utf8'), path);
  if (parsed.problems.length > 0) throw new Error(`${path}: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return Object.fromEntries(parsed.entries.map((e) => [e.key.trim(), e.value.trim()]));
}

function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** GET /metrics: the mirror's Prometheus metrics, on 127.0.0.1. */
async function serveMetrics(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void mirrorMetrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': mirrorMetrics.registry.contentType }).end(text));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

export function registerMirrorCommands(program: Command): void {
  const mirror = withExamples(
    program
      .command('mirror')
      .description('replicate topics between clusters, MirrorMaker 2-compatible (mm2.properties)')
      .argument('[mm2.properties]', 'clusters, A.bootstrap.servers, A->B.enabled, A->B.topics, ...')
      .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics')
      .action(async (file: string | undefined, opts: { metricsPort?: string }) => {
        if (file === undefined) {
          mirror.help();
          return;
        }
        const handle = await startMirror(readProperties(file));
        const metrics = opts.metricsPort === undefined ? null : await serveMetrics(Number(opts.metricsPort));
        process.stdout.write(`mirroring ${handle.flows.map((f) => `${f.flow.source}->${f.flow.target}`).join(', ')}\n`);
        await untilSignal();
        metrics?.close();
        await handle.close();
      }),
    ['tributary mirror config/mm2.properties', 'tributary mirror status config/mm2.properties', 'tributary mirror promote A.orders --bootstrap-server b1:9092'],
  );
  const status = mirror
    .command('status')
    .description('flows with connector states, replication lag (records, seconds) and checkpoint age')
    .argument('<mm2.properties>', 'the config the mirror runs with')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { json?: boolean }) => {
      const flows = await mirrorStatus(readProperties(file));
      if (opts.json === true) {
        process.stdout.write(JSON.stringify(flows, null, 2) + '\n');
        return;
      }
      const rows = flows.map((f) => [f.flow, Object.entries(f.states).map(([k, v]) => `${k}=${v}`).join(' '), String(f.partitions), String(f.lagRecords), f.lagSeconds.toFixed(1), f.checkpointAgeSeconds === null ? '-' : f.checkpointAgeSeconds.toFixed(1)]);
      process.stdout.write(formatTable(['FLOW', 'STATES', 'PARTITIONS', 'LAG-RECORDS', 'LAG-SECONDS', 'CHECKPOINT-AGE-S'], rows) + '\n');
    });
  withExamples(status, ['tributary mirror status config/mm2.properties --json']);
  const promote = withClientOptions(
    mirror
      .command('promote')
      .description('make an exact-mode mirror topic writable (its source cluster is gone): mirror.state=promoted, open copied transactions aborted')
      .argument('<topic>', 'the mirror topic on this cluster')
      .option('--bootstrap-server <host:port>', 'same as --bootstrap (Kafka tools\' name)'),
  ).action(async (topic: string, opts: CommonOptions & { bootstrapServer?: string }) => {
    const bootstrap = opts.bootstrapServer ?? opts.bootstrap;
    await run(async () => {
      const r = await promoteMirrorTopic(bootstrap, topic, { requestTimeoutMs: opts.requestTimeoutMs, ...clientSecurity(opts) });
      if (r.previousState === 'promoted') process.stdout.write(`${topic} was already promoted; nothing changed\n`);
      else process.stdout.write(`promoted ${topic}: it takes writes now${r.abortedTransactions.length > 0 ? `; aborted open copied transactions ${r.abortedTransactions.join(', ')}` : ''}\n`);
    }, { bootstrap });
  });
  withExamples(promote, ['tributary mirror promote orders --bootstrap-server b1:9092']);
}

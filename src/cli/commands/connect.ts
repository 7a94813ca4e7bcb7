/**
 * `tributary connect`: run a standalone or distributed Connect worker, and manage
 * connectors of a running worker over its REST API (list, status, create,
 * delete, pause, resume, restart, plugins), printing tables or --json.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { startDistributed, startStandalone } from '../../connect/index.js';
import { parseProperties } from '../../config/properties.js';
import { formatTable, usageError, withExamples } from './common.js';

export const CONNECT_URL_ENV = 'CONNECT_URL';
const CONNECT_URL_DEFAULT = 'http://127.0.0.1:8083';

function readProperties(path: string): Record<string, string> {
  const parsed = parseProperties(readFileSync(path, 'utf8'), path);
  if (parsed.problems.length > 0) throw new Error(`${path}: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return Object.fromEntries(parsed.entries.map((e) => [e.key, e.value.trim()]));
}

/** Resolves on SIGINT or SIGTERM (then the worker closes cleanly). */
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

function registerStandalone(connect: Command): void {
  withExamples(
    connect
      .command('standalone')
      .description('run a standalone Connect worker (offsets in offset.storage.file.filename)')
      .argument('<worker.properties>', 'worker config (bootstrap.servers, listeners, offset.storage.file.filename, ...)')
      .argument('[connector.properties...]', 'connectors to create at start')
      .action(async (workerFile: string, connectorFiles: string[]) => {
        const worker = await startStandalone(readProperties(workerFile), connectorFiles.map(readProperties));
        process.stdout.write(`Connect worker REST API on ${worker.url}\n`);
        await untilSignal();
        await worker.close();
      }),
    ['tributary connect standalone config/connect-standalone.properties config/connect-file-source.properties'],
  );
}

function registerDistributed(connect: Command): void {
  withExamples(
    connect
      .command('distributed')
      .description('run a distributed Connect worker: workers with the same group.id share the connectors (configs, offsets and statuses in Kafka topics)')
      .argument('<worker.properties>', 'worker config (bootstrap.servers, group.id, config.storage.topic, offset.storage.topic, status.storage.topic, listeners, ...)')
      .action(async (workerFile: string) => {
        const worker = await startDistributed(readProperties(workerFile));
        process.stdout.write(`Connect worker REST API on ${worker.url}\n`);
        await untilSignal();
        await worker.close();
      }),
    ['tributary connect distributed config/connect-distributed.properties'],
  );
}

interface ClientOpts {
  url: string;
  json?: boolean;
}

async function rest(o: ClientOpts, method: string, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
  }
  const res = await fetch(o.url.replace(/\/$/, '') + path, init);
  const text = await res.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  if (res.status >= 400) {
    const message = typeof parsed === 'object' && parsed !== null && 'message' in parsed ? String(parsed.message) : text;
    throw new Error(`${method} ${path}: ${res.status} ${message}`);
  }
  return parsed;
}

const EXAMPLE_ARGS: Readonly<Record<string, string>> = {
  list: '',
  status: ' local-file-source',
  create: ' file-sink.properties',
  delete: ' local-file-source',
  pause: ' local-file-source',
  resume: ' local-file-source',
  stop: ' local-file-source',
  restart: ' local-file-source --include-tasks --only-failed',
  plugins: ' --json',
};

/** A command of a running worker's REST API: --url (env CONNECT_URL) and --json. */
function clientCommand(connect: Command, name: string, description: string): Command {
  const cmd = connect
    .command(name)
    .description(description)
    .addOption(new Option('--url <url>', 'the worker\'s REST API').env(CONNECT_URL_ENV).default(CONNECT_URL_DEFAULT))
    .option('--json', 'print JSON');
  return withExamples(cmd, [`tributary connect ${name}${EXAMPLE_ARGS[name] ?? ''} --url http://127.0.0.1:8083`]);
}

function print(o: ClientOpts, value: unknown, table: () => string): void {
  process.stdout.write((o.json === true ? JSON.stringify(value, null, 2) : table()) + '\n');
}

interface StatusBody {
  name: string;
  type: string;
  connector: { state: string; worker_id: string; trace?: string };
  tasks: { id: number; state: string; worker_id: string; trace?: string }[];
}

function statusTable(statuses: StatusBody[]): string {
  const rows = statuses.flatMap((s) => [
    [s.name, s.type, 'connector', s.connector.state, s.connector.worker_id],
    ...s.tasks.map((t) => [s.name, s.type, `task ${t.id}`, t.state, t.worker_id]),
  ]);
  const traces = statuses.flatMap((s) => [s.connector, ...s.tasks].filter((x) => x.trace !== undefined).map((x) => `\n${s.name}: ${(x.trace ?? '').split('\n')[0] ?? ''}`));
  return formatTable(['NAME', 'TYPE', 'UNIT', 'STATE', 'WORKER'], rows) + traces.join('');
}

function registerClientCommands(connect: Command): void {
  clientCommand(connect, 'list', 'list connectors with their state').action(async (o: ClientOpts) => {
    const all = (await rest(o, 'GET', '/connectors?expand=status')) as Record<string, { status: StatusBody }>;
    print(o, all, () => statusTable(Object.values(all).map((x) => x.status)));
  });
  clientCommand(connect, 'status', 'show a connector\'s and its tasks\' state').argument('<name>').action(async (name: string, o: ClientOpts) => {
    const s = (await rest(o, 'GET', `/connectors/${encodeURIComponent(name)}/status`)) as StatusBody;
    print(o, s, () => statusTable([s]));
  });
  clientCommand(connect, 'create', 'create or update a connector from a .properties or .json file')
    .argument('<file>')
    .action(async (file: string, o: ClientOpts) => {
      const config = file.endsWith('.json') ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : readProperties(file);
      const name = config.name;
      if (name === undefined) throw new Error(`${file} has no name`);
      const info = await rest(o, 'PUT', `/connectors/${encodeURIComponent(name)}/config`, config);
      print(o, info, () => `connector ${name} configured`);
    });
  for (const [cmd, method, suffix, done] of [
    ['delete', 'DELETE', '', 'deleted'],
    ['pause', 'PUT', '/pause', 'paused'],
    ['resume', 'PUT', '/resume', 'resumed'],
    ['stop', 'PUT', '/stop', 'stopped'],
  ] as const) {
    clientCommand(connect, cmd, `${cmd} a connector`).argument('<name>').action(async (name: string, o: ClientOpts) => {
      await rest(o, method, `/connectors/${encodeURIComponent(name)}${suffix}`);
      print(o, { name, result: done }, () => `connector ${name} ${done}`);
    });
  }
  clientCommand(connect, 'restart', 'restart a connector (--include-tasks, --only-failed) or one task (--task)')
    .argument('<name>')
    .option('--include-tasks', 'restart its tasks too')
    .option('--only-failed', 'restart only what FAILED')
    .option('--task <id>', 'restart this task only')
    .action(async (name: string, o: ClientOpts & { includeTasks?: boolean; onlyFailed?: boolean; task?: string }) => {
      const base = `/connectors/${encodeURIComponent(name)}`;
      if (o.task !== undefined) await rest(o, 'POST', `${base}/tasks/${encodeURIComponent(o.task)}/restart`);
      else await rest(o, 'POST', `${base}/restart?includeTasks=${o.includeTasks === true}&onlyFailed=${o.onlyFailed === true}`);
      print(o, { name, result: 'restarted' }, () => `connector ${name} restarted`);
    });
  clientCommand(connect, 'plugins', 'list the connector plugins of the worker').action(async (o: ClientOpts) => {
    const list = (await rest(o, 'GET', '/connector-plugins')) as { class: string; type: string; version: string }[];
    print(o, list, () => formatTable(['CLASS', 'TYPE', 'VERSION'], list.map((p) => [p.class, p.type, p.version])));
  });
}

export function registerConnectCommands(program: Command): void {
  const connect = program.command('connect').description('Kafka Connect workers and connectors');
  registerStandalone(connect);
  registerDistributed(connect);
  registerClientCommands(connect);
  connect.action(() => usageError(connect, 'a connect subcommand is required (standalone, distributed, list, status, create, delete, pause, resume, stop, restart, plugins)'));
}

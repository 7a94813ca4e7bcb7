/**
 * The `tributary` program: the broker (`start`) and every admin task, as a
 * commander program. The bin (main.ts) loads this module, or the start-up
 * bundle made from it (start-bundle.ts).
 *
 * Exit codes, for every subcommand: 0 success, 1 runtime failure, 2 usage
 * error (unknown command or option, bad or missing argument, invalid config).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_RUNTIME, EXIT_USAGE, registerStartCommand, type StartHooks } from './start.js';
import { subcommandOf } from './argv.js';

/**
 * The version in package.json (dist/src/cli/program.js -> ../../../package.json;
 * the bundle's files are in dist/src/cli-bundle/, at the same depth).
 */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const EXAMPLES = `
Examples:
  tributary start                                  run a broker on 127.0.0.1:9092, data in ./data
  tributary start --config config/server.properties --override log.retention.hours=24
  tributary topic create orders --partitions 6
  tributary topic list
  tributary produce orders < events.jsonl
  tributary consume orders --group audit --from-beginning
  tributary group describe audit
  tributary config set --topic orders retention.ms=86400000
  tributary cluster describe
  tributary records delete orders --all
  tributary bench produce --topic perf --create-topic --records 1000000 --acks 1
  tributary connect standalone worker.properties file-source.properties
  tributary connect distributed worker.properties
  tributary mirror mm2.properties

Client commands take --bootstrap host:port (default: $TRIBUTARY_BOOTSTRAP,
else 127.0.0.1:9092); listings and descriptions print tables, or JSON with
--json. Exit codes: 0 success, 1 runtime failure (a Kafka error, an
unreachable broker), 2 usage error.

Run "tributary <command> --help" for a command's options. Any Kafka client or
tool works against the broker too (e.g. kcat -b localhost:9092 -L).`;

/**
 * The client commands, loaded only when needed: `tributary start` (and
 * `npm start`) skips loading the client library, which saves a fifth of a
 * second of start-up and some 20 MB.
 */
async function registerClientCommands(program: Command): Promise<void> {
  const [topic, produce, consume, group, config, cluster, records, bench, connect, mirror, user, txn, acl, quota, tenant] = await Promise.all([
    import('./commands/topic.js'),
    import('./commands/produce.js'),
    import('./commands/consume.js'),
    import('./commands/group.js'),
    import('./commands/config.js'),
    import('./commands/cluster.js'),
    import('./commands/records.js'),
    import('./commands/bench.js'),
    import('./commands/connect.js'),
    import('./commands/mirror.js'),
    import('./commands/user.js'),
    import('./commands/txn.js'),
    import('./commands/acl.js'),
    import('./commands/quota.js'),
    import('./commands/tenant.js'),
  ]);
  topic.registerTopicCommands(program);
  produce.registerProduceCommand(program);
  consume.registerConsumeCommand(program);
  group.registerGroupCommands(program);
  config.registerConfigCommands(program);
  cluster.registerClusterCommands(program);
  records.registerRecordsCommands(program);
  bench.registerBenchCommands(program);
  connect.registerConnectCommands(program);
  mirror.registerMirrorCommands(program);
  user.registerUserCommands(program);
  txn.registerTxnCommands(program);
  acl.registerAclCommands(program);
  quota.registerQuotaCommands(program);
  tenant.registerTenantCommands(program);
}

/** The full program (every command). */
export async function buildProgram(): Promise<Command> {
  const program = buildStartOnlyProgram();
  await registerClientCommands(program);
  return program;
}

function buildStartOnlyProgram(hooks: StartHooks = {}): Command {
  const program = new Command('tributary');
  program
    .description('A streaming platform that speaks the Apache Kafka protocol')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand('help [command]', 'show help for a command')
    .showHelpAfterError('(run "tributary --help" for usage)')
    .showSuggestionAfterError(true)
    // Throw instead of exiting so main() applies one exit-code policy.
    // Subcommands inherit both settings when created after this point.
    .exitOverride()
    .addHelpText('after', EXAMPLES);
  registerStartCommand(program, hooks);
  return program;
}

/**
 * Runs the CLI; resolves with the exit code (it does not call process.exit
 * itself). `hooks.onStarted` runs once a broker started by `start` serves.
 */
export async function main(argv: readonly string[] = process.argv, hooks: StartHooks = {}): Promise<number> {
  const program = subcommandOf(argv) === 'start' ? buildStartOnlyProgram(hooks) : await buildProgram();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander.* codes are usage errors (it already printed the message);
      // --help and --version exit 0. Commands may raise their own codes.
      if (err.exitCode === 0) return 0;
      return err.code.startsWith('commander.') ? EXIT_USAGE : err.exitCode;
    }
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_RUNTIME;
  }
}

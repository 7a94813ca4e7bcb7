/**
 * `tributary user create|delete|list`: SCRAM users (KIP-554) through
 * AlterUserScramCredentials and DescribeUserScramCredentials, as
 * kafka-configs.sh --entity-type users does. The password is salted and
 * hashed here (RFC 5802 Hi) and never sent. With a SASL listener, give the
 * admin's own login with --command-config (docs/security.md).
 */
import type { Command } from 'commander';
import type { ScramMechanism } from '../../client/user-admin.js';
import { EXIT_RUNTIME, checkBootstrap, choice, formatTable, positiveInt, reportError, toJson, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

const MECHANISMS: readonly ScramMechanism[] = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];

interface CreateOptions extends CommonOptions {
  mechanism: ScramMechanism;
  password: string;
  iterations?: number;
}

interface DeleteOptions extends CommonOptions {
  mechanism?: ScramMechanism;
}

interface ListOptions extends CommonOptions {
  json?: boolean;
}

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('SCRAM users (SASL/SCRAM logins): create, delete, list');
  withExamples(user, ['tributary user create alice --mechanism SCRAM-SHA-512 --password alice-secret', 'tributary user list', 'tributary user delete alice']);
  withExamples(withClientOptions(user.command('create <name>').description('create a SCRAM user, or change its password')), [
    'tributary user create alice --mechanism SCRAM-SHA-256 --password alice-secret --iterations 8192',
    'tributary user create bob --password bob-secret --command-config admin.properties',
  ])
    .option('--mechanism <mechanism>', `one of ${MECHANISMS.join(', ')}`, choice('--mechanism', MECHANISMS), 'SCRAM-SHA-512')
    .requiredOption('--password <password>', 'the password (salted and hashed before it is sent)')
    .option('--iterations <n>', 'SCRAM iterations, 4096-16384 (default 4096)', positiveInt('--iterations'))
    .action(async (name: string, options: CreateOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const change = { user: name, mechanism: options.mechanism, password: options.password, ...(options.iterations === undefined ? {} : { iterations: options.iterations }) };
        const [result] = await admin.alterUserScramCredentials([change]);
        if (result?.error) throw result.error;
        await writeOut(`Set ${options.mechanism} credentials of user ${name}.\n`);
      });
    });
  withExamples(withClientOptions(user.command('delete <name>').description('delete a user\'s SCRAM credentials (every mechanism unless --mechanism)')), [
    'tributary user delete alice',
    'tributary user delete alice --mechanism SCRAM-SHA-256',
  ])
    .option('--mechanism <mechanism>', `only this one of ${MECHANISMS.join(', ')}`, choice('--mechanism', MECHANISMS))
    .action(async (name: string, options: DeleteOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const [described] = await admin.describeUserScramCredentials([name]);
        if (described?.error) throw described.error;
        const mechanisms = options.mechanism !== undefined ? [options.mechanism] : (described?.credentials ?? []).map((c) => c.mechanism).filter((m): m is ScramMechanism => MECHANISMS.includes(m as ScramMechanism));
        const [result] = await admin.alterUserScramCredentials(mechanisms.map((mechanism) => ({ user: name, mechanism, delete: true as const })));
        if (result?.error) throw result.error;
        await writeOut(`Deleted ${mechanisms.join(', ')} credentials of user ${name}.\n`);
      });
    });
  withExamples(withClientOptions(user.command('list [names...]').description('users with SCRAM credentials: mechanisms and iterations (never secrets)')), ['tributary user list', 'tributary user list alice bob --json'])
    .option('--json', 'print JSON')
    .action(async (names: string[], options: ListOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const users = await admin.describeUserScramCredentials(names);
        const failed = users.filter((u) => u.error !== null);
        const ok = users.filter((u) => u.error === null);
        if (options.json === true) await writeOut(`${toJson(ok.map((u) => ({ user: u.user, credentials: u.credentials })), 2)}\n`);
        else await writeOut(`${formatTable(['USER', 'MECHANISM', 'ITERATIONS'], ok.flatMap((u) => u.credentials.map((c) => [u.user, c.mechanism, String(c.iterations)])))}\n`);
        for (const u of failed) reportError(u.error, { bootstrap: options.bootstrap });
        if (failed.length > 0) process.exitCode = EXIT_RUNTIME;
      });
    });
}

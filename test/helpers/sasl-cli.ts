/**
 * The CLI against a SASL broker, for the tests of the security commands
 * (`tributary acl|user|quota|tenant`): an in-process broker with a
 * SASL_PLAINTEXT listener (sasl.ts), a temporary directory for Kafka client
 * properties files (`--command-config`), and the CLI run with `--bootstrap`
 * pointing at the SASL listener.
 *
 *   const session = await startSaslCli('trib-cli-acl', { 'authorizer.class.name': 'standard', 'super.users': 'User:admin' });
 *   after(() => session.close());
 *   await session.ok(['acl', 'list', '--command-config', session.login('admin.properties', 'admin', 'admin-secret')]);
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerMain } from './broker-process.js';
import { run, type RunResult } from './run.js';
import { startSaslBroker, type SaslBroker } from './sasl.js';

export interface SaslCliSession {
  readonly broker: SaslBroker;
  readonly dir: string;
  /** Writes `lines` as the file `name` in the session's directory; its path. */
  file(name: string, lines: readonly string[]): string;
  /** A `--command-config` file logging in over SASL_PLAINTEXT with PLAIN as `user`. */
  login(name: string, user: string, password: string): string;
  /** Runs `tributary <args> --bootstrap <sasl listener> [defaultArgs]`; never throws on a non-zero exit. */
  cli(args: readonly string[], input?: string): Promise<RunResult>;
  /** cli() that must exit 0 (the assertion shows its output). */
  ok(args: readonly string[], input?: string): Promise<RunResult>;
  /** Arguments added to every cli() call from now on (e.g. an admin `--command-config`). */
  defaultArgs: readonly string[];
  close(): Promise<void>;
}

export async function startSaslCli(dirPrefix: string, brokerOverrides: Record<string, string> = {}): Promise<SaslCliSession> {
  const broker = await startSaslBroker(brokerOverrides);
  const dir = mkdtempSync(join(tmpdir(), `${dirPrefix}-`));
  const session: SaslCliSession = {
    broker,
    dir,
    defaultArgs: [],
    file(name, lines) {
      const path = join(dir, name);
      writeFileSync(path, `${lines.join('\n')}\n`);
      return path;
    },
    login(name, user, password) {
      return session.file(name, ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN', `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${user}" password="${password}";`]);
    },
    cli(args, input) {
      return run(process.execPath, [brokerMain, ...args, '--bootstrap', `127.0.0.1:${broker.saslPort}`, ...session.defaultArgs], { allowFailure: true, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });
    },
    async ok(args, input) {
      const r = await session.cli(args, input);
      assert.equal(r.code, 0, `tributary ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      return r;
    },
    async close() {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return session;
}

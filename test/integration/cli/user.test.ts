// `tributary user create|delete|list` and `--command-config` against an
// in-process broker with a SASL_PLAINTEXT listener (docs/security.md): the
// admin logs in with a Kafka client properties file, creates SCRAM users,
// and a produce/consume with one of them through the CLI works; a command
// config with a wrong password fails with the broker's SASL error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunResult } from '../../helpers/run.js';
import { startSaslCli, type SaslCliSession } from '../../helpers/sasl-cli.js';
import { uniqueName } from '../../helpers/records.js';

describe('tributary user and --command-config over SASL', { timeout: 180_000 }, () => {
  let session: SaslCliSession;
  const file = (name: string, lines: readonly string[]): string => session.file(name, lines);
  const cli = (args: readonly string[], input?: string): Promise<RunResult> => session.cli(args, input);
  const ok = (args: readonly string[], input?: string): Promise<RunResult> => session.ok(args, input);

  before(async () => {
    session = await startSaslCli('trib-cli-user');
  });
  after(() => session?.close());

  it('creates, lists and deletes SCRAM users; a created user produces and consumes through the CLI', async () => {
    const admin = session.login('admin.properties', 'admin', 'admin-secret');
    await ok(['user', 'create', 'dana', '--mechanism', 'SCRAM-SHA-256', '--password', 'dana-secret', '--iterations', '8192', '--command-config', admin]);
    await ok(['user', 'create', 'dana', '--mechanism', 'SCRAM-SHA-512', '--password', 'dana-secret', '--command-config', admin]);
    const listed = JSON.parse((await ok(['user', 'list', '--json', '--command-config', admin])).stdout) as { user: string; credentials: { mechanism: string; iterations: number }[] }[];
    assert.deepEqual(listed, [{ user: 'dana', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 8192 }, { mechanism: 'SCRAM-SHA-512', iterations: 4096 }] }]);
    assert.match((await ok(['user', 'list', '--command-config', admin])).stdout, /dana\s+SCRAM-SHA-256\s+8192/);
    const tooFew = await cli(['user', 'create', 'eve', '--password', 'x', '--iterations', '100', '--command-config', admin]);
    assert.equal(tooFew.code, 1);
    assert.match(tooFew.stderr, /UNACCEPTABLE_CREDENTIAL/);

    const dana = file('dana.properties', [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=SCRAM-SHA-512',
      'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="dana" password="dana-secret";',
    ]);
    const topic = uniqueName('cli-sasl');
    await ok(['topic', 'create', topic, '--partitions', '1', '--command-config', dana]);
    await ok(['produce', topic, '--command-config', dana], 'one\ntwo\n');
    const consumed = await ok(['consume', topic, '--from-beginning', '--max', '2', '--command-config', dana]);
    assert.deepEqual(consumed.stdout.trim().split('\n'), ['one', 'two']);

    await ok(['user', 'delete', 'dana', '--mechanism', 'SCRAM-SHA-256', '--command-config', admin]);
    await ok(['user', 'delete', 'dana', '--command-config', admin]);
    const missing = await cli(['user', 'list', 'dana', '--command-config', admin]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /RESOURCE_NOT_FOUND/);
  });

  it('a wrong password in the command config fails with the broker\'s SASL error; JKS stores and unknown protocols are refused', async () => {
    const wrong = file('wrong.properties', ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN', 'sasl.username=admin', 'sasl.password=nope']);
    const r = await cli(['topic', 'list', '--command-config', wrong]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /SASL_AUTHENTICATION_FAILED|Invalid username or password/);
    const jks = file('jks.properties', ['security.protocol=SSL', 'ssl.truststore.type=JKS', 'ssl.truststore.location=/etc/ca.jks']);
    const t = await cli(['topic', 'list', '--command-config', jks]);
    assert.notEqual(t.code, 0);
    assert.match(t.stderr, /ssl.truststore.type=JKS is not supported: only PEM/);
    const unknown = await cli(['topic', 'list', '--command-config', file('tls.properties', ['security.protocol=TLS'])]);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /security.protocol=TLS is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL/);
  });
});

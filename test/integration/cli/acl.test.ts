// `tributary acl add|remove|list` with `--command-config` against an
// in-process broker with the StandardAuthorizer and a SASL_PLAINTEXT
// listener (docs/security.md): the admin (a super user) grants alice WRITE on
// a prefix, alice's produce through the CLI is refused before and accepted
// after, list shows the ACLs (table and JSON, MATCH by topic), remove takes
// them back, alice may not manage ACLs herself, and `tenant describe` shows
// her ACLs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerMain } from '../../helpers/broker-process.js';
import { run as runTool, type RunResult } from '../../helpers/run.js';
import { startSaslBroker, type SaslBroker } from '../../helpers/sasl.js';
import { uniqueName } from '../../helpers/records.js';
import { Admin } from '../../../src/client/admin.js';

describe('tributary acl over SASL with the authorizer on', { timeout: 180_000 }, () => {
  let broker: SaslBroker;
  let dir: string;
  let admin: string;
  let alice: string;
  const file = (name: string, lines: readonly string[]): string => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  const cli = (args: readonly string[], input?: string): Promise<RunResult> =>
    runTool(process.execPath, [brokerMain, ...args, '--bootstrap', `127.0.0.1:${broker.saslPort}`], { allowFailure: true, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });
  const ok = async (args: readonly string[], input?: string): Promise<RunResult> => {
    const r = await cli(args, input);
    assert.equal(r.code, 0, `tributary ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r;
  };
  const login = (name: string, user: string, password: string): string =>
    file(name, ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN', `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${user}" password="${password}";`]);

  before(async () => {
    broker = await startSaslBroker({ 'authorizer.class.name': 'standard', 'super.users': 'User:admin' });
    dir = mkdtempSync(join(tmpdir(), 'trib-cli-acl-'));
    admin = login('admin.properties', 'admin', 'admin-secret');
    alice = login('alice.properties', 'alice', 'alice-secret');
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('add, list, remove; the grant decides whether alice may produce', async () => {
    const topic = uniqueName('team-a.orders');
    const own = await Admin.connect({ bootstrap: `127.0.0.1:${broker.saslPort}`, sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    try {
      assert.equal((await own.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]))[0]?.error, null);
    } finally {
      await own.close();
    }
    const refused = await cli(['produce', topic, '--command-config', alice], 'one\n');
    assert.notEqual(refused.code, 0, 'alice has no ACL yet');
    assert.match(refused.stderr, /TOPIC_AUTHORIZATION_FAILED|not authorized/i);

    const added = await ok(['acl', 'add', '--allow', 'User:alice', '--operation', 'WRITE', '--operation', 'describe', '--topic', 'team-a.', '--prefixed', '--command-config', admin]);
    assert.match(added.stdout, /Added ALLOW User:alice WRITE on TOPIC:team-a\.\* from \*/);
    await ok(['acl', 'add', '--deny', 'User:alice', '--operation', 'ALL', '--topic', 'secret', '--host', '10.9.9.9', '--command-config', admin]);
    await ok(['produce', topic, '--command-config', alice], 'two\n');

    const listed = JSON.parse((await ok(['acl', 'list', '--json', '--command-config', admin])).stdout) as { principal: string; operation: string; resourceName: string; patternType: string; permissionType: string; host: string }[];
    assert.deepEqual(listed.map((a) => `${a.permissionType} ${a.operation} ${a.resourceName} ${a.patternType} ${a.host}`).sort(), ['ALLOW DESCRIBE team-a. PREFIXED *', 'ALLOW WRITE team-a. PREFIXED *', 'DENY ALL secret LITERAL 10.9.9.9']);
    const forTopic = await ok(['acl', 'list', '--topic', topic, '--command-config', admin]);
    assert.match(forTopic.stdout, /ALLOW\s+User:alice\s+WRITE\s+TOPIC\s+team-a\.\s+PREFIXED/);
    assert.doesNotMatch(forTopic.stdout, /secret/, 'only the ACLs that apply to the topic');

    // tenant describe lists what alice may do: her ACLs (User:* has none here).
    const tenant = JSON.parse((await ok(['tenant', 'describe', 'User:alice', '--json', '--command-config', admin])).stdout) as { acls: { available: boolean; acls: { permission: string; operation: string; resourceName: string }[] } };
    assert.equal(tenant.acls.available, true);
    assert.deepEqual(tenant.acls.acls.map((a) => `${a.permission} ${a.operation} ${a.resourceName}`).sort(), ['ALLOW DESCRIBE team-a.', 'ALLOW WRITE team-a.', 'DENY ALL secret']);

    const aliceManages = await cli(['acl', 'add', '--allow', 'User:alice', '--operation', 'ALL', '--cluster', '--command-config', alice]);
    assert.equal(aliceManages.code, 1);
    assert.match(aliceManages.stderr, /CLUSTER_AUTHORIZATION_FAILED/);

    assert.match((await ok(['acl', 'remove', '--allow', 'User:alice', '--operation', 'WRITE', '--topic', 'team-a.', '--prefixed', '--command-config', admin])).stdout, /Removed ALLOW User:alice WRITE/);
    const again = await cli(['produce', topic, '--command-config', alice], 'three\n');
    assert.notEqual(again.code, 0, 'the grant is gone');
    const usage = await cli(['acl', 'add', '--allow', 'alice', '--operation', 'READ', '--topic', 't', '--command-config', admin]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /TYPE:NAME/);
  });
});

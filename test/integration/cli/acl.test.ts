// `tributary acl add|remove|list` with `--command-config` against an
// in-process broker with the StandardAuthorizer and a SASL_PLAINTEXT
// listener (docs/security.md): the admin (a super user) grants alice WRITE on
// a prefix, alice's produce through the CLI is refused before and accepted
// after, list shows the ACLs (table and JSON, MATCH by topic), remove takes
// them back, alice may not manage ACLs herself, and `tenant describe` shows
// her ACLs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunResult } from '../../helpers/run.js';
import { startSaslCli, type SaslCliSession } from '../../helpers/sasl-cli.js';
import { uniqueName } from '../../helpers/records.js';
import { Admin } from '../../../src/client/admin.js';

describe('tributary acl over SASL with the authorizer on', { timeout: 180_000 }, () => {
  let session: SaslCliSession;
  let admin: string;
  let alice: string;
  const cli = (args: readonly string[], input?: string): Promise<RunResult> => session.cli(args, input);
  const ok = (args: readonly string[], input?: string): Promise<RunResult> => session.ok(args, input);

  before(async () => {
    session = await startSaslCli('trib-cli-acl', { 'authorizer.class.name': 'standard', 'super.users': 'User:admin' });
    admin = session.login('admin.properties', 'admin', 'admin-secret');
    alice = session.login('alice.properties', 'alice', 'alice-secret');
  });
  after(() => session?.close());

  it('add, list, remove; the grant decides whether alice may produce', async () => {
    const topic = uniqueName('team-a.orders');
    const own = await Admin.connect({ bootstrap: `127.0.0.1:${session.broker.saslPort}`, sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
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

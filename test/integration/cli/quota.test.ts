// `tributary quota set|list|remove` and `tributary tenant describe` against
// an in-process broker with a SASL_PLAINTEXT listener and a metrics
// endpoint (docs/security.md, "Quotas" and "Tenants"): the admin sets
// quotas with --command-config; alice produces over SASL; tenant describe
// shows her effective quotas with the level each came from and her usage
// read from the broker's metrics.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Producer } from '../../../src/client/producer.js';
import type { RunResult } from '../../helpers/run.js';
import { startSaslCli, type SaslCliSession } from '../../helpers/sasl-cli.js';

describe('tributary quota and tenant describe', { timeout: 180_000 }, () => {
  let session: SaslCliSession;
  const cli = (args: readonly string[]): Promise<RunResult> => session.cli(args);
  const ok = (args: readonly string[]): Promise<RunResult> => session.ok(args);

  before(async () => {
    session = await startSaslCli('trib-cli-quota', { 'metrics.listeners': 'http://127.0.0.1:0' });
    session.defaultArgs = ['--command-config', session.login('admin.properties', 'admin', 'admin-secret')];
  });
  after(() => session?.close());

  it('sets, lists and removes quotas', async () => {
    assert.match((await ok(['quota', 'set', '--user', 'alice', '--producer-byte-rate', '1048576'])).stdout, /Set producer_byte_rate=1048576 on \/config\/users\/alice\./);
    await ok(['quota', 'set', '--user', '--consumer-byte-rate', '2097152']);
    await ok(['quota', 'set', '--user', 'alice', '--client-id', 'reports', '--request-percentage', '25']);
    await ok(['quota', 'set', '--ip', '10.0.0.7', '--connection-creation-rate', '5']);
    const all = JSON.parse((await ok(['quota', 'list', '--json'])).stdout) as { entity: string; values: Record<string, number> }[];
    assert.deepEqual(all, [
      { entity: '/config/ips/10.0.0.7', values: { connection_creation_rate: 5 } },
      { entity: '/config/users/<default>', values: { consumer_byte_rate: 2097152 } },
      { entity: '/config/users/alice', values: { producer_byte_rate: 1048576 } },
      { entity: '/config/users/alice/clients/reports', values: { request_percentage: 25 } },
    ]);
    assert.match((await ok(['quota', 'list', '--user', 'alice', '--strict'])).stdout, /\/config\/users\/alice\s+producer_byte_rate\s+1048576/);
    const bad = await cli(['quota', 'set', '--user', 'alice', '--ip', '10.0.0.1', '--connection-creation-rate', '1']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /INVALID_REQUEST/);
    const usage = await cli(['quota', 'set', '--user', 'alice']);
    assert.equal(usage.code, 2, 'no quota value is a usage error');
    await ok(['quota', 'remove', '--ip', '10.0.0.7']);
    assert.doesNotMatch((await ok(['quota', 'list'])).stdout, /10\.0\.0\.7/);
  });

  it('tenant describe: effective quotas with their level, usage from the metrics endpoint, the ACL hook', async () => {
    const producer = await Producer.connect({ clusterOptions: { bootstrap: `127.0.0.1:${session.broker.saslPort}` }, sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' }, acks: 1 });
    try {
      for (let i = 0; i < 20; i++) await producer.send({ topic: 'tenant-usage', value: Buffer.alloc(10_000, i) });
      const metricsUrl = session.broker.broker.metricsAddresses[0]?.url ?? assert.fail('no metrics endpoint');
      const r = await ok(['tenant', 'describe', 'User:alice', '--metrics-url', metricsUrl, '--json']);
      const view = JSON.parse(r.stdout) as { quotas: { key: string; value?: number; from?: string }[]; usage: { produceBytesPerSec: number; connections: number; brokers: number }; acls: { available: boolean } };
      assert.deepEqual(view.quotas.find((q) => q.key === 'producer_byte_rate'), { key: 'producer_byte_rate', value: 1048576, from: '/config/users/alice' });
      assert.deepEqual(view.quotas.find((q) => q.key === 'consumer_byte_rate'), { key: 'consumer_byte_rate', value: 2097152, from: '/config/users/<default>' });
      assert.equal(view.quotas.find((q) => q.key === 'request_percentage')?.value, undefined, 'the client-id level applies only to that client id');
      assert.ok(view.usage.produceBytesPerSec > 0, `usage ${JSON.stringify(view.usage)}`);
      assert.ok(view.usage.connections >= 1, `usage ${JSON.stringify(view.usage)}`);
      assert.equal(view.usage.brokers, 1);
      assert.equal(view.acls.available, false);
      const withClient = await ok(['tenant', 'describe', 'User:alice', '--client-id', 'reports']);
      assert.match(withClient.stdout, /request_percentage\s+25\s+\/config\/users\/alice\/clients\/reports/);
      assert.match(withClient.stdout, /Usage:\n\s+not read: give --metrics-url/);
    } finally {
      await producer.close();
    }
  });
});

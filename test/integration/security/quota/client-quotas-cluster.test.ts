// Client quotas on a 3-node cluster: AlterClientQuotas sent to every node
// (forwarded to the active controller by the others) is committed once,
// and every node's DescribeClientQuotas shows every change once the
// metadata log has replicated it (docs/security.md, "Quotas").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../../src/client/admin.js';
import { startCluster, type EmbeddedCluster } from '../../../../src/index.js';

describe('client quotas on 3 nodes', { timeout: 120_000 }, () => {
  let cluster: EmbeddedCluster;

  before(async () => {
    cluster = await startCluster({ brokers: 3 });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('a quota set through any node is seen by every node', async () => {
    for (const b of cluster.brokers) {
      const admin = await Admin.connect({ bootstrap: `${b.host}:${b.port}` });
      try {
        const [r] = await admin.alterClientQuotas([{ entity: { user: `via-${b.nodeId}` }, ops: [{ key: 'producer_byte_rate', value: 1000 * b.nodeId }] }]);
        assert.equal(r?.error, null);
      } finally {
        await admin.close();
      }
    }
    const expected = cluster.brokers.map((b) => ({ entity: { user: `via-${b.nodeId}` }, values: { producer_byte_rate: 1000 * b.nodeId } }));
    for (const b of cluster.brokers) {
      const admin = await Admin.connect({ bootstrap: `${b.host}:${b.port}` });
      try {
        const deadline = Date.now() + 10_000;
        let seen = await admin.describeClientQuotas();
        while (seen.length < expected.length && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          seen = await admin.describeClientQuotas();
        }
        const sorted = [...seen].sort((x, y) => String(x.entity.user).localeCompare(String(y.entity.user)));
        assert.deepEqual(sorted, expected, `node ${b.nodeId}`);
      } finally {
        await admin.close();
      }
    }
  });
});

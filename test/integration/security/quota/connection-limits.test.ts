// Connection limits on accept (docs/security.md, "Connection limits"):
// max.connections.per.ip refuses the N+1th connection from an address (the
// socket is closed before any request is answered) and a slot frees when a
// connection closes; listener.name.<l>.max.connections limits one
// listener and leaves the others alone; an IP over its
// connection_creation_rate is refused too.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../../src/client/admin.js';
import { probeApiVersions, RawConnection, apiVersionsRequest } from '../../../helpers/raw-kafka.js';
import { startInProcessBroker } from '../../../helpers/in-process-broker.js';

/** True when the connection is answered (ApiVersions), false when the broker closes it. */
async function served(port: number): Promise<boolean> {
  try {
    await probeApiVersions(port, 3000);
    return true;
  } catch {
    return false;
  }
}

describe('connection limits', { timeout: 60_000 }, () => {
  it('max.connections.per.ip refuses the N+1th connection; closing one frees a slot', async () => {
    const b = await startInProcessBroker({ 'max.connections.per.ip': '2' });
    const held: RawConnection[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const c = await RawConnection.connect(b.port);
        c.socket.write(apiVersionsRequest(0, i));
        assert.notEqual((await c.next(3000)).kind, 'closed');
        held.push(c);
      }
      assert.equal(await served(b.port), false, 'the third connection from 127.0.0.1 is closed');
      held.pop()?.socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(await served(b.port), true, 'a slot is free again');
    } finally {
      for (const c of held) c.socket.destroy();
      await b.stop();
    }
  });

  it('listener.name.<l>.max.connections limits that listener only', async () => {
    const b = await startInProcessBroker({ listeners: 'PLAINTEXT://127.0.0.1:0,OTHER://127.0.0.1:0', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT', 'listener.name.other.max.connections': '1' });
    const other = b.broker.boundAddresses.find((a) => a.name === 'OTHER')?.port ?? assert.fail('no OTHER listener');
    const first = await RawConnection.connect(other);
    try {
      first.socket.write(apiVersionsRequest(0, 1));
      assert.notEqual((await first.next(3000)).kind, 'closed');
      assert.equal(await served(other), false, 'second connection on OTHER refused');
      assert.equal(await served(b.port), true, 'PLAINTEXT is not limited');
    } finally {
      first.socket.destroy();
      await b.stop();
    }
  });

  it('an IP over its connection_creation_rate quota is refused', async () => {
    const b = await startInProcessBroker();
    try {
      const admin = await Admin.connect({ bootstrap: `127.0.0.1:${b.port}` });
      try {
        const [r] = await admin.alterClientQuotas([{ entity: { ip: '127.0.0.1' }, ops: [{ key: 'connection_creation_rate', value: 1 }] }]);
        assert.equal(r?.error, null);
      } finally {
        await admin.close();
      }
      // 1 connection/s over the 10 s padded window: about ten fit at once, then refusals.
      const outcomes: boolean[] = [];
      for (let i = 0; i < 14; i++) outcomes.push(await served(b.port));
      assert.ok(outcomes.slice(0, 5).every((x) => x), `first connections served: ${outcomes.join(',')}`);
      assert.ok(outcomes.slice(-2).every((x) => !x), `later connections refused: ${outcomes.join(',')}`);
    } finally {
      await b.stop();
    }
  });
});

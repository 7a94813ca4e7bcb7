/**
 * The runnable Streams examples (examples/streams/*.ts, compiled to
 * dist/examples by the build) run as users would run them, each in its own
 * Node process, against an embedded broker (startCluster); their output is
 * checked line by line. (examples/streams/word-count.ts runs in
 * test/integration/examples.test.ts with the client examples.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/broker-process.js';
import { run } from '../../helpers/run.js';
import { startCluster, type EmbeddedCluster } from '../../../src/index.js';

const example = (name: string): string => join(repoRoot, 'dist', 'examples', 'streams', `${name}.js`);

describe('examples/streams against an embedded broker', { timeout: 90_000 }, () => {
  let cluster: EmbeddedCluster;
  let env: Record<string, string>;

  before(async () => {
    cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
    env = { TRIBUTARY_BOOTSTRAP: cluster.bootstrap };
  });

  after(async () => {
    await cluster?.stop();
  });

  it('windowed-counts.ts: one final count per window, the out-of-order click within grace counted, the late one dropped', async () => {
    const { stdout } = await run(process.execPath, [example('windowed-counts'), 'ex-clicks'], { env, timeoutMs: 60_000 });
    assert.equal(stdout, ['alice [0s, 60s): 2', 'alice [60s, 120s): 1', 'bob [0s, 60s): 2', 'carol [60s, 120s): 1', ''].join('\n'));
  });

  it('join.ts: clicks enriched with user names, an unknown user as anonymous (left join)', async () => {
    const { stdout } = await run(process.execPath, [example('join'), 'ex-shop'], { env, timeoutMs: 60_000 });
    assert.equal(stdout, ['alice: /home by Alice', 'bob: /cart by Bob', 'carol: /about by anonymous', ''].join('\n'));
  });
});

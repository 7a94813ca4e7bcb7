/**
 * The runnable examples of docs/client.md (examples/*.ts, compiled to
 * dist/examples by the build) run as users would run them, in their own
 * Node processes, against an embedded broker (startCluster); their output is
 * checked line by line.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../helpers/broker-process.js';
import { run } from '../helpers/run.js';
import { startCluster, type EmbeddedCluster } from '../../src/index.js';

const example = (name: string): string => join(repoRoot, 'dist', 'examples', `${name}.js`);

describe('examples/ against an embedded broker', { timeout: 60_000 }, () => {
  let cluster: EmbeddedCluster;
  let env: Record<string, string>;

  before(async () => {
    // No initial rebalance delay: the example's lone consumer gets its partitions at once.
    cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
    env = { TRIBUTARY_BOOTSTRAP: cluster.bootstrap };
  });

  after(async () => {
    await cluster?.stop();
  });

  it('produce.ts sends keyed records and prints where each landed', async () => {
    const { stdout } = await run(process.execPath, [example('produce'), 'ex-orders', '5'], { env, timeoutMs: 30_000 });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 5, stdout);
    lines.forEach((line, i) => assert.match(line, new RegExp(`^sent order-${i} to ex-orders-[0-2] at offset \\d+$`)));
    // Running it again appends to the existing topic (TOPIC_ALREADY_EXISTS is expected and ignored).
    const again = await run(process.execPath, [example('produce'), 'ex-orders', '1'], { env, timeoutMs: 30_000 });
    assert.match(again.stdout, /^sent order-0 to ex-orders-\d at offset \d+\n$/);
  });

  it('consume.ts reads those records in a group, commits and stops', async () => {
    const { stdout } = await run(process.execPath, [example('consume'), 'ex-orders', '6', 'ex-group'], { env, timeoutMs: 45_000 });
    const received = stdout.split('\n').filter((l) => l.startsWith('received '));
    assert.equal(received.length, 6, stdout);
    for (const line of received) assert.match(line, /^received order-\d \{"id":\d,"amount":\d+\} from ex-orders-[0-2]@\d+$/);
    assert.deepEqual(new Set(received.map((l) => l.split(' ')[1])), new Set(['order-0', 'order-1', 'order-2', 'order-3', 'order-4']));
    assert.match(stdout, /consumed 6 records\n$/);
  });

  it('admin.ts creates, describes, alters, looks up offsets and deletes', async () => {
    const { stdout } = await run(process.execPath, [example('admin'), 'ex-admin'], { env, timeoutMs: 30_000 });
    const nodeId = cluster.brokers[0]!.nodeId;
    assert.equal(
      stdout,
      [
        'created ex-admin: ok',
        'created ex-admin again: TOPIC_ALREADY_EXISTS; ex-admin-2: ok',
        `partition 0: leader ${nodeId}, replicas [${nodeId}], isr [${nodeId}]`,
        `partition 1: leader ${nodeId}, replicas [${nodeId}], isr [${nodeId}]`,
        'cleanup.policy=compact',
        'retention.ms=3600000 (DYNAMIC_TOPIC_CONFIG)',
        'offset ex-admin-0: 0',
        'offset ex-admin-1: 0',
        'offset ex-admin-9: UNKNOWN_TOPIC_OR_PARTITION',
        stdout.split('\n')[9],
        'createPartitions: INVALID_PARTITIONS (ERR_TRIB_KAFKA, retriable: false)',
        'done',
        '',
      ].join('\n'),
    );
    assert.match(stdout.split('\n')[9] ?? '', new RegExp(`^cluster \\S+: controller ${nodeId}, 1 broker\\(s\\)$`));
  });

  it('streams/word-count.ts counts words with KafkaStreams and queries the store', async () => {
    const { stdout } = await run(process.execPath, [example('streams/word-count'), 'ex-lines'], { env, timeoutMs: 45_000 });
    assert.equal(
      stdout,
      ['brown: 1', 'dog: 2', 'fox: 1', 'jumps: 1', 'lazy: 1', 'over: 1', 'quick: 1', 'sleeps: 1', 'the: 3', 'sub-topologies: 2', ''].join('\n'),
    );
  });
});

/**
 * A data dir written by the single node before it became a one-voter Raft
 * quorum (issue 6) opens in the Raft code path and keeps its topics, records,
 * topic configs, committed group offsets and deleted topics.
 *
 * test/fixtures/legacy-local-metadata-log/ is a whole broker data dir that
 * the former code (LocalMetadataLog: epoch-0 batches, no quorum-state, no
 * snapshots) wrote: node.id=1, offsets.topic.num.partitions=1; topics
 * legacy-a (3 partitions, 10 records each, retention.ms=86400000) and
 * legacy-b (1 partition, 5 records), legacy-gone created then deleted;
 * group legacy-group committed legacy-a/0=7, legacy-a/1=4, legacy-b/0=5;
 * then a clean shutdown. The test runs on a copy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { PYTHON, run } from '../helpers/run.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'legacy-local-metadata-log');

const CHECK = `
import json, sys
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource
bootstrap = sys.argv[1]
a = AdminClient({'bootstrap.servers': bootstrap})
md = a.list_topics(timeout=10)
topics = {t: sorted(p.id for p in m.partitions.values()) for t, m in md.topics.items()}
leaders = sorted({p.leader for m in md.topics.values() for p in m.partitions.values()})
res = ConfigResource(ConfigResource.Type.TOPIC, 'legacy-a')
retention = a.describe_configs([res])[res].result(timeout=10)['retention.ms'].value
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'legacy-group', 'enable.auto.commit': False, 'auto.offset.reset': 'earliest'})
committed = {f'{tp.topic}/{tp.partition}': tp.offset for tp in c.committed([TopicPartition('legacy-a', 0), TopicPartition('legacy-a', 1), TopicPartition('legacy-b', 0)], timeout=10)}
ends = {f'{t}/{p}': c.get_watermark_offsets(TopicPartition(t, p), timeout=10)[1] for t in ('legacy-a', 'legacy-b') for p in topics.get(t, [])}
c.assign([TopicPartition('legacy-b', 0, 0)])
values = []
while len(values) < 5:
    m = c.poll(10)
    if m is None: break
    if m.error() is None: values.append(m.value().decode())
c.close()
print(json.dumps({'topics': topics, 'leaders': leaders, 'retention': retention, 'committed': committed, 'ends': ends, 'values': values}))
`;

interface Seen {
  topics: Record<string, number[]>;
  leaders: number[];
  retention: string;
  committed: Record<string, number>;
  ends: Record<string, number>;
  values: string[];
}

async function check(bootstrap: string): Promise<Seen> {
  const result = await run(PYTHON, ['-c', CHECK, bootstrap], { timeoutMs: 40_000 });
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Seen;
}

test('a data dir of the former local metadata log boots as a one-voter Raft quorum and keeps everything', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-legacy-'));
  let started: BrokerProcess | undefined;
  // One hook, broker first: t.after hooks run in the order they were added,
  // and removing the data dir under a running broker made its shutdown fail
  // (ENOENT writing a metadata snapshot), which cleanup() reports.
  t.after(async () => {
    try {
      await started?.cleanup();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
  cpSync(FIXTURE, dataDir, { recursive: true });
  assert.ok(!existsSync(join(dataDir, '__cluster_metadata-0', 'quorum-state')), 'the fixture predates Raft');
  const broker = await startBroker({ dataDir, name: 'legacy', overrides: { 'node.id': '1', 'offsets.topic.num.partitions': '1' } });
  started = broker;
  await broker.explain(async () => {
    const expected: Seen = {
      topics: { '__consumer_offsets': [0], 'legacy-a': [0, 1, 2], 'legacy-b': [0] },
      leaders: [1],
      retention: '86400000',
      committed: { 'legacy-a/0': 7, 'legacy-a/1': 4, 'legacy-b/0': 5 },
      ends: { 'legacy-a/0': 10, 'legacy-a/1': 10, 'legacy-a/2': 10, 'legacy-b/0': 5 },
      values: ['b0', 'b1', 'b2', 'b3', 'b4'],
    };
    assert.deepEqual(await check(broker.bootstrap), expected);
    // Now a Raft voter: it voted for itself in epoch 1 (KRaft's quorum-state file).
    const state = JSON.parse(readFileSync(join(dataDir, '__cluster_metadata-0', 'quorum-state'), 'utf8')) as { leaderEpoch: number; votedId: number };
    assert.deepEqual([state.leaderEpoch, state.votedId], [1, 1]);

    // A hard restart after a metadata change: the old entries and the new ones replay together.
    const created = await run(PYTHON, ['-c', "import sys\nfrom confluent_kafka.admin import AdminClient, NewTopic\na = AdminClient({'bootstrap.servers': sys.argv[1]})\nfor f in a.create_topics([NewTopic('after-upgrade', 2, 1)]).values(): f.result(15)", broker.bootstrap], { timeoutMs: 30_000 });
    assert.equal(created.code, 0);
    await broker.restart({ hard: true });
    const again = await check(broker.bootstrap);
    assert.deepEqual(again, { ...expected, topics: { ...expected.topics, 'after-upgrade': [0, 1] } });
    const state2 = JSON.parse(readFileSync(join(dataDir, '__cluster_metadata-0', 'quorum-state'), 'utf8')) as { leaderEpoch: number };
    assert.equal(state2.leaderEpoch, 2, 'each start of a lone voter is a new epoch');
  });
});

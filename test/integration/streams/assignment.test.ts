/**
 * Two KafkaStreams instances of one application in this process against a
 * real broker (startCluster): the streams assignor splits the tasks, places a
 * standby of each stateful task on the other instance, tells both where
 * every key lives (queryMetadataForKey routes to the instance whose local
 * store has the key), and when one leaves, the other promotes its standbys
 * (restoring only the tail) and holds every count.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { Admin, Producer } from '../../../src/client/index.js';
import { KafkaStreams, Serdes, StreamsBuilder, type Topology } from '../../../src/streams/index.js';

let cluster: EmbeddedCluster;
let admin: Admin;
const dirs: string[] = [];

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
  admin = await Admin.connect({ bootstrap: cluster.bootstrap });
});
after(async () => {
  await admin.close();
  await cluster.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function wordCount(input: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_k, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'counts', storeType: 'persistent' });
  return builder.build();
}

async function waitFor(check: () => boolean, what: string, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function instance(appId: string, input: string, port: number, logs: string[]): KafkaStreams {
  const stateDir = mkdtempSync(join(tmpdir(), 'streams-assign-'));
  dirs.push(stateDir);
  return new KafkaStreams(wordCount(input), {
    applicationId: appId,
    bootstrapServers: cluster.bootstrap,
    commitIntervalMs: 100,
    stateDir,
    numStandbyReplicas: 1,
    applicationServer: `127.0.0.1:${port}`,
    sessionTimeoutMs: 6_000,
    logger: (_l, m) => void logs.push(`${port} ${m}`),
  });
}

const localCount = (s: KafkaStreams, word: string): bigint | null => {
  try {
    return s.store<string, bigint>('counts').get(word);
  } catch {
    return null;
  }
};

test('tasks split over two instances with standbys; queryMetadataForKey routes; the survivor promotes its standbys', async () => {
  const input = `assign-in-${Date.now()}`;
  await admin.createTopics([{ name: input, numPartitions: 4 }]);
  const appId = `assign-${Date.now()}`;
  const logs: string[] = [];
  const a = instance(appId, input, 7001, logs);
  const b = instance(appId, input, 7002, logs);
  try {
    await a.start();
    await b.start();
    // Both hold active tasks of the counting sub-topology (1) and a standby of each of the other's.
    await waitFor(() => {
      const all = a.currentState === 'RUNNING' && b.currentState === 'RUNNING' ? a.metadataForAllStreamsClients() : [];
      return all.length === 2 && all.every((m) => m.stateStoreNames.includes('counts') && m.standbyStateStoreNames.includes('counts'));
    }, 'both instances with active and standby counting tasks', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${a.currentState}/${b.currentState} ${JSON.stringify(a.currentState === 'NOT_RUNNING' ? [] : a.metadataForAllStreamsClients())}\n${logs.join('\n')}`);
    });
    const all = a.metadataForAllStreamsClients();
    assert.deepEqual(all.map((m) => m.hostInfo), [{ host: '127.0.0.1', port: 7001 }, { host: '127.0.0.1', port: 7002 }]);
    const active = (port: number): string[] => (all.find((m) => m.hostInfo.port === port)?.topicPartitions ?? []).filter((tp) => tp.topic.endsWith('-repartition')).map((tp) => `${tp.partition}`);
    const standby = (port: number): string[] => (all.find((m) => m.hostInfo.port === port)?.standbyTopicPartitions ?? []).map((tp) => `${tp.partition}`);
    assert.deepEqual([...active(7001), ...active(7002)].sort(), ['0', '1', '2', '3']);
    assert.equal(active(7001).length, 2, 'balanced');
    assert.deepEqual(standby(7001).sort(), active(7002).sort(), 'a standby of each task of the other instance');
    assert.deepEqual(standby(7002).sort(), active(7001).sort());

    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const producer = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap: cluster.bootstrap } });
    for (let round = 0; round < 3; round++) await producer.sendBatch(words.map((w) => ({ topic: input, key: null, value: `${w} ${w}` })));
    await waitFor(() => words.every((w) => (localCount(a, w) ?? localCount(b, w)) === 6n), 'every word counted 6 times');

    // Routing: each key's active host is the instance whose local store holds it; its standby the other.
    for (const w of words) {
      const meta = a.queryMetadataForKey('counts', w, Serdes.String());
      assert.deepEqual(b.queryMetadataForKey('counts', w, Serdes.String()), meta, 'both instances agree');
      const [holder, other] = meta.activeHost?.port === 7001 ? [a, 7002] : [b, 7001];
      assert.equal(localCount(holder, w), 6n, `${w} routed to ${meta.activeHost?.port}`);
      assert.deepEqual(meta.standbyHosts, [{ host: '127.0.0.1', port: other }]);
    }

    // A leaves: B promotes its standbys (restoring only what the standby had not read) and counts on.
    await a.close();
    await waitFor(() => b.currentState === 'RUNNING' && b.metadataForAllStreamsClients().length === 1 && words.every((w) => localCount(b, w) === 6n), 'B holding every count');
    assert.ok(logs.some((l) => l.startsWith('7002 standby task 1_') && l.endsWith('promoted to active')), logs.join('\n'));
    const fullRestores = logs.filter((l) => l.startsWith('7002 restored')).flatMap((l) => l.split(': ')[1]?.split(', ') ?? []).filter((e) => !e.includes('(from'));
    assert.deepEqual(fullRestores, [], 'the survivor restored no store from the start of its changelog');
    await producer.sendBatch(words.map((w) => ({ topic: input, key: null, value: w })));
    await producer.close();
    await waitFor(() => words.every((w) => localCount(b, w) === 7n), 'B counting on from the promoted state');
    const meta = b.queryMetadataForKey('counts', 'w1', Serdes.String());
    assert.deepEqual(meta.activeHost, { host: '127.0.0.1', port: 7002 });
    assert.deepEqual(meta.standbyHosts, [], 'no other instance left for a standby');
  } finally {
    await a.close();
    await b.close();
  }
});

/**
 * A corrupt state directory against a real broker (startCluster): LMDB files
 * overwritten with garbage are wiped with a warning and the store is
 * restored in full from its changelog (a progress log line, no checkpoint
 * used); an unreadable checkpoint file makes the task start empty and
 * restore in full too. Either way the counts are the ones before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useStreamsCluster } from '../../helpers/streams-cluster.js';
import { Producer } from '../../../src/client/index.js';
import { KafkaStreams, Serdes, StreamsBuilder, type StreamsConfig, type Topology } from '../../../src/streams/index.js';

const sc = useStreamsCluster();

function wordCount(input: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_k, w) => w, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'counts', storeType: 'persistent' });
  return builder.build();
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('corrupt LMDB files and an unreadable checkpoint: wiped with a warning, restored in full from the changelog', async () => {
  const input = `cs-in-${Date.now()}`;
  await sc.admin.createTopics([{ name: input, numPartitions: 1 }]);
  const stateDir = mkdtempSync(join(tmpdir(), 'streams-corrupt-'));
  const appId = `cs-${Date.now()}`;
  const logs: { level: string; message: string }[] = [];
  const config: StreamsConfig = { applicationId: appId, bootstrapServers: sc.bootstrap, commitIntervalMs: 100, stateDir, logger: (level, message) => void logs.push({ level, message }) };
  const taskDir = join(stateDir, appId, '1_0');
  const run = async (check: (s: KafkaStreams) => Promise<void>): Promise<void> => {
    const s = new KafkaStreams(wordCount(input), config);
    await s.start();
    try {
      await check(s);
    } finally {
      await s.close();
    }
  };
  try {
    await run(async (s) => {
      const producer = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap: sc.bootstrap } });
      await producer.send({ topic: input, key: null, value: 'a b a c' });
      await producer.close();
      await waitFor(() => s.store<string, bigint>('counts').get('a') === 2n, 'a=2');
    });
    assert.ok(existsSync(join(taskDir, '.checkpoint')) && existsSync(join(taskDir, 'counts', 'data.mdb')));

    // Garbage over the LMDB file, checkpoint intact: the store is wiped and restored from offset 0.
    writeFileSync(join(taskDir, 'counts', 'data.mdb'), Buffer.alloc(16_384, 0x5a));
    logs.length = 0;
    await run(async (s) => {
      assert.equal(s.store<string, bigint>('counts').get('a'), 2n);
      assert.equal(s.store<string, bigint>('counts').get('c'), 1n);
    });
    const warn = logs.find((l) => l.level === 'warn');
    assert.match(warn?.message ?? '', /^store 'counts' of task 1_0 had unreadable files: wiped, restoring it in full from cs-\d+-counts-changelog$/);
    // Record caching folds 'a' twice into one update when both land in one commit: 3 or 4 changelog records, all restored.
    const restoredLine = logs.find((l) => l.message.startsWith('restored'))?.message ?? '';
    assert.match(restoredLine, /^restored ([34]) changelog records into 1 store partition\(s\) in \d+ ms \(\d+ records\/s\): counts@1_0=\1$/);
    const changelogRecords = /counts@1_0=(\d+)$/.exec(restoredLine)?.[1];

    // An unreadable checkpoint: the task directory cannot be trusted, so it starts empty and restores in full.
    writeFileSync(join(taskDir, '.checkpoint'), '{not json');
    logs.length = 0;
    await run(async (s) => assert.equal(s.store<string, bigint>('counts').get('b'), 1n));
    assert.match(logs.find((l) => l.message.startsWith('restored'))?.message ?? '', new RegExp(`counts@1_0=${changelogRecords}$`));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

// startCluster's contract beyond kafkajs: other clients (@platformatic/kafka,
// kcat/librdkafka), both isolation modes, restarts keeping data, errors at
// start (bad config, bad options, port in use, timeout) leaving nothing
// behind, the package entry resolved from node_modules in another directory,
// and the exit hooks cleaning up after a caller that forgot stop().
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, ProduceAcks, Producer, stringSerializers } from '@platformatic/kafka';
import { ConfigError, EmbeddedError, EmbeddedErrorCode, startCluster, type EmbeddedCluster, type StartClusterOptions } from '../../../src/index.js';
import { repoRoot } from '../../helpers/broker-process.js';
import { kcatConsumeAll, kcatMetadata, kcatProduce, assertKcatProduceClean } from '../../helpers/kcat.js';
import { uniqueName } from '../../helpers/records.js';

const TEST_TIMEOUT_MS = 120_000;
/** The compiled tree this file runs from: dist/test/integration/embedded/x.js -> dist. */
const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function quietKafka(bootstrap: string): Kafka {
  return new Kafka({ clientId: 'embedded-lifecycle', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
}

async function produceWithKafkajs(bootstrap: string, topic: string, values: readonly string[]): Promise<void> {
  const kafka = quietKafka(bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: 1, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
}

/** Runs `body` with os.tmpdir() pointed at a private directory, and returns what it left there. */
async function leftInTmp(body: () => Promise<void>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-tmp-'));
  const saved = process.env['TMPDIR'];
  process.env['TMPDIR'] = dir;
  try {
    await body();
    return readdirSync(dir);
  } finally {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rejectsWith(options: StartClusterOptions, check: (err: unknown) => boolean): Promise<string[]> {
  return leftInTmp(async () => {
    await assert.rejects(startCluster(options), (err: unknown) => {
      assert.ok(check(err), `unexpected error: ${err instanceof Error ? `${err.name} ${String((err as { code?: unknown }).code)}: ${err.message}` : String(err)}`);
      return true;
    });
  });
}

/** Whether `pid` is gone within a second or two (SIGKILL is delivered asynchronously; init reaps the orphan). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

function isEmbedded(code: EmbeddedErrorCode): (err: unknown) => boolean {
  return (err) => err instanceof EmbeddedError && err.code === code;
}

describe('other clients against a worker-isolated cluster', { timeout: TEST_TIMEOUT_MS }, () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await startCluster({ config: { 'num.partitions': 2 } });
  });
  after(async () => {
    await cluster.stop();
  });

  test('@platformatic/kafka: metadata and produce', async () => {
    const topic = uniqueName('platformatic');
    const admin = new Admin({ clientId: 'embedded-platformatic', bootstrapBrokers: [cluster.bootstrap], retries: 2 });
    const producer = new Producer({ clientId: 'embedded-platformatic', bootstrapBrokers: [cluster.bootstrap], serializers: stringSerializers, autocreateTopics: false, retries: 2 });
    try {
      await admin.createTopics({ topics: [topic], partitions: 2, replicas: 1 });
      const md = await admin.metadata({ topics: [topic] });
      assert.deepEqual([...md.brokers.values()].map((b) => b.port), [cluster.brokers[0]?.port]);
      assert.equal(md.topics.get(topic)?.partitionsCount, 2);
      const result = await producer.send({ messages: [{ topic, key: 'k', value: 'v', partition: 1 }], acks: ProduceAcks.LEADER });
      assert.equal(result.offsets?.[0]?.offset, 0n);
    } finally {
      await producer.close();
      await admin.close();
    }
  });

  test('kcat (librdkafka): metadata, produce, consume', async () => {
    const topic = uniqueName('kcat');
    const md = await kcatMetadata(cluster.bootstrap);
    assert.deepEqual(md.brokers.map((b) => b.name), [cluster.bootstrap]);
    // kcat has no admin API: the broker auto-creates the topic (num.partitions=2 from config).
    assertKcatProduceClean(await kcatProduce(cluster.bootstrap, topic, ['a:1', 'b:2', 'c:3'], { partition: 0 }));
    const records = await kcatConsumeAll(cluster.bootstrap, topic);
    assert.deepEqual(records.map((r) => `${r.key}:${r.value}`), ['a:1', 'b:2', 'c:3']);
    assert.equal((await kcatMetadata(cluster.bootstrap, topic)).topics[0]?.partitions.length, 2);
  });
});

describe('isolation: process', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a child process; restart and hard restart keep the port and the data', async () => {
    const cluster = await startCluster({ isolation: 'process' });
    try {
      const firstPid = cluster.pid;
      assert.ok(typeof firstPid === 'number' && firstPid !== process.pid);
      const topic = uniqueName('restart');
      await produceWithKafkajs(cluster.bootstrap, topic, ['one', 'two']);

      await cluster.restart();
      assert.notEqual(cluster.pid, firstPid);
      assert.throws(() => process.kill(firstPid, 0), 'the first child is gone');
      const secondPid = cluster.pid as number;
      await cluster.restart({ hard: true }); // SIGKILL: no flush, no checkpoints; acks=1 data is in the page cache
      assert.throws(() => process.kill(secondPid, 0), 'the second child is gone');

      const records = await kcatConsumeAll(cluster.bootstrap, topic);
      assert.deepEqual(records.map((r) => r.value), ['one', 'two']);
    } finally {
      await cluster.stop();
    }
    assert.equal(existsSync(cluster.dataDir), false);
    await assert.rejects(cluster.restart(), isEmbedded(EmbeddedErrorCode.STOPPED));
    await cluster.stop(); // idempotent
  });

  test('a hard restart of a worker is refused', async () => {
    const cluster = await startCluster();
    try {
      await assert.rejects(cluster.restart({ hard: true }), isEmbedded(EmbeddedErrorCode.UNSUPPORTED));
      await cluster.restart();
      assert.equal((await kcatMetadata(cluster.bootstrap)).brokers.length, 1);
    } finally {
      await cluster.stop();
    }
  });

  test('a given dataDir is used and kept; keepData keeps a temporary one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'embedded-given-'));
    try {
      const cluster = await startCluster({ dataDir: dir, isolation: 'process' });
      assert.equal(cluster.dataDir, dir);
      await cluster.stop();
      assert.ok(existsSync(join(dir, 'meta.properties')) || readdirSync(dir).length > 0, 'the broker wrote to the given dir');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const kept = await startCluster({ keepData: true });
    await kept.stop();
    assert.ok(existsSync(kept.dataDir));
    rmSync(kept.dataDir, { recursive: true, force: true });
  });
});

describe('errors at start leave nothing behind', { timeout: TEST_TIMEOUT_MS }, () => {
  for (const isolation of ['worker', 'process'] as const) {
    test(`a bad config rejects with the broker's ConfigError (${isolation})`, async () => {
      let message = '';
      const left = await rejectsWith({ isolation, config: { 'num.partitions': 'many', 'no.such.key': 'x' } }, (err) => {
        message = err instanceof Error ? err.message : '';
        return err instanceof ConfigError && err.code === 'ERR_TRIB_CONFIG_INVALID' && err.problems.length === 2;
      });
      assert.match(message, /num\.partitions: expected an integer/);
      assert.match(message, /no\.such\.key: unknown broker config key/);
      assert.deepEqual(left, []);
    });
  }

  test('bad options are refused before anything starts', async () => {
    assert.deepEqual(await rejectsWith({ brokers: 10 }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
    assert.deepEqual(await rejectsWith({ brokers: 3, controllers: 4 }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
    assert.deepEqual(await rejectsWith({ brokers: 3, controllers: 1 }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
    assert.deepEqual(await rejectsWith({ brokers: 3, config: { listeners: 'PLAINTEXT://127.0.0.1:0' } }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
    assert.deepEqual(await rejectsWith({ config: { 'log.dirs': '/tmp/x' } }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
    assert.deepEqual(await rejectsWith({ isolation: 'thread' as never }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
    assert.deepEqual(await rejectsWith({ startTimeoutMs: -1 }, isEmbedded(EmbeddedErrorCode.INVALID_OPTIONS)), []);
  });

  test('a port in use rejects with START_FAILED and the cause EADDRINUSE', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const left = await rejectsWith({ config: { listeners: `PLAINTEXT://127.0.0.1:${port}` } }, (err) => {
        return err instanceof EmbeddedError && err.code === EmbeddedErrorCode.START_FAILED && (err.cause as { code?: unknown }).code === 'EADDRINUSE';
      });
      assert.deepEqual(left, []);
    } finally {
      server.close();
    }
  });

  test('startTimeoutMs: a broker that is not ready in time is killed', async () => {
    assert.deepEqual(await rejectsWith({ isolation: 'process', startTimeoutMs: 1 }, isEmbedded(EmbeddedErrorCode.START_TIMEOUT)), []);
  });
});

describe('the package entry from node_modules, and a caller that forgets stop()', { timeout: TEST_TIMEOUT_MS }, () => {
  let project: string;
  before(() => {
    // A user's project: node_modules/tributary holds package.json and the built tree.
    project = mkdtempSync(join(tmpdir(), 'embedded-user-'));
    const pkg = join(project, 'node_modules', 'tributary');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(join(repoRoot, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(distRoot, join(pkg, 'dist'), 'dir');
  });
  after(() => {
    rmSync(project, { recursive: true, force: true });
  });

  for (const isolation of ['worker', 'process'] as const) {
    test(`import 'tributary' from another directory; exit without stop() (${isolation})`, async () => {
      const script = join(project, `forgetful-${isolation}.mjs`);
      writeFileSync(
        script,
        `import { startCluster } from 'tributary';
const cluster = await startCluster({ isolation: '${isolation}' });
console.log(JSON.stringify({ bootstrap: cluster.bootstrap, dataDir: cluster.dataDir, pid: cluster.pid }));
// no stop(): the process ends here, with the broker running
`,
      );
      const result = spawnSync(process.execPath, [script], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      assert.equal(result.status, 0, `the script exits by itself; stderr:\n${result.stderr}`);
      const started = JSON.parse(result.stdout.trim()) as { bootstrap: string; dataDir: string; pid: number | null };
      assert.match(started.bootstrap, /^127\.0\.0\.1:\d+$/);
      assert.equal(existsSync(started.dataDir), false, 'the exit hook removed the temporary data dir');
      if (started.pid !== null) assert.ok(await gone(started.pid), 'the exit hook killed the child');
    });
  }
});

test('every EmbeddedErrorCode is documented in src/embedded/README.md', () => {
  const readme = readFileSync(join(repoRoot, 'src', 'embedded', 'README.md'), 'utf8');
  for (const code of Object.values(EmbeddedErrorCode)) assert.ok(readme.includes(code), `${code} is documented`);
});

/**
 * The standalone worker end to end over a real broker: FileStreamSource
 * (short name) copies a file into a topic and FileStreamSink (Kafka class
 * name) copies the topic into another file; after a restart of the worker
 * both resume from their stored offsets (file offsets and group offsets),
 * so appended lines arrive once and nothing is lost.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../src/embedded/cluster.js';
import { startStandalone } from '../../../src/connect/index.js';

let cluster: EmbeddedCluster;
let dir: string;

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
  dir = mkdtempSync(join(tmpdir(), 'connect-standalone-'));
});
after(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : []);

test('file source to topic to file sink, resuming after a worker restart', async () => {
  const input = join(dir, 'in.txt');
  const output = join(dir, 'out.txt');
  const first = Array.from({ length: 200 }, (_, i) => `line ${i} é`);
  writeFileSync(input, first.join('\n') + '\n');
  const workerProps = {
    'bootstrap.servers': cluster.bootstrap,
    listeners: 'http://127.0.0.1:0',
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'offset.flush.interval.ms': '200',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  };
  const connectors = [
    { name: 'src', 'connector.class': 'FileStreamSource', file: input, topic: 'file-lines', 'batch.size': '50' },
    { name: 'snk', 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', file: output, topics: 'file-lines' },
  ];
  let worker = await startStandalone(workerProps, connectors);
  try {
    await waitFor('the first 200 lines in the sink file', () => lines(output).length >= 200);
    assert.deepEqual(lines(output), first);
    const status = (await (await fetch(`${worker.url}/connectors/src/status`)).json()) as { connector: { state: string }; tasks: { state: string }[] };
    assert.equal(status.connector.state, 'RUNNING');
    assert.equal(status.tasks[0]?.state, 'RUNNING');
  } finally {
    await worker.close();
  }
  const offsets = JSON.parse(readFileSync(join(dir, 'offsets.json'), 'utf8')) as Record<string, { position: number }>;
  assert.deepEqual(Object.values(offsets), [{ position: Buffer.byteLength(first.join('\n') + '\n') }], 'the stored offset is the end of the file');

  const more = Array.from({ length: 50 }, (_, i) => `more ${i}`);
  appendFileSync(input, more.join('\n') + '\n');
  worker = await startStandalone(workerProps, connectors);
  try {
    await waitFor('the appended lines in the sink file', () => lines(output).length >= 250);
    // A clean stop flushed both offsets: nothing is read twice and nothing is lost.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(lines(output), [...first, ...more]);
  } finally {
    await worker.close();
  }
});

test('the worker producer honours producer.* settings (producer.compression.type=gzip writes gzip batches)', async () => {
  const input = join(dir, 'gz-in.txt');
  writeFileSync(input, Array.from({ length: 100 }, (_, i) => `gz ${i}`).join('\n') + '\n');
  const worker = await startStandalone(
    {
      'bootstrap.servers': cluster.bootstrap,
      listeners: 'http://127.0.0.1:0',
      'offset.storage.file.filename': join(dir, 'gz-offsets.json'),
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'producer.compression.type': 'gzip',
      'producer.linger.ms': '50',
    },
    [{ name: 'gz-src', 'connector.class': 'FileStreamSource', file: input, topic: 'gz-lines' }],
  );
  const segment = join(cluster.dataDir, 'gz-lines-0', '00000000000000000000.log');
  try {
    await waitFor('a batch in the topic', () => existsSync(segment) && readFileSync(segment).length > 61);
  } finally {
    await worker.close();
  }
  // Record batch v2 header: baseOffset 8, batchLength 4, partitionLeaderEpoch 4, magic 1, crc 4, then attributes (int16); codec in the low 3 bits.
  const attributes = readFileSync(segment).readInt16BE(21);
  assert.equal(attributes & 0x07, 1, 'the first batch is gzip-compressed');
});

// SIGTERM is a graceful shutdown: the broker stops accepting, answers what is
// in flight, flushes and checkpoints every log, marks a clean shutdown, and
// exits 0. After the restart every record is there and recovery had nothing
// to scan (the checkpoints covered the whole log).
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { assertKcatProduceClean, kcatConsumeAll, kcatProduce } from '../../helpers/kcat.js';
import { createTopicsRaw } from '../../helpers/raw-kafka.js';
import { uniqueName } from '../../helpers/records.js';

let broker: BrokerProcess | undefined;
after(async () => {
  await broker?.cleanup();
});

it('SIGTERM flushes, checkpoints, exits 0, and a restart finds every record', async () => {
  broker = await startBroker({ name: 'graceful' });
  const topic = uniqueName('graceful');
  await createTopicsRaw(broker.port, [{ name: topic, partitions: 2 }]);
  const lines = Array.from({ length: 2000 }, (_, i) => `k${i % 7}:value-${i}`);
  assertKcatProduceClean(await kcatProduce(broker.bootstrap, topic, lines, { compression: 'gzip' }));

  const stopped = await broker.stop();
  assert.equal(stopped.code, 0, 'exit code 0 after SIGTERM');
  assert.equal(stopped.killed, false, 'stopped on its own, within the timeout');
  assert.ok(existsSync(join(broker.dataDir, '.clean-shutdown')), 'clean shutdown marker written');
  const checkpoint = readFileSync(join(broker.dataDir, 'recovery-point-offset-checkpoint'), 'utf8');
  const points = new Map(
    checkpoint
      .trim()
      .split('\n')
      .slice(2)
      .map((l) => l.split(' '))
      .map(([t, p, o]) => [`${t}-${p}`, BigInt(o ?? '-1')]),
  );
  const total = (points.get(`${topic}-0`) ?? 0n) + (points.get(`${topic}-1`) ?? 0n);
  assert.equal(total, 2000n, 'recovery points cover every record (all flushed)');

  await broker.restart();
  const consumed = await kcatConsumeAll(broker.bootstrap, topic);
  assert.equal(consumed.length, 2000);
  assert.deepEqual(new Set(consumed.map((r) => r.value)), new Set(lines.map((l) => l.slice(l.indexOf(':') + 1))));
});

/**
 * SourceTaskRunner's pipelining rules, with a producer whose acknowledgements
 * the test releases by hand (the runner only calls send and sendBatch; the
 * real producer is covered by the Connect integration tests): polling goes
 * on while earlier polls wait for their acks; a source offset is committed
 * only once every record polled before it is acknowledged, whatever order
 * the acks come in; a failed send fails the task and no offset polled after
 * it is ever committed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SourceTaskRunner } from '../../../../src/connect/runtime/source-task-runner.js';
import { FileOffsetStore } from '../../../../src/connect/runtime/offset-store.js';
import { RetryWithTolerance, errorPolicy } from '../../../../src/connect/runtime/error-handling.js';
import { ConnectMetrics } from '../../../../src/connect/runtime/metrics.js';
import { TaskLifecycle } from '../../../../src/connect/runtime/task-state.js';
import { TransformationChain } from '../../../../src/connect/transforms/index.js';
import { StringConverter } from '../../../../src/connect/converters/index.js';
import { sourceRecord, type SourceRecord, type SourceTask } from '../../../../src/connect/spi.js';
import type { Producer } from '../../../../src/client/index.js';

interface Pending {
  readonly value: string;
  resolve(): void;
  reject(err: Error): void;
}

/** A producer whose sends stay unanswered until the test settles them. */
class HeldProducer {
  readonly sent: Pending[] = [];
  sendBatch(records: { value: Buffer | null }[]): Promise<void> {
    return Promise.all(records.map((r) => this.hold(r.value?.toString() ?? ''))).then(() => undefined);
  }
  send(record: { value: Buffer | null }): Promise<{ topic: string; partition: number; offset: bigint }> {
    return this.hold(record.value?.toString() ?? '').then(() => ({ topic: 't', partition: 0, offset: 0n }));
  }
  private hold(value: string): Promise<void> {
    return new Promise((resolve, reject) => this.sent.push({ value, resolve, reject }));
  }
  settle(value: string, err?: Error): void {
    const p = this.sent.find((s) => s.value === value);
    assert.ok(p !== undefined, `${value} was sent`);
    if (err === undefined) p.resolve();
    else p.reject(err);
  }
}

/** A task that polls one record per call, with offset n for record n, up to `count`. */
function countingTask(count: number): SourceTask & { polls: number } {
  const task = {
    polls: 0,
    version: () => 'test',
    start: () => undefined,
    poll: async (): Promise<SourceRecord[] | null> => {
      await new Promise((r) => setTimeout(r, 1));
      if (task.polls >= count) return null;
      const n = task.polls++;
      return [sourceRecord({ topic: 't', sourcePartition: { file: 'f' }, sourceOffset: { n }, value: `r${n}` })];
    },
    stop: () => undefined,
  };
  return task;
}

function runner(task: SourceTask, producer: HeldProducer, offsets: FileOffsetStore, lifecycle: TaskLifecycle): SourceTaskRunner {
  const string = new StringConverter();
  string.configure({}, false);
  return new SourceTaskRunner({
    connector: 'c',
    taskId: 0,
    task,
    props: {},
    converters: { key: string, value: string },
    chain: TransformationChain.fromConfig({}),
    producer: producer as unknown as Producer<Buffer | null, Buffer | null>,
    offsets,
    errors: new RetryWithTolerance(errorPolicy({}), () => undefined, () => false),
    metrics: new ConnectMetrics(),
    lifecycle,
    flushIntervalMs: 0,
    activeTopics: new Set<string>(),
  });
}

const until = async (what: string, check: () => boolean): Promise<void> => {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what} within 5 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('polls go on while acks are outstanding; offsets are committed in poll order only', async () => {
  const producer = new HeldProducer();
  const offsets = new FileOffsetStore(null);
  const task = countingTask(3);
  const r = runner(task, producer, offsets, new TaskLifecycle());
  r.start();
  try {
    await until('three polls sent before any ack', () => producer.sent.length === 3);
    producer.settle('r1');
    producer.settle('r2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(offsets.get('c', { file: 'f' }), null, 'r0 is not acknowledged: no offset after it is committed');
    producer.settle('r0');
    await until('the offset of r2 committed', () => JSON.stringify(offsets.get('c', { file: 'f' })) === JSON.stringify({ n: 2 }));
  } finally {
    await r.stop();
  }
});

test('a failed send fails the task; offsets polled after it are never committed', async () => {
  const producer = new HeldProducer();
  const offsets = new FileOffsetStore(null);
  const lifecycle = new TaskLifecycle();
  const r = runner(countingTask(3), producer, offsets, lifecycle);
  r.start();
  await until('three polls sent', () => producer.sent.length === 3);
  producer.settle('r0');
  producer.settle('r2');
  producer.settle('r1', new Error('record too large'));
  await until('the task failed', () => lifecycle.state === 'FAILED');
  await r.stop();
  assert.deepEqual(offsets.get('c', { file: 'f' }), { n: 0 }, 'only the offset before the failed record');
});

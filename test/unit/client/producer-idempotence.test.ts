// The idempotent Producer against a scripted fake broker that keeps Kafka's
// per-partition producer state (last sequence and the last 5 batches per
// producer id, epoch checks) and can drop answers, close connections, forget
// producers or answer chosen errors; plus the pure rules of
// producer-idempotence.ts (sequence wrap, config conflicts, error verdicts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/client/cluster.js';
import { ClientErrorCode, ClientConfigError, KafkaProtocolError, TributaryClientError } from '../../../src/net/errors.js';
import { Producer, Serializers, type ProducerOptions } from '../../../src/client/producer.js';
import type { RecordAccumulator } from '../../../src/client/producer-accumulator.js';
import {
  PRODUCER_EPOCH_MAX,
  ProducerIdentity,
  SEQUENCE_MAX,
  incrementSequence,
  resolveIdempotence,
  restampBatch,
  sequenceVerdict,
} from '../../../src/client/producer-idempotence.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { decodeRecordBatchSync } from '../../../src/protocol/record-batch/reader.js';
import { FAKE_API_VERSIONS, FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

// ------------------------------------------------------------------ pure rules

test('sequences wrap from Int32 max to 0, as Kafka incrementSequence', () => {
  assert.equal(incrementSequence(0, 5), 5);
  assert.equal(incrementSequence(SEQUENCE_MAX - 5, 5), SEQUENCE_MAX);
  assert.equal(incrementSequence(SEQUENCE_MAX, 1), 0);
  assert.equal(incrementSequence(SEQUENCE_MAX - 1, 3), 1);
  assert.equal(incrementSequence(SEQUENCE_MAX - 2, 10), 7);
});

test('config conflicts: the default gives way, an explicit idempotent: true throws (KIP-679)', () => {
  assert.deepEqual(resolveIdempotence({ acks: -1, retries: 5 }), { idempotent: true, explicit: false, maxInFlight: 5 });
  assert.deepEqual(resolveIdempotence({ acks: 1, retries: 5 }), { idempotent: false, explicit: false, maxInFlight: 5 });
  assert.deepEqual(resolveIdempotence({ acks: 0, retries: 5 }), { idempotent: false, explicit: false, maxInFlight: 5 });
  assert.deepEqual(resolveIdempotence({ acks: -1, retries: 0 }), { idempotent: false, explicit: false, maxInFlight: 5 });
  assert.deepEqual(resolveIdempotence({ acks: -1, retries: 5, maxInFlight: 6 }), { idempotent: false, explicit: false, maxInFlight: 6 });
  assert.deepEqual(resolveIdempotence({ acks: -1, retries: 5, maxInFlight: 3 }), { idempotent: true, explicit: false, maxInFlight: 3 });
  assert.deepEqual(resolveIdempotence({ idempotent: false, acks: -1, retries: 5 }), { idempotent: false, explicit: true, maxInFlight: 5 });
  assert.deepEqual(resolveIdempotence({ idempotent: true, acks: -1, retries: 1, maxInFlight: 5 }), { idempotent: true, explicit: true, maxInFlight: 5 });
  const isConfigError = (e: unknown) => e instanceof ClientConfigError && e.code === ClientErrorCode.INVALID_CONFIG;
  assert.throws(() => resolveIdempotence({ idempotent: true, acks: 1, retries: 5 }), isConfigError);
  assert.throws(() => resolveIdempotence({ idempotent: true, acks: 0, retries: 5 }), isConfigError);
  assert.throws(() => resolveIdempotence({ idempotent: true, acks: -1, retries: 0 }), isConfigError);
  assert.throws(() => resolveIdempotence({ idempotent: true, acks: -1, retries: 5, maxInFlight: 6 }), isConfigError);
  assert.throws(() => resolveIdempotence({ acks: -1, retries: 5, maxInFlight: 0 }), (e: TributaryClientError) => e.code === ClientErrorCode.INVALID_ARGUMENT);
});

test('Producer.connect applies the config rules', async (t) => {
  const fake = await idempotentFake();
  t.after(() => fake.stop());
  const cluster = fake.cluster;
  await assert.rejects(Producer.connect({ cluster, idempotent: true, acks: 1 }), (e: TributaryClientError) => e.code === ClientErrorCode.INVALID_CONFIG);
  const byDefault = await Producer.connect({ cluster });
  assert.equal(byDefault.isIdempotent, true);
  await byDefault.close();
  const acks1 = await Producer.connect({ cluster, acks: 1 });
  assert.equal(acks1.isIdempotent, false);
  await acks1.close();
  const off = await Producer.connect({ cluster, idempotent: false });
  assert.equal(off.isIdempotent, false);
  await off.close();
});

test('error verdicts: duplicates succeed, gaps wait or bump, fencing is fatal', () => {
  const E = ErrorCode;
  assert.equal(sequenceVerdict(E.DUPLICATE_SEQUENCE_NUMBER, false, true), 'duplicate');
  assert.equal(sequenceVerdict(E.OUT_OF_ORDER_SEQUENCE_NUMBER, false, false), 'wait');
  assert.equal(sequenceVerdict(E.OUT_OF_ORDER_SEQUENCE_NUMBER, true, true), 'wait');
  assert.equal(sequenceVerdict(E.OUT_OF_ORDER_SEQUENCE_NUMBER, false, true), 'bump');
  assert.equal(sequenceVerdict(E.UNKNOWN_PRODUCER_ID, false, true), 'bump');
  assert.equal(sequenceVerdict(E.UNKNOWN_PRODUCER_ID, false, false), 'wait');
  assert.equal(sequenceVerdict(E.UNKNOWN_PRODUCER_ID, true, true), 'wait');
  assert.equal(sequenceVerdict(E.INVALID_PRODUCER_EPOCH, false, true), 'fenced');
  assert.equal(sequenceVerdict(E.PRODUCER_FENCED, false, true), 'fenced');
  assert.equal(sequenceVerdict(E.INVALID_PRODUCER_EPOCH, true, true), 'wait');
  assert.equal(sequenceVerdict(E.NOT_LEADER_OR_FOLLOWER, false, true), 'other');
});

test('InitProducerId bodies: v3+ carries the current id and epoch to bump it; v0-v2 and epoch max ask for a new id', () => {
  const id = new ProducerIdentity();
  assert.deepEqual(id.requestBody(4), { transactionalId: null, transactionTimeoutMs: 0x7fffffff, producerId: -1n, producerEpoch: -1 });
  id.assign(7n, 3);
  assert.equal(id.ready, true);
  assert.deepEqual(id.requestBody(3), { transactionalId: null, transactionTimeoutMs: 0x7fffffff, producerId: 7n, producerEpoch: 3 });
  assert.deepEqual(id.requestBody(2), { transactionalId: null, transactionTimeoutMs: 0x7fffffff, producerId: -1n, producerEpoch: -1 });
  id.assign(7n, PRODUCER_EPOCH_MAX);
  assert.equal(id.requestBody(4).producerId, -1n);
  id.bumpRequested = true;
  assert.equal(id.ready, false);
  assert.equal(id.isStale(7n, PRODUCER_EPOCH_MAX), false);
  assert.equal(id.isStale(7n, 1), true);
});

test('restampBatch rewrites id, epoch and sequence and keeps the CRC valid', () => {
  const batch = buildRecordBatchSync({ records: [{ value: 'a' }, { value: 'b' }], producerId: 1n, producerEpoch: 0, baseSequence: 10, timestampMs: 1 });
  restampBatch(batch, 99n, 4, 0);
  const { header, records } = decodeRecordBatchSync(batch);
  assert.equal(header.producerId, 99n);
  assert.equal(header.producerEpoch, 4);
  assert.equal(header.baseSequence, 0);
  assert.deepEqual(records.map((r) => String(r.value)), ['a', 'b']);
});

// ------------------------------------------------------------ scripted broker

const IDEMPOTENT_API_VERSIONS = [...FAKE_API_VERSIONS, { apiKey: 22, minVersion: 0, maxVersion: 4 }];

interface Entry {
  epoch: number;
  lastSeq: number;
  /** The last 5 batches: first/last sequence and base offset. */
  recent: { first: number; last: number; offset: bigint }[];
}

interface SeenBatch {
  partition: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  values: string[];
  errorCode: number;
}

/** What to do with one produce request (n counts produce requests from 0). */
type Fault = 'none' | 'drop-answer' | 'close-first';
type ErrorHook = (partition: number, batch: { producerId: bigint; producerEpoch: number; baseSequence: number }, attempt: number) => number;

interface FakeOptions {
  partitions?: number;
  apiVersions?: typeof FAKE_API_VERSIONS;
  fault?: (n: number) => Fault;
  error?: ErrorHook;
  /** Check sequences as Kafka does (default true). */
  checkSequences?: boolean;
  /** Delay of every produce answer, ms. */
  delayMs?: number;
  /** Epoch to hand out on the first InitProducerId. */
  firstEpoch?: number;
}

async function idempotentFake(options: FakeOptions = {}) {
  const partitions = options.partitions ?? 1;
  const logs = new Map<number, string[]>();
  const states = new Map<number, Map<bigint, Entry>>();
  const seen: SeenBatch[] = [];
  const inits: { version: number; producerId: bigint; producerEpoch: number }[] = [];
  const producers = new Map<bigint, number>();
  let nextProducerId = 1000n;
  let produceRequests = 0;
  const attempts = new Map<string, number>();
  let unanswered = 0;
  let maxUnanswered = 0;

  const append = (partition: number, b: { producerId: bigint; producerEpoch: number; baseSequence: number }, values: string[]): { errorCode: number; baseOffset: bigint } => {
    const log = logs.get(partition) ?? [];
    logs.set(partition, log);
    const byProducer = states.get(partition) ?? new Map<bigint, Entry>();
    states.set(partition, byProducer);
    const last = incrementSequence(b.baseSequence, values.length - 1);
    const entry = byProducer.get(b.producerId);
    if (options.checkSequences !== false && b.producerId >= 0n) {
      if (entry === undefined) {
        if (b.baseSequence !== 0) return { errorCode: ErrorCode.UNKNOWN_PRODUCER_ID, baseOffset: -1n };
      } else if (b.producerEpoch < entry.epoch) {
        return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, baseOffset: -1n };
      } else if (b.producerEpoch > entry.epoch) {
        if (b.baseSequence !== 0) return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1n };
      } else {
        const dup = entry.recent.find((r) => r.first === b.baseSequence && r.last === last);
        if (dup !== undefined) return { errorCode: 0, baseOffset: dup.offset };
        if (b.baseSequence !== incrementSequence(entry.lastSeq, 1)) return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1n };
      }
    }
    const offset = BigInt(log.length);
    log.push(...values);
    const next: Entry = entry !== undefined && entry.epoch === b.producerEpoch ? entry : { epoch: b.producerEpoch, lastSeq: -1, recent: [] };
    next.lastSeq = last;
    next.recent.push({ first: b.baseSequence, last, offset });
    if (next.recent.length > 5) next.recent.shift();
    byProducer.set(b.producerId, next);
    return { errorCode: 0, baseOffset: offset };
  };

  const produce = (req: FakeRequest): FakeReply => {
    const n = produceRequests++;
    const fault = options.fault?.(n) ?? 'none';
    if (fault === 'close-first') return { close: true };
    const topicData = req.body.topicData as { name: string; partitionData: { index: number; records: Buffer }[] }[];
    const responses = topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => {
        const { header, records } = decodeRecordBatchSync(p.records);
        const values = records.map((r) => String(r.value));
        const b = { producerId: header.producerId, producerEpoch: header.producerEpoch, baseSequence: header.baseSequence };
        const key = `${p.index}/${b.baseSequence}/${b.producerEpoch}`;
        const attempt = attempts.get(key) ?? 0;
        attempts.set(key, attempt + 1);
        const injected = options.error?.(p.index, b, attempt) ?? 0;
        const result = injected !== 0 ? { errorCode: injected, baseOffset: -1n } : append(p.index, b, values);
        seen.push({ partition: p.index, ...b, values, errorCode: result.errorCode });
        return { index: p.index, errorCode: result.errorCode, baseOffset: result.baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n };
      }),
    }));
    if (fault === 'drop-answer') return { close: true };
    return { body: { responses, throttleTimeMs: 0 } };
  };

  const initProducerId = (req: FakeRequest): FakeReply => {
    const body = req.body as { producerId?: bigint; producerEpoch?: number };
    const producerId = body.producerId ?? -1n;
    const producerEpoch = body.producerEpoch ?? -1;
    inits.push({ version: req.apiVersion, producerId, producerEpoch });
    if (producerId >= 0n) {
      const current = producers.get(producerId);
      if (current !== producerEpoch) return { body: { throttleTimeMs: 0, errorCode: ErrorCode.PRODUCER_FENCED, producerId: -1n, producerEpoch: -1 } };
      producers.set(producerId, producerEpoch + 1);
      return { body: { throttleTimeMs: 0, errorCode: 0, producerId, producerEpoch: producerEpoch + 1 } };
    }
    const id = nextProducerId++;
    const epoch = options.firstEpoch ?? 0;
    producers.set(id, epoch);
    return { body: { throttleTimeMs: 0, errorCode: 0, producerId: id, producerEpoch: epoch } };
  };

  const metadata = (req: FakeRequest, b: FakeBroker): FakeReply => ({
    body: {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: b.port, rack: null }],
      clusterId: 'fake',
      controllerId: 1,
      topics: ((req.body.topics as { name: string }[] | null) ?? [{ name: 't' }]).map(({ name }) => ({
        errorCode: 0,
        name,
        isInternal: false,
        partitions: Array.from({ length: partitions }, (_, i) => ({
          errorCode: 0,
          partitionIndex: i,
          leaderId: 1,
          leaderEpoch: 0,
          replicaNodes: [1],
          isrNodes: [1],
          offlineReplicas: [],
        })),
      })),
    },
  });

  const broker = await FakeBroker.start(
    withApiVersions(async (req, b) => {
      if (req.apiKey === 3) return metadata(req, b);
      if (req.apiKey === 22) return initProducerId(req);
      if (req.apiKey !== 0) return { none: true };
      unanswered++;
      maxUnanswered = Math.max(maxUnanswered, unanswered);
      try {
        if (options.delayMs !== undefined) await new Promise((r) => setTimeout(r, options.delayMs));
        return produce(req);
      } finally {
        unanswered--;
      }
    }, options.apiVersions ?? IDEMPOTENT_API_VERSIONS),
  );
  const cluster = await Cluster.connect({ bootstrap: `127.0.0.1:${broker.port}` });
  return {
    broker,
    cluster,
    logs,
    seen,
    inits,
    /** The broker forgets every producer (as after its producer state expired). */
    forgetProducers: () => states.clear(),
    get maxUnanswered() {
      return maxUnanswered;
    },
    async stop() {
      await cluster.close();
      await broker.stop();
    },
  };
}

type Fake = Awaited<ReturnType<typeof idempotentFake>>;

async function producer(fake: Fake, options: Omit<ProducerOptions<string | null, string>, 'cluster'> = {}) {
  return Producer.connect<string | null, string>({ cluster: fake.cluster, keySerializer: Serializers.string, valueSerializer: Serializers.string, ...options });
}

const values = (from: number, count: number, tag = 'v'): string[] => Array.from({ length: count }, (_, i) => `${tag}${from + i}`);

test('InitProducerId comes before the first produce; id, epoch and sequences are in every batch header', async (t) => {
  const fake = await idempotentFake({ partitions: 2 });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0 });
  assert.equal(p.isIdempotent, true);
  assert.equal(p.producerIdAndEpoch, null);
  for (let round = 0; round < 3; round++) {
    await p.sendBatch(values(round * 4, 4).map((value, i) => ({ topic: 't', partition: i % 2, value })));
  }
  assert.deepEqual(fake.inits, [{ version: 4, producerId: -1n, producerEpoch: -1 }]);
  assert.deepEqual(p.producerIdAndEpoch, { producerId: 1000n, producerEpoch: 0 });
  for (const partition of [0, 1]) {
    const batches = fake.seen.filter((b) => b.partition === partition);
    assert.deepEqual(batches.map((b) => b.baseSequence), [0, 2, 4], 'each batch starts where the previous ended');
    for (const b of batches) assert.deepEqual([b.producerId, b.producerEpoch, b.errorCode], [1000n, 0, 0]);
  }
  assert.deepEqual(fake.logs.get(0), ['v0', 'v2', 'v4', 'v6', 'v8', 'v10']);
  await p.close();
});

test('the highest common InitProducerId version is used (v2 here: a bump asks for a new id)', async (t) => {
  const apiVersions = [...FAKE_API_VERSIONS, { apiKey: 22, minVersion: 0, maxVersion: 2 }];
  const fake = await idempotentFake({ apiVersions });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, retryBackoffMs: 1 });
  await p.send({ topic: 't', value: 'a' });
  fake.forgetProducers();
  await p.send({ topic: 't', value: 'b' });
  assert.deepEqual(fake.inits, [
    { version: 2, producerId: -1n, producerEpoch: -1 },
    { version: 2, producerId: -1n, producerEpoch: -1 },
  ]);
  assert.deepEqual(p.producerIdAndEpoch, { producerId: 1001n, producerEpoch: 0 });
  assert.deepEqual(fake.logs.get(0), ['a', 'b']);
  await p.close();
});

test('a batch keeps its sequence across retries and wraps after Int32 max', async (t) => {
  const fake = await idempotentFake({ checkSequences: false, error: (_p, b, attempt) => (b.baseSequence === 0 && attempt === 0 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : 0) });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, retryBackoffMs: 1 });
  await p.sendBatch(values(0, 3).map((value) => ({ topic: 't', value })));
  // Move the partition's next sequence close to the end of the range.
  const accumulator = (p as unknown as { accumulator: RecordAccumulator }).accumulator;
  accumulator.queue('t', 0).nextSequence = SEQUENCE_MAX - 1;
  await p.sendBatch(values(3, 3).map((value) => ({ topic: 't', value })));
  await p.sendBatch(values(6, 2).map((value) => ({ topic: 't', value })));
  assert.deepEqual(
    fake.seen.map((b) => [b.baseSequence, b.errorCode]),
    [
      [0, ErrorCode.NOT_LEADER_OR_FOLLOWER],
      [0, 0],
      [SEQUENCE_MAX - 1, 0],
      [1, 0],
    ],
  );
  await p.close();
});

test('an answer lost with the connection: the retry is a duplicate, answered with the original offset; nothing is written twice', async (t) => {
  // Every third produce request is appended, then the connection is cut before the answer.
  const fake = await idempotentFake({ partitions: 2, fault: (n) => (n % 3 === 1 ? 'drop-answer' : 'none') });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 1, batchSize: 300, retryBackoffMs: 1, retries: 20 });
  const sends = [];
  for (let i = 0; i < 200; i++) sends.push(p.send({ topic: 't', partition: i % 2, value: `r${i}` }));
  const results = await Promise.all(sends);
  for (const partition of [0, 1]) {
    const expected = Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 2 === partition).map((i) => `r${i}`);
    assert.deepEqual(fake.logs.get(partition), expected, `partition ${partition}: every record once, in order`);
  }
  results.forEach((r, i) => assert.equal(fake.logs.get(r.partition)?.[Number(r.offset)], `r${i}`, 'offsets point at the records'));
  const sent = new Set<string>();
  let resent = 0;
  for (const b of fake.seen) {
    const key = `${b.partition}/${b.producerEpoch}/${b.baseSequence}`;
    if (sent.has(key)) resent++;
    sent.add(key);
  }
  assert.ok(resent > 0, 'some batches were sent again after a lost answer');
  await p.close();
});

test('DUPLICATE_SEQUENCE_NUMBER (older brokers) completes the batch as a success', async (t) => {
  const fake = await idempotentFake({ error: (_p, _b, attempt) => (attempt === 0 ? ErrorCode.DUPLICATE_SEQUENCE_NUMBER : 0) });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0 });
  const r = await p.send({ topic: 't', value: 'x' });
  assert.equal(r.offset, -1n, 'the broker gave no offset');
  assert.equal(fake.seen.length, 1, 'not resent');
  await p.close();
});

test('up to 5 batches in flight per partition, in order', async (t) => {
  const fake = await idempotentFake({ delayMs: 20 });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, batchSize: 200 });
  const sends = [];
  for (let i = 0; i < 100; i++) sends.push(p.send({ topic: 't', value: `m${String(i).padStart(60, '0')}` }));
  await Promise.all(sends);
  assert.ok(fake.maxUnanswered > 1 && fake.maxUnanswered <= 5, `max in flight ${fake.maxUnanswered}`);
  assert.deepEqual(fake.logs.get(0), Array.from({ length: 100 }, (_, i) => `m${String(i).padStart(60, '0')}`));
  assert.ok(fake.seen.every((b) => b.errorCode === 0), 'no sequence error');
  await p.close();
});

test('the broker forgot the producer: UNKNOWN_PRODUCER_ID bumps the epoch (InitProducerId v3+ with the current id) and renumbers from 0', async (t) => {
  const fake = await idempotentFake({ partitions: 2 });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, retryBackoffMs: 1 });
  await p.sendBatch([...values(0, 3).map((value) => ({ topic: 't', partition: 0, value })), { topic: 't', partition: 1, value: 'p1-a' }]);
  fake.forgetProducers();
  await p.sendBatch(values(3, 2).map((value) => ({ topic: 't', partition: 0, value })));
  await p.send({ topic: 't', partition: 1, value: 'p1-b' });
  assert.deepEqual(fake.inits, [
    { version: 4, producerId: -1n, producerEpoch: -1 },
    { version: 4, producerId: 1000n, producerEpoch: 0 },
  ]);
  assert.deepEqual(p.producerIdAndEpoch, { producerId: 1000n, producerEpoch: 1 });
  const p0 = fake.seen.filter((b) => b.partition === 0).map((b) => [b.producerEpoch, b.baseSequence, b.errorCode]);
  assert.deepEqual(p0, [
    [0, 0, 0],
    [0, 3, ErrorCode.UNKNOWN_PRODUCER_ID],
    [1, 0, 0],
  ]);
  // Partition 1 moves to the new epoch on its next batch, from sequence 0.
  const p1 = fake.seen.filter((b) => b.partition === 1).map((b) => [b.producerEpoch, b.baseSequence, b.errorCode]);
  assert.deepEqual(p1, [
    [0, 0, 0],
    [1, 0, 0],
  ]);
  assert.deepEqual(fake.logs.get(0), values(0, 5));
  assert.deepEqual(fake.logs.get(1), ['p1-a', 'p1-b']);
  await p.close();
});

test('a batch that fails for good leaves a gap: the epoch is bumped before the next batch of its partition', async (t) => {
  // The batch with 'bad' is refused (MESSAGE_TOO_LARGE, not retriable); the broker never sees its sequence.
  const fake = await idempotentFake({ error: (_p, b) => (b.baseSequence === 1 && b.producerEpoch === 0 ? ErrorCode.MESSAGE_TOO_LARGE : 0) });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0 });
  await p.send({ topic: 't', value: 'a' });
  await assert.rejects(p.send({ topic: 't', value: 'bad' }), (e: KafkaProtocolError) => e.errorName === 'MESSAGE_TOO_LARGE');
  await p.send({ topic: 't', value: 'c' });
  assert.deepEqual(
    fake.seen.map((b) => [b.producerEpoch, b.baseSequence, b.errorCode]),
    [
      [0, 0, 0],
      [0, 1, ErrorCode.MESSAGE_TOO_LARGE],
      [1, 0, 0],
    ],
  );
  assert.deepEqual(fake.logs.get(0), ['a', 'c']);
  await p.close();
});

test('out-of-order answers behind a failed batch wait for it; nothing is reordered', async (t) => {
  // The first attempt of sequence 1 gets NOT_LEADER_OR_FOLLOWER; the batches pipelined behind it get OUT_OF_ORDER_SEQUENCE_NUMBER.
  // (Sequence 0 goes alone until acknowledged: a broker without the producer's state takes any first sequence.)
  const fake = await idempotentFake({ delayMs: 5, error: (_p, b, attempt) => (b.baseSequence === 1 && attempt === 0 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : 0) });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, batchSize: 150, retryBackoffMs: 1 });
  await p.send({ topic: 't', value: 'first' });
  const sends = [];
  for (let i = 0; i < 40; i++) sends.push(p.send({ topic: 't', value: `o${String(i).padStart(50, '0')}` }));
  await Promise.all(sends);
  assert.deepEqual(fake.logs.get(0), ['first', ...Array.from({ length: 40 }, (_, i) => `o${String(i).padStart(50, '0')}`)]);
  const gapErrors = new Set<number>([ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, ErrorCode.UNKNOWN_PRODUCER_ID]);
  assert.ok(fake.seen.some((b) => gapErrors.has(b.errorCode)), 'pipelined batches hit the gap');
  assert.equal(fake.inits.length, 1, 'no bump for a gap an earlier retry fills');
  await p.close();
});

test('INVALID_PRODUCER_EPOCH for the current epoch fences the producer: pending and later sends fail with ERR_TRIB_PRODUCER_FENCED', async (t) => {
  const fake = await idempotentFake({ error: (_p, b) => (b.baseSequence >= 1 ? ErrorCode.INVALID_PRODUCER_EPOCH : 0) });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0 });
  await p.send({ topic: 't', value: 'a' });
  const fenced = (e: TributaryClientError) => e.code === ClientErrorCode.PRODUCER_FENCED && e.name === 'ProducerFencedError';
  await assert.rejects(p.send({ topic: 't', value: 'b' }), fenced);
  await assert.rejects(p.send({ topic: 't', value: 'c' }), fenced);
  await p.close();
  assert.deepEqual(fake.logs.get(0), ['a']);
});

test('a broker without InitProducerId: the default turns idempotence off, an explicit one fails sends', async (t) => {
  const fake = await idempotentFake({ apiVersions: FAKE_API_VERSIONS });
  t.after(() => fake.stop());
  const byDefault = await producer(fake, { lingerMs: 0 });
  assert.equal((await byDefault.send({ topic: 't', value: 'a' })).offset, 0n);
  assert.equal(byDefault.isIdempotent, false);
  assert.deepEqual([fake.seen[0]?.producerId, fake.seen[0]?.baseSequence], [-1n, -1]);
  await byDefault.close();
  const explicit = await producer(fake, { lingerMs: 0, idempotent: true });
  await assert.rejects(explicit.send({ topic: 't', value: 'b' }), (e: TributaryClientError) => e.code === ClientErrorCode.UNSUPPORTED_VERSION);
  await assert.rejects(explicit.send({ topic: 't', value: 'c' }), (e: TributaryClientError) => e.code === ClientErrorCode.UNSUPPORTED_VERSION);
  await explicit.close();
  assert.deepEqual(fake.logs.get(0), ['a']);
});

test('a connection closed before the request is read: the batch is resent with the same sequence', async (t) => {
  const fake = await idempotentFake({ fault: (n) => (n === 0 ? 'close-first' : 'none') });
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, retryBackoffMs: 1 });
  assert.equal((await p.send({ topic: 't', value: 'once' })).offset, 0n);
  assert.deepEqual(fake.seen.map((b) => b.baseSequence), [0]);
  assert.deepEqual(fake.logs.get(0), ['once']);
  await p.close();
});

test('the broker forgets the producer with batches pipelined: one bump once they are answered, then everything renumbered, in order', async (t) => {
  let forget: () => void = () => undefined;
  const fake = await idempotentFake({
    delayMs: 5,
    fault: (n) => {
      if (n === 3) forget();
      return 'none';
    },
  });
  forget = fake.forgetProducers;
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, batchSize: 150, retryBackoffMs: 1 });
  const expected = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(50, '0')}`);
  await Promise.all(expected.map((value) => p.send({ topic: 't', value })));
  assert.deepEqual(fake.logs.get(0), expected);
  assert.deepEqual(fake.inits.map((i) => i.producerEpoch), [-1, 0], 'one bump');
  const firstRefused = fake.seen.findIndex((b) => b.errorCode !== 0);
  assert.equal(fake.seen[firstRefused]?.errorCode, ErrorCode.UNKNOWN_PRODUCER_ID);
  const afterBump = fake.seen.filter((b) => b.producerEpoch === 1);
  assert.equal(afterBump[0]?.baseSequence, 0, 'renumbered from 0');
  assert.ok(afterBump.every((b) => b.errorCode === 0));
  assert.ok(fake.maxUnanswered > 1, 'batches were pipelined');
  await p.close();
});

test('compressed batches (encoded on the thread pool) still reach the broker in sequence order, and renumbering keeps them valid', async (t) => {
  let forget: () => void = () => undefined;
  const fake = await idempotentFake({
    delayMs: 3,
    fault: (n) => {
      if (n === 6) forget();
      return 'none';
    },
  });
  forget = fake.forgetProducers;
  t.after(() => fake.stop());
  const p = await producer(fake, { lingerMs: 0, batchSize: 400, compression: 'gzip', retryBackoffMs: 1 });
  const expected = Array.from({ length: 120 }, (_, i) => `z${i}-${'x'.repeat(40)}`);
  await Promise.all(expected.map((value) => p.send({ topic: 't', value })));
  assert.deepEqual(fake.logs.get(0), expected);
  const refused = fake.seen.filter((b) => b.errorCode !== 0);
  assert.ok(refused.length >= 1, 'the forgotten producer was refused');
  assert.ok(
    refused.every((b) => b.errorCode === ErrorCode.UNKNOWN_PRODUCER_ID),
    `only UNKNOWN_PRODUCER_ID, never out of order: ${refused.map((b) => b.errorCode).join(',')}`,
  );
  assert.deepEqual(fake.inits.map((i) => i.producerEpoch), [-1, 0]);
  await p.close();
});

// Hostile and broken input on raw sockets against one real broker process.
// docs/architecture.md (guarantees): an unknown or malformed request closes *that* connection
// only (or gets a documented error code); the broker keeps serving everyone
// else and loses nothing. After every case a separate, well-behaved client
// (a raw ApiVersions + Metadata on a fresh connection) must get correct
// answers and the process must still be alive; kcat -L runs at the end.
// The fuzz loop is seeded: FUZZ_SEED=n replays a run, FUZZ_FRAMES sets the count.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { kcatMetadata } from '../../helpers/kcat.js';
import {
  apiVersionsRequest,
  createTopicsRaw,
  metadataV1Request,
  Out,
  parseApiVersionsResponse,
  parseMetadataV1Response,
  parseProduceV7Response,
  probeApiVersions,
  produceRequest,
  RawConnection,
  rawRequest,
  recordBatch,
  requestFrame,
  type ApiVersionsResult,
} from '../../helpers/raw-kafka.js';
import { uniqueName } from '../../helpers/records.js';
import { SeededRandom } from '../../../src/util/random.js';

/** socket.request.max.bytes for this broker: small, so "over the limit" is cheap to send. */
const REQUEST_BYTES_MAX = 1024 * 1024;
const CLOSE_WAIT_MS = 5000;

const ErrorCode = { NONE: 0, CORRUPT_MESSAGE: 2, UNKNOWN_TOPIC_OR_PARTITION: 3, UNSUPPORTED_VERSION: 35, INVALID_REQUEST: 42, INVALID_RECORD: 87 } as const;

describe('bad input on raw sockets', { timeout: 400_000 }, () => {
  let broker: BrokerProcess;
  let advertised: ApiVersionsResult;
  let topic: string;

  /** A separate well-behaved client still gets correct answers, and the process lives. */
  async function assertServing(after: string): Promise<void> {
    assert.ok(broker.isAlive(), `broker process died after: ${after}`);
    const versions = await probeApiVersions(broker.port).catch((err: unknown) => {
      throw new Error(`ApiVersions on a fresh connection failed after ${after}: ${String(err)}`);
    });
    assert.equal(versions.errorCode, 0, `ApiVersions error after ${after}`);
    assert.deepEqual(versions.apiKeys, advertised.apiKeys, `ApiVersions changed after ${after}`);
    const md = parseMetadataV1Response(await rawRequest(broker.port, metadataV1Request(77, [topic])));
    assert.equal(md.brokers.length, 1, `Metadata after ${after}`);
    assert.equal(md.topics[0]?.errorCode, 0, `Metadata for ${topic} after ${after}`);
  }

  /** Sends bytes on a fresh connection and expects the broker to close it without a response. */
  async function expectClosed(bytes: Buffer, what: string, options: { end?: boolean } = {}): Promise<void> {
    const conn = await RawConnection.connect(broker.port);
    try {
      await conn.write(bytes);
      if (options.end === true) conn.socket.end();
      const closed = await conn.waitClosed(CLOSE_WAIT_MS);
      const got = conn.pending().map((f) => f.subarray(0, 32).toString('hex'));
      assert.ok(closed, `${what}: connection still open after ${CLOSE_WAIT_MS} ms (responses: ${JSON.stringify(got)})`);
      assert.deepEqual(got, [], `${what}: expected no response before the close`);
    } finally {
      conn.close();
    }
    await assertServing(what);
  }

  before(async () => {
    broker = await startBroker({ name: 'bad-input', overrides: { 'socket.request.max.bytes': String(REQUEST_BYTES_MAX) } });
    advertised = await probeApiVersions(broker.port);
    topic = uniqueName('bad-input');
    await createTopicsRaw(broker.port, [{ name: topic, partitions: 1 }]);
  });
  after(async () => {
    await broker?.cleanup();
  });

  it('garbage (an HTTP request) closes the connection', async () => {
    await broker.explain(() => expectClosed(Buffer.from('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'), 'HTTP garbage'));
  });

  it('a length prefix over socket.request.max.bytes closes the connection at once (the bytes never come)', async () => {
    await broker.explain(async () => {
      await expectClosed(new Out().int32(REQUEST_BYTES_MAX + 1).int16(18).int16(0).build(), 'size = max + 1');
      await expectClosed(new Out().int32(0x7fffffff).build(), 'size = 2^31 - 1');
      await expectClosed(new Out().int32(-1).build(), 'size = -1');
      await expectClosed(new Out().int32(-0x80000000).build(), 'size = -2^31');
    });
  });

  it('frames too short for a request header close the connection', async () => {
    await broker.explain(async () => {
      await expectClosed(new Out().int32(0).build(), 'size = 0');
      await expectClosed(new Out().int32(3).raw(Buffer.from([0, 18, 0])).build(), 'size = 3');
      // Header claims a client id longer than the frame.
      await expectClosed(new Out().int32(10).int16(18).int16(0).int32(1).int16(500).build(), 'client id longer than the frame');
    });
  });

  it('truncated frames followed by a close (or a half-close) are dropped cleanly', async () => {
    await broker.explain(async () => {
      for (const [size, sent] of [
        [100, 10],
        [100, 2],
        [REQUEST_BYTES_MAX, 1000],
      ] as const) {
        const conn = await RawConnection.connect(broker.port);
        const payload = Buffer.alloc(sent);
        apiVersionsRequest(0, 1).subarray(4).copy(payload); // a real header, cut to `sent` bytes
        await conn.write(Buffer.concat([new Out().int32(size).build(), payload]));
        conn.socket.end(); // half-close: the broker sees EOF mid-frame
        assert.ok(await conn.waitClosed(CLOSE_WAIT_MS), `size ${size}, sent ${sent}: broker did not close after EOF`);
        conn.close();
        await assertServing(`truncated frame (size ${size}, ${sent} bytes) then EOF`);
      }
      // Abrupt reset in the middle of a frame.
      const conn = await RawConnection.connect(broker.port);
      await conn.write(new Out().int32(50).int16(3).build());
      conn.socket.resetAndDestroy();
      await assertServing('truncated frame then RST');
    });
  });

  it('a request split into 1-byte writes is reassembled and answered', async () => {
    await broker.explain(async () => {
      const conn = await RawConnection.connect(broker.port);
      try {
        const frame = apiVersionsRequest(0, 4242);
        for (const byte of frame) {
          await conn.write(Buffer.from([byte]));
          await new Promise((r) => setTimeout(r, 2));
        }
        const answer = await conn.next(CLOSE_WAIT_MS);
        assert.equal(answer.kind, 'frame');
        if (answer.kind === 'frame') assert.equal(parseApiVersionsResponse(answer.frame, 0).correlationId, 4242);
      } finally {
        conn.close();
      }
    });
  });

  it('an unknown API key closes that connection only', async () => {
    await broker.explain(async () => {
      await expectClosed(requestFrame(999, 0, 11, Buffer.alloc(0)), 'api key 999');
      await expectClosed(requestFrame(-1, 0, 12, Buffer.alloc(0)), 'api key -1');
      // A real Kafka key this broker does not implement (not advertised).
      const unimplemented = [27, 4, 5, 6, 7, 52].find((k) => !advertised.apiKeys.has(k));
      if (unimplemented !== undefined) await expectClosed(requestFrame(unimplemented, 0, 13, Buffer.alloc(16)), `api key ${unimplemented} (not advertised)`);
    });
  });

  it('an unsupported version of a known API closes that connection only', async () => {
    await broker.explain(async () => {
      const metadataMax = advertised.apiKeys.get(3)?.maxVersion ?? 9;
      await expectClosed(requestFrame(3, metadataMax + 1, 21, Buffer.alloc(8), { flexible: true }), `Metadata v${metadataMax + 1}`);
      await expectClosed(requestFrame(1, 99, 22, Buffer.alloc(8), { flexible: true }), 'Fetch v99');
      const produceMin = advertised.apiKeys.get(0)?.minVersion ?? 0;
      if (produceMin > 0) await expectClosed(requestFrame(0, produceMin - 1, 23, Buffer.alloc(8)), `Produce v${produceMin - 1} (below the advertised min)`);
    });
  });

  it('ApiVersions v99 gets a v0-format UNSUPPORTED_VERSION answer with the key list (KIP-511); the connection stays usable', async () => {
    await broker.explain(async () => {
      const conn = await RawConnection.connect(broker.port);
      try {
        // A v3-style (flexible) header and body, as a newer client would send.
        const frame = await conn.request(requestFrame(18, 99, 31, new Out().compactString('future-client').compactString('9.9').uvarint(0).build(), { flexible: true }));
        const answer = parseApiVersionsResponse(frame, 0);
        assert.equal(answer.correlationId, 31);
        assert.equal(answer.errorCode, ErrorCode.UNSUPPORTED_VERSION);
        const own = answer.apiKeys.get(18);
        assert.ok(own !== undefined, `key 18 in the list: ${JSON.stringify([...answer.apiKeys])}`);
        assert.equal(own.minVersion, 0);
        assert.ok(own.maxVersion >= 3, `ApiVersions max ${own.maxVersion}`);
        // librdkafka retries on the same connection with min(requested - 1, advertised max).
        const retry = parseApiVersionsResponse(await conn.request(apiVersionsRequest(3, 32)), 3);
        assert.equal(retry.correlationId, 32);
        assert.equal(retry.errorCode, ErrorCode.NONE);
        assert.deepEqual(retry.apiKeys, advertised.apiKeys);
      } finally {
        conn.close();
      }
      await assertServing('ApiVersions v99');
    });
  });

  it('ApiVersions v0..v3 all answer with the same key list', async () => {
    await broker.explain(async () => {
      for (const v of [0, 1, 2, 3]) {
        const answer = parseApiVersionsResponse(await rawRequest(broker.port, apiVersionsRequest(v, 40 + v)), v);
        assert.equal(answer.correlationId, 40 + v);
        assert.equal(answer.errorCode, 0, `v${v}`);
        assert.deepEqual(answer.apiKeys, advertised.apiKeys, `v${v}`);
        if (v >= 1) assert.equal(answer.throttleTimeMs, 0, `v${v} throttle`);
      }
    });
  });

  it('a structurally malformed Produce body closes the connection; a pipelined earlier request is still answered', async () => {
    await broker.explain(async () => {
      // transactional_id null, acks -1, timeout, then a topic array claiming 5 entries and nothing after.
      const truncated = requestFrame(0, 7, 51, new Out().int16(-1).int16(-1).int32(1000).int32(5).build());
      await expectClosed(truncated, 'Produce v7 with a truncated topic array');
      // A topic array of 2^31-1 entries in a small frame.
      await expectClosed(requestFrame(0, 7, 52, new Out().int16(-1).int16(-1).int32(1000).int32(0x7fffffff).build()), 'Produce v7 claiming 2^31-1 topics');
      // Records bytes longer than the frame.
      const lying = requestFrame(0, 7, 53, new Out().int16(-1).int16(-1).int32(1000).int32(1).string(topic).int32(1).int32(0).int32(1_000_000).raw(Buffer.alloc(20)).build());
      await expectClosed(lying, 'Produce v7 records size larger than the frame');

      // ApiVersions, then garbage, on one connection in one write: the first is answered, then the close.
      const conn = await RawConnection.connect(broker.port);
      try {
        await conn.write(Buffer.concat([apiVersionsRequest(0, 61), truncated, apiVersionsRequest(0, 62)]));
        const first = await conn.next(CLOSE_WAIT_MS);
        assert.equal(first.kind, 'frame', 'the request before the malformed one is answered');
        if (first.kind === 'frame') assert.equal(parseApiVersionsResponse(first.frame, 0).correlationId, 61);
        assert.ok(await conn.waitClosed(CLOSE_WAIT_MS), 'closed after the malformed request');
        assert.deepEqual(conn.pending(), [], 'nothing answered after the malformed request');
      } finally {
        conn.close();
      }
      await assertServing('pipelined malformed Produce');
    });
  });

  it('a Produce with a corrupt batch gets CORRUPT_MESSAGE and appends nothing', async () => {
    await broker.explain(async () => {
      const good = recordBatch([{ key: Buffer.from('k'), value: Buffer.from('v'), headers: [['h', Buffer.from('x')]] }]);
      const badCrc = Buffer.from(good);
      badCrc[badCrc.length - 1] = (badCrc[badCrc.length - 1] ?? 0) ^ 0xff; // flip a byte covered by the CRC
      const badMagic = Buffer.from(good);
      badMagic.writeInt8(7, 16);
      const badLength = Buffer.from(good);
      badLength.writeInt32BE(good.length + 100, 8); // batchLength beyond the records bytes
      const random = Buffer.from(Array.from({ length: 80 }, (_, i) => (i * 37 + 11) & 0xff));
      for (const [name, records] of [
        ['CRC-32C mismatch', badCrc],
        ['magic 7', badMagic],
        ['batch length beyond the data', badLength],
        ['random bytes', random],
        ['half a batch header', good.subarray(0, 30)],
      ] as const) {
        const answer = parseProduceV7Response(await rawRequest(broker.port, produceRequest(7, 70, -1, [{ name: topic, partitions: [{ index: 0, records }] }])));
        assert.equal(answer.correlationId, 70);
        const code = answer.topics[0]?.partitions[0]?.errorCode;
        assert.ok(code === ErrorCode.CORRUPT_MESSAGE || code === ErrorCode.INVALID_RECORD || code === ErrorCode.INVALID_REQUEST, `${name}: error code ${code}, expected CORRUPT_MESSAGE (2), INVALID_RECORD (87) or INVALID_REQUEST (42)`);
        await assertServing(`Produce with ${name}`);
      }
      // Unknown topic: a per-partition error, not a closed connection.
      const unknown = parseProduceV7Response(await rawRequest(broker.port, produceRequest(7, 71, -1, [{ name: uniqueName('no-such-topic'), partitions: [{ index: 0, records: good }] }])));
      assert.equal(unknown.topics[0]?.partitions[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'produce to an unknown topic');
      // Nothing was appended: the first good batch lands at offset 0.
      const ok = parseProduceV7Response(await rawRequest(broker.port, produceRequest(7, 72, -1, [{ name: topic, partitions: [{ index: 0, records: good }] }])));
      assert.deepEqual(ok.topics[0]?.partitions[0], { index: 0, errorCode: 0, baseOffset: 0n }, 'a good batch after the bad ones');
    });
  });

  it('fuzz: random frames with valid length prefixes never stop the broker', async () => {
    await broker.explain(async () => {
      const seed = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
      const count = Number(process.env['FUZZ_FRAMES'] ?? 300);
      const seeded = new SeededRandom(seed);
      const random = (): number => seeded.next();
      const int = (n: number): number => Math.floor(random() * n);
      const knownKeys = [...advertised.apiKeys.keys()];
      const outcomes = { response: 0, closed: 0, open: 0 };
      let i = 0;
      try {
        for (i = 0; i < count; i++) {
          // Mostly advertised keys (deep decode paths), some unknown ones.
          const apiKey = random() < 0.8 ? (knownKeys[int(knownKeys.length)] ?? 18) : int(100) - 2;
          const range = advertised.apiKeys.get(apiKey);
          const apiVersion = range !== undefined && random() < 0.8 ? range.minVersion + int(range.maxVersion - range.minVersion + 1) : int(20);
          const body = Buffer.from(Array.from({ length: int(300) }, () => int(256)));
          // Sometimes a plausible prefix: small counts and lengths, so decoding goes further.
          if (body.length >= 8 && random() < 0.5) body.fill(0, 0, int(8));
          const frame = requestFrame(apiKey, apiVersion, i, body, { flexible: random() < 0.5, clientId: random() < 0.1 ? null : 'fuzz' });
          const conn = await RawConnection.connect(broker.port);
          await conn.write(frame);
          const result = await conn.next(300);
          if (result.kind === 'frame') {
            outcomes.response++;
            assert.equal(result.frame.readInt32BE(0), i, `frame ${i}: response correlation id`);
          } else if (result.kind === 'closed') outcomes.closed++;
          else outcomes.open++; // e.g. a Fetch that decoded and long-polls: fine
          conn.close();
          if (i % 50 === 49) await assertServing(`fuzz frame ${i} (seed ${seed})`);
        }
        await assertServing(`fuzz (seed ${seed})`);
      } catch (err) {
        if (err instanceof Error) err.message += ` [FUZZ_SEED=${seed}, frame ${i}]`;
        throw err;
      }
      process.stderr.write(`[bad-input] fuzz seed ${seed}: ${count} frames, ${JSON.stringify(outcomes)}\n`);
    });
  });

  it('fuzz: mutated valid requests (bit flips, truncation, extension) never stop the broker', async () => {
    await broker.explain(async () => {
      const seed = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
      const count = Number(process.env['FUZZ_MUTATIONS'] ?? 300);
      const seeded = new SeededRandom(seed);
      const random = (): number => seeded.next();
      const int = (n: number): number => Math.floor(random() * n);
      const batch = recordBatch([
        { key: Buffer.from('fuzz-key'), value: Buffer.from('fuzz-value'), headers: [['h', Buffer.from('v')]] },
        { key: null, value: Buffer.from('second') },
      ]);
      // Templates: valid requests the broker answers. No CreateTopics/CreatePartitions:
      // a mutated partition count could legitimately ask for 2^30 partitions.
      const templates: Buffer[] = [
        apiVersionsRequest(0, 0),
        apiVersionsRequest(3, 0),
        metadataV1Request(0, [topic]),
        metadataV1Request(0, null),
        produceRequest(7, 0, 1, [{ name: topic, partitions: [{ index: 0, records: batch }] }]),
        produceRequest(3, 0, -1, [{ name: topic, partitions: [{ index: 0, records: batch }] }]),
        // Fetch v4: replica, max_wait, min_bytes, max_bytes, isolation, [topic [partition, offset, max_bytes]].
        requestFrame(1, 4, 0, new Out().int32(-1).int32(50).int32(1).int32(1 << 20).int8(0).int32(1).string(topic).int32(1).int32(0).int64(0n).int32(1 << 20).build()),
        // ListOffsets v1: replica, [topic [partition, timestamp]].
        requestFrame(2, 1, 0, new Out().int32(-1).int32(1).string(topic).int32(1).int32(0).int64(-1n).build()),
      ];
      const outcomes = { response: 0, closed: 0, open: 0 };
      let i = 0;
      try {
        for (i = 0; i < count; i++) {
          const template = templates[int(templates.length)] ?? templates[0];
          assert.ok(template !== undefined);
          let payload = Buffer.from(template.subarray(4));
          const mutation = int(3);
          if (mutation === 0) {
            // Flip 1-4 bytes, keeping the api key, version and correlation id (bytes 0-7) intact half the time.
            const from = random() < 0.5 ? 8 : 0;
            for (let n = 0, flips = 1 + int(4); n < flips; n++) {
              const at = from + int(payload.length - from);
              payload[at] = int(256);
            }
          } else if (mutation === 1) {
            payload = payload.subarray(0, 8 + int(payload.length - 8));
          } else {
            payload = Buffer.concat([payload, Buffer.from(Array.from({ length: 1 + int(64) }, () => int(256)))]);
          }
          payload.writeInt32BE(i, 4); // correlation id = i
          const conn = await RawConnection.connect(broker.port);
          await conn.write(Buffer.concat([new Out().int32(payload.length).build(), payload]));
          const result = await conn.next(300);
          if (result.kind === 'frame') {
            outcomes.response++;
            assert.equal(result.frame.readInt32BE(0), i, `mutation ${i}: response correlation id`);
          } else if (result.kind === 'closed') outcomes.closed++;
          else outcomes.open++;
          conn.close();
          if (i % 50 === 49) await assertServing(`mutation ${i} (seed ${seed})`);
        }
        await assertServing(`mutation fuzz (seed ${seed})`);
      } catch (err) {
        if (err instanceof Error) err.message += ` [FUZZ_SEED=${seed}, mutation ${i}]`;
        throw err;
      }
      process.stderr.write(`[bad-input] mutation fuzz seed ${seed}: ${count} frames, ${JSON.stringify(outcomes)}\n`);
      assert.ok(outcomes.response > 0, 'some mutated requests were still valid and answered');
    });
  });

  it('after everything: kcat -L works and the broker never crashed', async () => {
    await broker.explain(async () => {
      const md = await kcatMetadata(broker.bootstrap);
      assert.equal(md.brokers.length, 1);
      assert.ok(md.topics.some((t) => t.topic === topic));
      assert.ok(broker.isAlive());
      assert.deepEqual(broker.crashes, []);
    });
  });
});

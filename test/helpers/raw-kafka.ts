/**
 * A deliberately tiny, hand-written Kafka wire client for tests: framing, a few
 * request encoders (ApiVersions, Metadata v1, CreateTopics v3, Produce v3-7) and
 * response parsers, and a magic-2 record batch builder with CRC-32C.
 *
 * It shares no code with src/protocol on purpose: a bug in the broker's codec
 * must not be hidden by the same bug in the test's codec.
 */
import { createConnection, type Socket } from 'node:net';

// ---------------------------------------------------------------- writing

export class Out {
  private readonly parts: Buffer[] = [];
  int8(v: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    this.parts.push(b);
    return this;
  }
  int16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.parts.push(b);
    return this;
  }
  int32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
    return this;
  }
  uint32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    this.parts.push(b);
    return this;
  }
  int64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    this.parts.push(b);
    return this;
  }
  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }
  uvarint(v: number): this {
    const bytes: number[] = [];
    let n = v >>> 0;
    while (n > 0x7f) {
      bytes.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes.push(n);
    this.parts.push(Buffer.from(bytes));
    return this;
  }
  /** Zig-zag signed varint (record fields). */
  varint(v: number): this {
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }
  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  string(s: string | null): this {
    if (s === null) return this.int16(-1);
    const b = Buffer.from(s, 'utf8');
    return this.int16(b.length).raw(b);
  }
  compactString(s: string | null): this {
    if (s === null) return this.uvarint(0);
    const b = Buffer.from(s, 'utf8');
    return this.uvarint(b.length + 1).raw(b);
  }
  bytes(b: Buffer | null): this {
    if (b === null) return this.int32(-1);
    return this.int32(b.length).raw(b);
  }
  array<T>(items: readonly T[] | null, each: (out: this, item: T) => void): this {
    if (items === null) return this.int32(-1);
    this.int32(items.length);
    for (const item of items) each(this, item);
    return this;
  }
  get length(): number {
    return this.parts.reduce((n, p) => n + p.length, 0);
  }
  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}

// ---------------------------------------------------------------- reading

export class In {
  position = 0;
  constructor(readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.position + n > this.buf.length) throw new RangeError(`need ${n} bytes at ${this.position}, have ${this.buf.length - this.position}`);
  }
  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.position++);
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.position);
    this.position += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.position);
    this.position += 4;
    return v;
  }
  int64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.position);
    this.position += 8;
    return v;
  }
  bool(): boolean {
    return this.int8() !== 0;
  }
  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      this.need(1);
      const b = this.buf[this.position++] ?? 0;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new RangeError('uvarint too long');
    }
  }
  string(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    this.need(n);
    const s = this.buf.toString('utf8', this.position, this.position + n);
    this.position += n;
    return s;
  }
  compactString(): string | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    this.need(n);
    const s = this.buf.toString('utf8', this.position, this.position + n);
    this.position += n;
    return s;
  }
  array<T>(each: (input: this) => T): T[] | null {
    const n = this.int32();
    if (n < 0) return null;
    if (n > this.buf.length) throw new RangeError(`array length ${n} larger than the frame`);
    const items: T[] = [];
    for (let i = 0; i < n; i++) items.push(each(this));
    return items;
  }
  compactArray<T>(each: (input: this) => T): T[] | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    if (n > this.buf.length) throw new RangeError(`array length ${n} larger than the frame`);
    const items: T[] = [];
    for (let i = 0; i < n; i++) items.push(each(this));
    return items;
  }
  skipTags(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      const size = this.uvarint();
      this.need(size);
      this.position += size;
    }
  }
  get remaining(): number {
    return this.buf.length - this.position;
  }
}

// ---------------------------------------------------------------- framing

export interface HeaderOptions {
  clientId?: string | null;
  /** Request header v2 (flexible versions): adds an empty tag buffer after client_id. */
  flexible?: boolean;
}

/** A complete request frame: int32 size, request header v1/v2, body. */
export function requestFrame(apiKey: number, apiVersion: number, correlationId: number, body: Buffer, options: HeaderOptions = {}): Buffer {
  const header = new Out().int16(apiKey).int16(apiVersion).int32(correlationId).string(options.clientId === undefined ? 'tributary-test' : options.clientId);
  if (options.flexible === true) header.uvarint(0);
  const payload = Buffer.concat([header.build(), body]);
  return Buffer.concat([new Out().int32(payload.length).build(), payload]);
}

export type FrameResult = { kind: 'frame'; frame: Buffer } | { kind: 'closed' } | { kind: 'timeout' };

/** One TCP connection that splits the byte stream into response frames. */
export class RawConnection {
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private closed = false;
  private closeError: Error | null = null;
  private waiter: (() => void) | null = null;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4) {
        const size = this.buffered.readInt32BE(0);
        if (size < 0 || this.buffered.length < 4 + size) break;
        this.frames.push(this.buffered.subarray(4, 4 + size));
        this.buffered = this.buffered.subarray(4 + size);
      }
      this.wake();
    });
    socket.on('error', (err) => {
      this.closeError = err;
      this.closed = true;
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static connect(port: number, timeoutMs = 5000): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect to 127.0.0.1:${port} timed out`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        resolve(new RawConnection(socket));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get error(): Error | null {
    return this.closeError;
  }

  /** Writes bytes; resolves false if the socket was already closed by the peer. */
  write(bytes: Buffer): Promise<boolean> {
    if (this.closed || this.socket.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.socket.write(bytes, (err) => resolve(err === undefined || err === null));
    });
  }

  /** The next response frame (without its size prefix), or closed, or timeout. */
  async next(timeoutMs = 5000): Promise<FrameResult> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = this.frames.shift();
      if (frame !== undefined) return { kind: 'frame', frame };
      if (this.closed) return { kind: 'closed' };
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'timeout' };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = null;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Waits until the peer closes the connection (true) or the timeout passes (false); frames received meanwhile are kept. */
  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = null;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return true;
  }

  /** Frames received and not yet consumed by next(). */
  pending(): Buffer[] {
    return [...this.frames];
  }

  async request(frame: Buffer, timeoutMs = 5000): Promise<Buffer> {
    await this.write(frame);
    const result = await this.next(timeoutMs);
    if (result.kind !== 'frame') throw new Error(`no response: connection ${result.kind}`);
    return result.frame;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** One request on a fresh connection; the connection is closed afterwards. */
export async function rawRequest(port: number, frame: Buffer, timeoutMs = 5000): Promise<Buffer> {
  const conn = await RawConnection.connect(port, timeoutMs);
  try {
    return await conn.request(frame, timeoutMs);
  } finally {
    conn.close();
  }
}

// ---------------------------------------------------------------- ApiVersions (18)

export function apiVersionsRequest(version: number, correlationId: number, options: { flexibleHeader?: boolean } = {}): Buffer {
  const flexible = options.flexibleHeader ?? version >= 3;
  const body = version >= 3 ? new Out().compactString('tributary-test').compactString('0.0.1').uvarint(0).build() : Buffer.alloc(0);
  return requestFrame(18, version, correlationId, body, { flexible });
}

export interface ApiVersionsResult {
  correlationId: number;
  errorCode: number;
  apiKeys: Map<number, { minVersion: number; maxVersion: number }>;
  throttleTimeMs: number | null;
}

/**
 * Parses an ApiVersions response. The response header is always v0 (no tag
 * buffer). `bodyVersion` 0-2 reads the classic body, 3 the compact one; an
 * UNSUPPORTED_VERSION answer comes in the v0 format whatever was asked (KIP-511).
 */
export function parseApiVersionsResponse(frame: Buffer, bodyVersion: number): ApiVersionsResult {
  const input = new In(frame);
  const correlationId = input.int32();
  const errorCode = input.int16();
  const apiKeys = new Map<number, { minVersion: number; maxVersion: number }>();
  const entry = (compact: boolean) => (i: In) => {
    const apiKey = i.int16();
    const minVersion = i.int16();
    const maxVersion = i.int16();
    if (compact) i.skipTags();
    apiKeys.set(apiKey, { minVersion, maxVersion });
  };
  let throttleTimeMs: number | null = null;
  if (bodyVersion >= 3) {
    input.compactArray(entry(true));
    throttleTimeMs = input.int32();
    input.skipTags();
  } else {
    input.array(entry(false));
    if (bodyVersion >= 1) throttleTimeMs = input.int32();
  }
  return { correlationId, errorCode, apiKeys, throttleTimeMs };
}

/** A raw ApiVersions v0 round trip on a fresh connection: the "is it still serving?" probe. */
export async function probeApiVersions(port: number, timeoutMs = 5000): Promise<ApiVersionsResult> {
  const correlationId = 0x5eed;
  const frame = await rawRequest(port, apiVersionsRequest(0, correlationId), timeoutMs);
  const result = parseApiVersionsResponse(frame, 0);
  if (result.correlationId !== correlationId) throw new Error(`ApiVersions v0: correlation id ${result.correlationId}, sent ${correlationId}`);
  return result;
}

// ---------------------------------------------------------------- Metadata (3) v1

export interface MetadataV1 {
  brokers: { nodeId: number; host: string | null; port: number }[];
  controllerId: number;
  topics: { errorCode: number; name: string | null; partitions: { errorCode: number; partition: number; leader: number }[] }[];
}

export function metadataV1Request(correlationId: number, topics: string[] | null): Buffer {
  return requestFrame(3, 1, correlationId, new Out().array(topics, (o, t) => o.string(t)).build());
}

export function parseMetadataV1Response(frame: Buffer): MetadataV1 {
  const i = new In(frame);
  i.int32(); // correlation id
  const brokers = i.array((b) => {
    const nodeId = b.int32();
    const host = b.string();
    const port = b.int32();
    b.string(); // rack
    return { nodeId, host, port };
  }) ?? [];
  const controllerId = i.int32();
  const topics = i.array((t) => {
    const errorCode = t.int16();
    const name = t.string();
    t.bool(); // is_internal
    const partitions = t.array((p) => {
      const pErr = p.int16();
      const partition = p.int32();
      const leader = p.int32();
      p.array((r) => r.int32()); // replicas
      p.array((r) => r.int32()); // isr
      return { errorCode: pErr, partition, leader };
    }) ?? [];
    return { errorCode, name, partitions };
  }) ?? [];
  return { brokers, controllerId, topics };
}

// ---------------------------------------------------------------- CreateTopics (19) v3

export interface CreateTopicSpec {
  name: string;
  partitions: number;
  replicationFactor?: number;
  configs?: Record<string, string>;
}

export function createTopicsV3Request(correlationId: number, topics: CreateTopicSpec[], timeoutMs = 10_000): Buffer {
  const body = new Out()
    .array(topics, (o, t) => {
      o.string(t.name).int32(t.partitions).int16(t.replicationFactor ?? 1);
      o.array([], () => undefined); // manual assignments
      o.array(Object.entries(t.configs ?? {}), (c, [k, v]) => c.string(k).string(v));
    })
    .int32(timeoutMs)
    .bool(false)
    .build();
  return requestFrame(19, 3, correlationId, body);
}

export function parseCreateTopicsV3Response(frame: Buffer): { name: string | null; errorCode: number; errorMessage: string | null }[] {
  const i = new In(frame);
  i.int32(); // correlation id
  i.int32(); // throttle
  return i.array((t) => ({ name: t.string(), errorCode: t.int16(), errorMessage: t.string() })) ?? [];
}

/** Creates topics with a raw CreateTopics v3 and waits until Metadata v1 shows a leader for every partition. */
export async function createTopicsRaw(port: number, topics: CreateTopicSpec[], timeoutMs = 15_000): Promise<void> {
  const answer = parseCreateTopicsV3Response(await rawRequest(port, createTopicsV3Request(1, topics), timeoutMs));
  for (const t of answer) {
    if (t.errorCode !== 0) throw new Error(`CreateTopics v3 ${t.name}: error ${t.errorCode} ${t.errorMessage ?? ''}`);
  }
  await waitForLeaders(port, topics.map((t) => t.name), timeoutMs);
}

export async function waitForLeaders(port: number, names: string[], timeoutMs = 15_000): Promise<MetadataV1> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const md = parseMetadataV1Response(await rawRequest(port, metadataV1Request(2, names), timeoutMs));
    const ready = names.every((name) => {
      const t = md.topics.find((x) => x.name === name);
      return t !== undefined && t.errorCode === 0 && t.partitions.length > 0 && t.partitions.every((p) => p.errorCode === 0 && p.leader >= 0);
    });
    if (ready) return md;
    last = JSON.stringify(md.topics);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no leaders for ${names.join(',')} within ${timeoutMs} ms; last metadata: ${last}`);
}

// ---------------------------------------------------------------- Produce (0) v3-7

export function produceRequest(
  version: number,
  correlationId: number,
  acks: number,
  topics: { name: string; partitions: { index: number; records: Buffer | null }[] }[],
  timeoutMs = 10_000,
  transactionalId: string | null = null,
): Buffer {
  const body = new Out()
    .string(transactionalId) // transactional_id (v3+)
    .int16(acks)
    .int32(timeoutMs)
    .array(topics, (o, t) => {
      o.string(t.name).array(t.partitions, (p, part) => p.int32(part.index).bytes(part.records));
    })
    .build();
  return requestFrame(0, version, correlationId, body);
}

export interface ProducePartitionResult {
  index: number;
  errorCode: number;
  baseOffset: bigint;
}

/** Produce v5-v7 response. */
export function parseProduceV7Response(frame: Buffer): { correlationId: number; topics: { name: string | null; partitions: ProducePartitionResult[] }[] } {
  const i = new In(frame);
  const correlationId = i.int32();
  const topics =
    i.array((t) => ({
      name: t.string(),
      partitions:
        t.array((p) => {
          const index = p.int32();
          const errorCode = p.int16();
          const baseOffset = p.int64();
          p.int64(); // log_append_time
          p.int64(); // log_start_offset
          return { index, errorCode, baseOffset };
        }) ?? [],
    })) ?? [];
  i.int32(); // throttle
  return { correlationId, topics };
}

// ---------------------------------------------------------------- record batch v2

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32c(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC32C_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export interface SimpleRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers?: [string, Buffer | null][];
}

/** An uncompressed magic-2 batch with base offset 0 and a correct CRC-32C. */
export function recordBatch(records: SimpleRecord[], baseTimestamp = BigInt(Date.now())): Buffer {
  const encoded = records.map((r, index) => {
    const body = new Out().int8(0).varint(0).varint(index);
    if (r.key === null) body.varint(-1);
    else body.varint(r.key.length).raw(r.key);
    if (r.value === null) body.varint(-1);
    else body.varint(r.value.length).raw(r.value);
    const headers = r.headers ?? [];
    body.varint(headers.length);
    for (const [k, v] of headers) {
      const kb = Buffer.from(k, 'utf8');
      body.varint(kb.length).raw(kb);
      if (v === null) body.varint(-1);
      else body.varint(v.length).raw(v);
    }
    const bytes = body.build();
    return new Out().varint(bytes.length).raw(bytes).build();
  });
  const afterCrc = new Out()
    .int16(0) // attributes: no compression, CreateTime
    .int32(records.length - 1) // last offset delta
    .int64(baseTimestamp)
    .int64(baseTimestamp) // max timestamp
    .int64(-1n) // producer id
    .int16(-1) // producer epoch
    .int32(-1) // base sequence
    .int32(records.length)
    .raw(Buffer.concat(encoded))
    .build();
  const crc = crc32c(afterCrc);
  // batchLength counts from partitionLeaderEpoch (4) + magic (1) + crc (4) + the rest.
  return new Out().int64(0n).int32(4 + 1 + 4 + afterCrc.length).int32(-1).int8(2).uint32(crc).raw(afterCrc).build();
}

// ---------------------------------------------------------------- ListOffsets (2) v0

export interface ListOffsetsV0Query {
  topic: string;
  partition: number;
  /** -1 latest, -2 earliest, else a time in ms. */
  timestamp: bigint;
  maxNumOffsets: number;
}

/** ListOffsets v0 as sarama-era clients send it: replica_id, [topic, [partition, timestamp, max_num_offsets]]. */
export function listOffsetsV0Request(correlationId: number, queries: readonly ListOffsetsV0Query[], replicaId = -1): Buffer {
  const topics = [...new Set(queries.map((q) => q.topic))];
  const body = new Out()
    .int32(replicaId)
    .array(topics, (o, topic) => {
      o.string(topic).array(
        queries.filter((q) => q.topic === topic),
        (p, q) => void p.int32(q.partition).int64(q.timestamp).int32(q.maxNumOffsets),
      );
    })
    .build();
  return requestFrame(2, 0, correlationId, body);
}

export interface ListOffsetsV0Partition {
  topic: string | null;
  partition: number;
  errorCode: number;
  oldStyleOffsets: bigint[];
}

export function parseListOffsetsV0Response(frame: Buffer): { correlationId: number; partitions: ListOffsetsV0Partition[] } {
  const i = new In(frame);
  const correlationId = i.int32();
  const partitions: ListOffsetsV0Partition[] = [];
  i.array((t) => {
    const topic = t.string();
    t.array((p) => {
      const partition = p.int32();
      const errorCode = p.int16();
      const oldStyleOffsets = p.array((o) => o.int64()) ?? [];
      partitions.push({ topic, partition, errorCode, oldStyleOffsets });
    });
  });
  if (i.position !== frame.length) throw new Error(`ListOffsets v0 response has ${frame.length - i.position} trailing bytes`);
  return { correlationId, partitions };
}

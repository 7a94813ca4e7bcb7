/**
 * MirrorMaker 2's internal record formats, byte for byte, so a Kafka MM2
 * reading our topics (or the other way round) understands them. Each is a
 * Kafka protocol "struct": fields in order, STRING as int16 length + UTF-8,
 * INT16/INT32/INT64 big-endian, no tags.
 *
 * - OffsetSync (`mm2-offset-syncs.<target>.internal`): key {topic STRING,
 *   partition INT32}, value {upstreamOffset INT64, offset INT64}.
 * - Checkpoint (`<source>.checkpoints.internal`): key {group STRING, topic
 *   STRING, partition INT32}, value {version INT16 = 0} then
 *   {upstreamOffset INT64, offset INT64, metadata STRING}.
 * - Heartbeat (`heartbeats`): key {sourceClusterAlias STRING,
 *   targetClusterAlias STRING}, value {version INT16 = 0} then
 *   {timestamp INT64}.
 *
 * Bytes from a topic are validated: a short or malformed record throws
 * MirrorFormatError, never reads past the buffer.
 */
export class MirrorFormatError extends Error {
  override readonly name = 'MirrorFormatError';
}

export interface OffsetSync {
  topic: string;
  partition: number;
  upstreamOffset: bigint;
  downstreamOffset: bigint;
}

export interface Checkpoint {
  group: string;
  /** The topic on the target cluster (renamed by the replication policy). */
  topic: string;
  partition: number;
  upstreamOffset: bigint;
  downstreamOffset: bigint;
  metadata: string;
}

export interface Heartbeat {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  timestamp: bigint;
}

const VERSION = 0;

/** Appends struct fields to a growing list of chunks. */
class StructWriter {
  private readonly parts: Buffer[] = [];

  string(s: string): this {
    const bytes = Buffer.from(s, 'utf8');
    if (bytes.length > 0x7fff) throw new MirrorFormatError(`string of ${bytes.length} bytes is too long for a STRING field`);
    const len = Buffer.alloc(2);
    len.writeInt16BE(bytes.length);
    this.parts.push(len, bytes);
    return this;
  }

  int16(n: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    this.parts.push(b);
    return this;
  }

  int32(n: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    this.parts.push(b);
    return this;
  }

  int64(n: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(n);
    this.parts.push(b);
    return this;
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Reads struct fields, checking every length against the buffer. */
class StructReader {
  private at = 0;
  constructor(private readonly buf: Buffer, private readonly what: string) {}

  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new MirrorFormatError(`${this.what}: record too short (${this.buf.length} bytes)`);
  }

  string(): string {
    this.need(2);
    const len = this.buf.readInt16BE(this.at);
    if (len < 0) throw new MirrorFormatError(`${this.what}: null or negative string length ${len}`);
    this.at += 2;
    this.need(len);
    const s = this.buf.toString('utf8', this.at, this.at + len);
    this.at += len;
    return s;
  }

  int16(): number {
    this.need(2);
    const n = this.buf.readInt16BE(this.at);
    this.at += 2;
    return n;
  }

  int32(): number {
    this.need(4);
    const n = this.buf.readInt32BE(this.at);
    this.at += 4;
    return n;
  }

  int64(): bigint {
    this.need(8);
    const n = this.buf.readBigInt64BE(this.at);
    this.at += 8;
    return n;
  }
}

function present(buf: Buffer | null, what: string): Buffer {
  if (buf === null) throw new MirrorFormatError(`${what}: null key or value`);
  return buf;
}

export function encodeOffsetSync(s: OffsetSync): { key: Buffer; value: Buffer } {
  return {
    key: new StructWriter().string(s.topic).int32(s.partition).done(),
    value: new StructWriter().int64(s.upstreamOffset).int64(s.downstreamOffset).done(),
  };
}

export function decodeOffsetSync(key: Buffer | null, value: Buffer | null): OffsetSync {
  const k = new StructReader(present(key, 'offset sync'), 'offset sync key');
  const v = new StructReader(present(value, 'offset sync'), 'offset sync value');
  const topic = k.string();
  const partition = k.int32();
  return { topic, partition, upstreamOffset: v.int64(), downstreamOffset: v.int64() };
}

export function encodeCheckpoint(c: Checkpoint): { key: Buffer; value: Buffer } {
  return {
    key: new StructWriter().string(c.group).string(c.topic).int32(c.partition).done(),
    value: new StructWriter().int16(VERSION).int64(c.upstreamOffset).int64(c.downstreamOffset).string(c.metadata).done(),
  };
}

export function decodeCheckpoint(key: Buffer | null, value: Buffer | null): Checkpoint {
  const k = new StructReader(present(key, 'checkpoint'), 'checkpoint key');
  const v = new StructReader(present(value, 'checkpoint'), 'checkpoint value');
  const group = k.string();
  const topic = k.string();
  const partition = k.int32();
  const version = v.int16();
  if (version !== VERSION) throw new MirrorFormatError(`checkpoint value version ${version} is not supported (only ${VERSION})`);
  return { group, topic, partition, upstreamOffset: v.int64(), downstreamOffset: v.int64(), metadata: v.string() };
}

export function encodeHeartbeat(h: Heartbeat): { key: Buffer; value: Buffer } {
  return {
    key: new StructWriter().string(h.sourceClusterAlias).string(h.targetClusterAlias).done(),
    value: new StructWriter().int16(VERSION).int64(h.timestamp).done(),
  };
}

export function decodeHeartbeat(key: Buffer | null, value: Buffer | null): Heartbeat {
  const k = new StructReader(present(key, 'heartbeat'), 'heartbeat key');
  const v = new StructReader(present(value, 'heartbeat'), 'heartbeat value');
  const sourceClusterAlias = k.string();
  const targetClusterAlias = k.string();
  const version = v.int16();
  if (version !== VERSION) throw new MirrorFormatError(`heartbeat value version ${version} is not supported (only ${VERSION})`);
  return { sourceClusterAlias, targetClusterAlias, timestamp: v.int64() };
}

/**
 * Connect's embedded group protocol (JoinGroup protocolType "connect"),
 * Kafka's IncrementalCooperativeConnectProtocol, version 1 ("compatible"),
 * in Kafka's struct encoding (big-endian int16/int32/int64, int16-length
 * strings, int32-length nullable bytes, int32-count arrays):
 *
 *   metadata   = version:int16 url:string configOffset:int64 allocation:nullable bytes
 *   allocation = version:int16 [connector:string [task:int32]]
 *   assignment = version:int16 error:int16 leader:string leaderUrl:string configOffset:int64
 *                assigned:[connector:string [task:int32]] revoked:[...] delay:int32
 *
 * A connector itself appears as task -1 in its list (Kafka's CONNECTOR_TASK).
 */
export const CONNECT_PROTOCOL_TYPE = 'connect';
export const COMPATIBLE_PROTOCOL = 'compatible';
const VERSION = 1;
const CONNECTOR_TASK = -1;
/** A worker's config offset was behind the leader's (Kafka's CONFIG_MISMATCH). */
export const ASSIGNMENT_CONFIG_MISMATCH = 1;

export interface TaskId {
  connector: string;
  task: number;
}

/** Connectors and tasks a worker runs (or is given, or gives up). */
export interface Allocation {
  connectors: string[];
  tasks: TaskId[];
}

export interface WorkerMetadata {
  url: string;
  configOffset: bigint;
  allocation: Allocation | null;
}

export interface ConnectAssignment {
  error: number;
  leader: string;
  leaderUrl: string;
  configOffset: bigint;
  assigned: Allocation;
  revoked: Allocation;
  delayMs: number;
}

export const emptyAllocation = (): Allocation => ({ connectors: [], tasks: [] });

class Writer {
  private readonly parts: Buffer[] = [];
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
  int64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    this.parts.push(b);
    return this;
  }
  string(v: string): this {
    const bytes = Buffer.from(v, 'utf8');
    this.int16(bytes.length);
    this.parts.push(bytes);
    return this;
  }
  bytes(v: Buffer | null): this {
    if (v === null) return this.int32(-1);
    this.int32(v.length);
    this.parts.push(v);
    return this;
  }
  allocation(a: Allocation): this {
    const byConnector = new Map<string, number[]>();
    const list = (c: string): number[] => {
      let l = byConnector.get(c);
      if (l === undefined) byConnector.set(c, (l = []));
      return l;
    };
    for (const c of a.connectors) list(c).push(CONNECTOR_TASK);
    for (const t of a.tasks) list(t.connector).push(t.task);
    this.int32(byConnector.size);
    for (const [connector, ids] of byConnector) {
      this.string(connector).int32(ids.length);
      for (const id of ids) this.int32(id);
    }
    return this;
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

class Reader {
  private position = 0;
  constructor(private readonly buf: Buffer) {}
  private need(n: number): number {
    if (this.position + n > this.buf.length) throw new RangeError('truncated connect protocol message');
    const at = this.position;
    this.position += n;
    return at;
  }
  int16(): number {
    return this.buf.readInt16BE(this.need(2));
  }
  int32(): number {
    return this.buf.readInt32BE(this.need(4));
  }
  int64(): bigint {
    return this.buf.readBigInt64BE(this.need(8));
  }
  string(): string {
    const n = this.int16();
    if (n < 0) throw new RangeError('null string in connect protocol message');
    const at = this.need(n);
    return this.buf.toString('utf8', at, at + n);
  }
  bytes(): Buffer | null {
    const n = this.int32();
    if (n < 0) return null;
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }
  allocation(): Allocation {
    const out = emptyAllocation();
    const count = this.int32();
    for (let i = 0; i < count; i++) {
      const connector = this.string();
      const n = this.int32();
      for (let j = 0; j < n; j++) {
        const task = this.int32();
        if (task === CONNECTOR_TASK) out.connectors.push(connector);
        else out.tasks.push({ connector, task });
      }
    }
    return out;
  }
}

export function encodeMetadata(m: WorkerMetadata): Buffer {
  const allocation = m.allocation === null ? null : new Writer().int16(VERSION).allocation(m.allocation).done();
  return new Writer().int16(VERSION).string(m.url).int64(m.configOffset).bytes(allocation).done();
}

export function decodeMetadata(buf: Buffer): WorkerMetadata {
  const r = new Reader(buf);
  r.int16();
  const url = r.string();
  const configOffset = r.int64();
  // Version 0 members end here.
  const raw = buf.length > 2 + 2 + Buffer.byteLength(url) + 8 ? r.bytes() : null;
  let allocation: Allocation | null = null;
  if (raw !== null) {
    const a = new Reader(raw);
    a.int16();
    allocation = a.allocation();
  }
  return { url, configOffset, allocation };
}

export function encodeAssignment(a: ConnectAssignment): Buffer {
  return new Writer().int16(VERSION).int16(a.error).string(a.leader).string(a.leaderUrl).int64(a.configOffset).allocation(a.assigned).allocation(a.revoked).int32(a.delayMs).done();
}

export function decodeAssignment(buf: Buffer): ConnectAssignment {
  const r = new Reader(buf);
  r.int16();
  return { error: r.int16(), leader: r.string(), leaderUrl: r.string(), configOffset: r.int64(), assigned: r.allocation(), revoked: r.allocation(), delayMs: r.int32() };
}

export const taskKey = (t: TaskId): string => `${t.connector}-${t.task}`;

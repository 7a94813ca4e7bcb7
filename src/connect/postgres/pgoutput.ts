/**
 * The logical replication stream, decoded: the CopyBoth messages of
 * START_REPLICATION (XLogData 'w', primary keepalive 'k'), the standby
 * status update 'r' we send back, and the messages of the `pgoutput` plugin
 * in protocol version 1 (Begin, Commit, Origin, Relation, Type, Insert,
 * Update, Delete, Truncate, Message), as documented in the PostgreSQL
 * manual's "Streaming Replication Protocol" and "Logical Replication Message
 * Formats" chapters. Pure functions over Buffers, no I/O.
 *
 * LSNs are bigints; timestamps on the wire are microseconds since
 * 2000-01-01 and are returned as microseconds since 1970-01-01.
 */

/** Microseconds between 1970-01-01 and PostgreSQL's epoch 2000-01-01. */
export const PG_EPOCH_OFFSET_US = 946_684_800_000_000n;

/** `X/Y` text of an LSN. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The LSN of an `X/Y` text. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (m === null) throw new Error(`not an LSN: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** A message of the CopyBoth stream: WAL data (one pgoutput message) or a keepalive. */
export type StreamMessage = { kind: 'xlog'; walStart: bigint; walEnd: bigint; sendTimeUs: bigint; data: Buffer } | { kind: 'keepalive'; walEnd: bigint; sendTimeUs: bigint; replyRequested: boolean };

/** Decodes one CopyData payload of the replication stream. */
export function decodeStreamMessage(buf: Buffer): StreamMessage {
  const tag = buf[0];
  if (tag === 0x77 /* w */) {
    return { kind: 'xlog', walStart: buf.readBigUInt64BE(1), walEnd: buf.readBigUInt64BE(9), sendTimeUs: buf.readBigInt64BE(17) + PG_EPOCH_OFFSET_US, data: buf.subarray(25) };
  }
  if (tag === 0x6b /* k */) {
    return { kind: 'keepalive', walEnd: buf.readBigUInt64BE(1), sendTimeUs: buf.readBigInt64BE(9) + PG_EPOCH_OFFSET_US, replyRequested: buf[17] === 1 };
  }
  throw new Error(`unknown replication stream message type 0x${(tag ?? 0).toString(16)}`);
}

/** The standby status update 'r': written, flushed and applied LSNs (all `lsn`), the clock, and whether a reply is wanted. */
export function encodeStandbyStatus(lsn: bigint, nowUs: bigint, replyRequested = false): Buffer {
  const b = Buffer.alloc(34);
  b[0] = 0x72; // r
  b.writeBigUInt64BE(lsn, 1);
  b.writeBigUInt64BE(lsn, 9);
  b.writeBigUInt64BE(lsn, 17);
  b.writeBigInt64BE(nowUs - PG_EPOCH_OFFSET_US, 25);
  b[33] = replyRequested ? 1 : 0;
  return b;
}

export interface RelationColumn {
  name: string;
  typeOid: number;
  typmod: number;
  /** Part of the replica identity (the primary key by default). */
  isKey: boolean;
}

/** A tuple's column values: text, null, or unchanged TOAST (not sent). */
export type TupleValue = { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'unchanged' } | { kind: 'binary'; bytes: Buffer };

export type PgOutputMessage =
  | { tag: 'begin'; finalLsn: bigint; commitTimeUs: bigint; xid: number }
  | { tag: 'commit'; flags: number; commitLsn: bigint; endLsn: bigint; commitTimeUs: bigint }
  | { tag: 'origin'; lsn: bigint; name: string }
  | { tag: 'relation'; relationId: number; namespace: string; name: string; replicaIdentity: string; columns: RelationColumn[] }
  | { tag: 'type'; typeOid: number; namespace: string; name: string }
  | { tag: 'insert'; relationId: number; newTuple: TupleValue[] }
  | { tag: 'update'; relationId: number; keyTuple: TupleValue[] | null; oldTuple: TupleValue[] | null; newTuple: TupleValue[] }
  | { tag: 'delete'; relationId: number; keyTuple: TupleValue[] | null; oldTuple: TupleValue[] | null }
  | { tag: 'truncate'; cascade: boolean; restartIdentity: boolean; relationIds: number[] }
  | { tag: 'message'; transactional: boolean; lsn: bigint; prefix: string; content: Buffer };

/** A cursor over one message's bytes. */
class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  u8(): number {
    const v = this.buf.readUInt8(this.pos);
    this.pos += 1;
    return v;
  }
  i16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  i32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  u32(): number {
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  i64(): bigint {
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  /** A NUL-terminated string. */
  cstring(): string {
    const end = this.buf.indexOf(0, this.pos);
    if (end < 0) throw new Error('pgoutput: unterminated string');
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end + 1;
    return s;
  }
  bytes(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw new Error('pgoutput: message shorter than its lengths say');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  tuple(): TupleValue[] {
    const n = this.i16();
    const out: TupleValue[] = [];
    for (let i = 0; i < n; i++) {
      const kind = String.fromCharCode(this.u8());
      if (kind === 'n') out.push({ kind: 'null' });
      else if (kind === 'u') out.push({ kind: 'unchanged' });
      else if (kind === 't') out.push({ kind: 'text', text: this.bytes(this.i32()).toString('utf8') });
      else if (kind === 'b') out.push({ kind: 'binary', bytes: Buffer.from(this.bytes(this.i32())) });
      else throw new Error(`pgoutput: unknown tuple column kind '${kind}'`);
    }
    return out;
  }
}

function decodeRelation(r: Reader): PgOutputMessage {
  const relationId = r.u32();
  const namespace = r.cstring();
  const name = r.cstring();
  const replicaIdentity = String.fromCharCode(r.u8());
  const n = r.i16();
  const columns: RelationColumn[] = [];
  for (let i = 0; i < n; i++) {
    const flags = r.u8();
    columns.push({ name: r.cstring(), typeOid: r.u32(), typmod: r.i32(), isKey: (flags & 1) === 1 });
  }
  return { tag: 'relation', relationId, namespace: namespace === '' ? 'pg_catalog' : namespace, name, replicaIdentity, columns };
}

/** The optional 'K' (key) or 'O' (old row) tuple of an Update or Delete, then the tag that follows. */
function oldTuples(r: Reader, first: string): { keyTuple: TupleValue[] | null; oldTuple: TupleValue[] | null; next: string | null } {
  if (first === 'K') return { keyTuple: r.tuple(), oldTuple: null, next: null };
  if (first === 'O') return { keyTuple: null, oldTuple: r.tuple(), next: null };
  return { keyTuple: null, oldTuple: null, next: first };
}

/** Decodes one pgoutput message (the data of an XLogData). */
export function decodePgOutput(buf: Buffer): PgOutputMessage {
  const r = new Reader(buf);
  const tag = String.fromCharCode(r.u8());
  switch (tag) {
    case 'B':
      return { tag: 'begin', finalLsn: r.u64(), commitTimeUs: r.i64() + PG_EPOCH_OFFSET_US, xid: r.u32() };
    case 'C':
      return { tag: 'commit', flags: r.u8(), commitLsn: r.u64(), endLsn: r.u64(), commitTimeUs: r.i64() + PG_EPOCH_OFFSET_US };
    case 'O':
      return { tag: 'origin', lsn: r.u64(), name: r.cstring() };
    case 'R':
      return decodeRelation(r);
    case 'Y':
      return { tag: 'type', typeOid: r.u32(), namespace: r.cstring(), name: r.cstring() };
    case 'I': {
      const relationId = r.u32();
      const n = String.fromCharCode(r.u8());
      if (n !== 'N') throw new Error(`pgoutput: Insert without a new tuple ('${n}')`);
      return { tag: 'insert', relationId, newTuple: r.tuple() };
    }
    case 'U': {
      const relationId = r.u32();
      const old = oldTuples(r, String.fromCharCode(r.u8()));
      const n = old.next ?? String.fromCharCode(r.u8());
      if (n !== 'N') throw new Error(`pgoutput: Update without a new tuple ('${n}')`);
      return { tag: 'update', relationId, keyTuple: old.keyTuple, oldTuple: old.oldTuple, newTuple: r.tuple() };
    }
    case 'D': {
      const relationId = r.u32();
      const old = oldTuples(r, String.fromCharCode(r.u8()));
      return { tag: 'delete', relationId, keyTuple: old.keyTuple, oldTuple: old.oldTuple };
    }
    case 'T': {
      const n = r.u32();
      const options = r.u8();
      const relationIds = Array.from({ length: n }, () => r.u32());
      return { tag: 'truncate', cascade: (options & 1) !== 0, restartIdentity: (options & 2) !== 0, relationIds };
    }
    case 'M': {
      const flags = r.u8();
      const lsn = r.u64();
      const prefix = r.cstring();
      return { tag: 'message', transactional: (flags & 1) !== 0, lsn, prefix, content: Buffer.from(r.bytes(r.u32())) };
    }
    default:
      throw new Error(`pgoutput: unknown message type '${tag}'`);
  }
}

/**
 * The stores of a stream-stream join (Kafka's join window stores with
 * retained duplicates and the shared outer-join store):
 *
 * - `JoinWindowBuffer`: every record of one side, keyed
 *   `<key><timestamp: int64 BE><seq: int32 BE>` so the records of a key are
 *   adjacent, time-ordered, and two records of one key and time both stay.
 * - `OuterJoinBuffer`: the records of a left/outer join that found no
 *   partner yet, keyed `<timestamp><side: 0 left, 1 right><key><seq>` so the
 *   oldest come first when their windows close.
 *
 * Both log every change to their changelog. The sequence number restarts
 * after the largest one restored, so duplicates never overwrite each other.
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { Retention } from './retention.js';
import { changelogTopic, type StateStore, type StateStoreContext } from './store.js';

/** A buffered record of a join side. */
export interface BufferedRecord<V> {
  timestamp: number;
  value: V;
}

/** The bytes-level half both join stores share: open, log, restore, sequence numbers. */
class LoggedBytes implements StateStore {
  readonly name: string;
  readonly persistent: boolean;
  readonly inner: BytesStore;
  topic: string;
  private context: StateStoreContext | null = null;
  private seq = 0;

  constructor(
    supplier: BytesStoreSupplier,
    private readonly logging: boolean,
    private readonly onInit: (context: StateStoreContext) => void,
    readonly retention: Retention | null = null,
  ) {
    this.name = supplier.name;
    this.persistent = supplier.persistent;
    this.inner = supplier.get();
    this.topic = supplier.name;
  }

  /** Opens the store for a task (restoration from the changelog happens before processing). */
  init(context: StateStoreContext): void {
    this.context = context;
    this.topic = changelogTopic(context.applicationId, this.name);
    this.onInit(context);
    if (this.inner.open(context.stateDir)) context.reportWiped(this.name);
    context.registerRestore(this.name, (key, value) => {
      if (key.length >= 4) this.seq = Math.max(this.seq, key.readUInt32BE(key.length - 4) + 1);
      if (value === null) this.inner.delete(key);
      else this.inner.put(key, value);
      this.retention?.track(key, value === null);
    });
    for (const [key] of this.inner.range(null, null)) {
      this.seq = Math.max(this.seq, key.readUInt32BE(key.length - 4) + 1);
      this.retention?.track(key, false);
    }
  }

  /** Deletes (and logs the deletion of) every record past retention. */
  expire(): void {
    if (this.retention !== null) for (const key of this.retention.takeExpired()) this.write(key, null, false);
  }

  nextSeq(): number {
    this.seq = (this.seq + 1) % 0x1_0000_0000;
    return this.seq;
  }

  write(key: Buffer, value: Buffer | null, track = true): void {
    if (value === null) this.inner.delete(key);
    else this.inner.put(key, value);
    if (track) this.retention?.track(key, value === null);
    if (this.logging) this.open().logChange(this.name, key, value);
  }

  open(): StateStoreContext {
    if (this.context === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open`);
    return this.context;
  }

  flush(): void {
    this.inner.flush();
  }

  close(): void {
    this.inner.close();
    this.context = null;
  }
}

function serializeKey<K>(serde: Serde<K>, topic: string, key: K, store: string): Buffer {
  const bytes = serde.serialize(topic, key);
  if (bytes === null) throw new StreamsError(StreamsErrorCode.STORE, `join store '${store}' does not take null keys`);
  return bytes;
}

function int64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

function int32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
}

/** The timestamp of a join buffer key `<key><timestamp><seq>`. */
const recordTimeOf = (key: Buffer): number => Number(key.readBigInt64BE(key.length - 12));

/**
 * All the records of one side of a join, by key and time. With a retention
 * (the join window plus grace), records that no later record can join any
 * more are deleted as time passes, so the buffer stays bounded.
 */
export class JoinWindowBuffer<K, V> implements StateStore {
  private readonly bytes: LoggedBytes;

  constructor(
    supplier: BytesStoreSupplier,
    private keySerde: Serde<K> | undefined,
    private valueSerde: Serde<V> | undefined,
    logging: boolean,
    retentionMs: number | null = null,
  ) {
    const retention = retentionMs === null ? null : new Retention(retentionMs, recordTimeOf);
    this.bytes = new LoggedBytes(supplier, logging, (c) => {
      this.keySerde ??= c.defaultKeySerde as Serde<K>;
      this.valueSerde ??= c.defaultValueSerde as Serde<V>;
    }, retention);
  }

  /** The number of records held. */
  approximateNumEntries(): number {
    return this.bytes.retention?.size ?? this.bytes.inner.size();
  }

  /** The store's name (its changelog is `<applicationId>-<name>-changelog`). */
  get name(): string {
    return this.bytes.name;
  }

  /** Whether the records are kept on disk (LMDB) rather than in memory. */
  get persistent(): boolean {
    return this.bytes.persistent;
  }

  /** Opens the store for a task (restoration from the changelog happens before processing). */
  init(context: StateStoreContext): void {
    this.bytes.init(context);
  }

  /** Adds a record (a second one of the same key and time is kept beside the first); then drops what is past retention. */
  put(key: K, timestamp: number, value: V): void {
    if (this.bytes.retention?.isExpired(timestamp) === true) return;
    const k = serializeKey(this.keySerde as Serde<K>, this.bytes.topic, key, this.name);
    this.bytes.write(Buffer.concat([k, int64(timestamp), int32(this.bytes.nextSeq())]), (this.valueSerde as Serde<V>).serialize(this.bytes.topic, value));
    this.bytes.expire();
  }

  /** The records of `key` with a timestamp in [from, to], oldest first. */
  fetch(key: K, from: number, to: number): BufferedRecord<V>[] {
    this.bytes.open();
    const k = serializeKey(this.keySerde as Serde<K>, this.bytes.topic, key, this.name);
    const lo = Buffer.concat([k, int64(Math.max(0, from, this.bytes.retention?.earliestMs ?? 0)), int32(0)]);
    const hi = Buffer.concat([k, int64(to), int32(0xffff_ffff)]);
    return this.bytes.inner
      .range(lo, hi)
      .filter(([b]) => b.length === k.length + 12 && b.subarray(0, k.length).equals(k))
      .map(([b, v]) => ({ timestamp: Number(b.readBigInt64BE(k.length)), value: (this.valueSerde as Serde<V>).deserialize(this.bytes.topic, v) as V }));
  }

  /** Writes what is buffered (called on commit). */
  flush(): void {
    this.bytes.flush();
  }

  /** Closes the store with its task. */
  close(): void {
    this.bytes.close();
  }
}

/** A record of a left/outer join still waiting for a partner. */
export interface UnjoinedRecord<K, VL, VR> {
  timestamp: number;
  key: K;
  side: 'left' | 'right';
  value: VL | VR;
}

/** The records of a left/outer join without a partner yet, oldest first. */
export class OuterJoinBuffer<K, VL, VR> implements StateStore {
  private readonly bytes: LoggedBytes;

  constructor(
    supplier: BytesStoreSupplier,
    private keySerde: Serde<K> | undefined,
    private leftSerde: Serde<VL> | undefined,
    private rightSerde: Serde<VR> | undefined,
    logging: boolean,
  ) {
    this.bytes = new LoggedBytes(supplier, logging, (c) => {
      this.keySerde ??= c.defaultKeySerde as Serde<K>;
      this.leftSerde ??= c.defaultValueSerde as Serde<VL>;
      this.rightSerde ??= c.defaultValueSerde as Serde<VR>;
    });
  }

  /** The store's name (its changelog is `<applicationId>-<name>-changelog`). */
  get name(): string {
    return this.bytes.name;
  }

  /** Whether the records are kept on disk (LMDB) rather than in memory. */
  get persistent(): boolean {
    return this.bytes.persistent;
  }

  /** Opens the store for a task (restoration from the changelog happens before processing). */
  init(context: StateStoreContext): void {
    this.bytes.init(context);
  }

  /** Buffers a record of `side` that found no partner. */
  put(side: 'left' | 'right', key: K, timestamp: number, value: VL | VR): void {
    const serde = (side === 'left' ? this.leftSerde : this.rightSerde) as Serde<VL | VR>;
    this.bytes.write(Buffer.concat([this.prefix(side, key, timestamp), int32(this.bytes.nextSeq())]), serde.serialize(this.bytes.topic, value));
  }

  /** Forgets the buffered records of `side`, `key` and `timestamp` (they found a partner). */
  remove(side: 'left' | 'right', key: K, timestamp: number): void {
    const p = this.prefix(side, key, timestamp);
    for (const [k] of this.bytes.inner.range(p, Buffer.concat([p, int32(0xffff_ffff)]))) if (k.length === p.length + 4) this.bytes.write(k, null);
  }

  /** Removes and returns, oldest first, the buffered records for which `closed` holds, stopping at the first that is not. */
  takeClosed(closed: (r: UnjoinedRecord<K, VL, VR>) => boolean): UnjoinedRecord<K, VL, VR>[] {
    this.bytes.open();
    const out: UnjoinedRecord<K, VL, VR>[] = [];
    for (const [k, v] of this.bytes.inner.range(null, null)) {
      const side = k[8] === 0 ? 'left' : 'right';
      const serde = (side === 'left' ? this.leftSerde : this.rightSerde) as Serde<VL | VR>;
      const key = (this.keySerde as Serde<K>).deserialize(this.bytes.topic, k.subarray(9, k.length - 4)) as K;
      const record = { timestamp: Number(k.readBigInt64BE(0)), key, side, value: serde.deserialize(this.bytes.topic, v) as VL | VR } as const;
      if (!closed(record)) break;
      this.bytes.write(k, null);
      out.push(record);
    }
    return out;
  }

  /** Writes what is buffered (called on commit). */
  flush(): void {
    this.bytes.flush();
  }

  /** Closes the store with its task. */
  close(): void {
    this.bytes.close();
  }

  private prefix(side: 'left' | 'right', key: K, timestamp: number): Buffer {
    this.bytes.open();
    return Buffer.concat([int64(timestamp), Buffer.from([side === 'left' ? 0 : 1]), serializeKey(this.keySerde as Serde<K>, this.bytes.topic, key, this.name)]);
  }
}

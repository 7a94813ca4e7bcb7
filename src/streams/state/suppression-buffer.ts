/**
 * The buffer of `suppress(untilWindowCloses)` (Kafka's in-memory
 * time-ordered buffer with its changelog): the latest update of each
 * windowed key, in memory, every put and every eviction logged to
 * `<applicationId>-<store>-changelog`, so a restarted or moved task gets
 * back the results it had not emitted yet.
 *
 * Changelog key: `[window end int64][window start int64][key bytes]`;
 * value: `[record timestamp int64][value bytes]` (a tombstone when the entry
 * left the buffer).
 */
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { Serde } from '../serdes.js';
import { changelogTopic, type StateStore, type StateStoreContext } from './store.js';

/** A buffered update: the window's key and bounds, the value and its record time. */
export interface BufferedUpdate {
  key: unknown;
  start: number;
  end: number;
  value: unknown;
  timestamp: number;
}

export class SuppressionBuffer implements StateStore {
  readonly persistent = false;
  private readonly entries = new Map<string, BufferedUpdate & { bytes: Buffer }>();
  private context: StateStoreContext | null = null;
  private topic: string;
  /** The smallest window end buffered (Infinity when empty): nothing is due before it. */
  private minEndMs = Infinity;

  constructor(
    readonly name: string,
    private keySerde: Serde<unknown> | undefined,
    private valueSerde: Serde<unknown> | undefined,
    private readonly logging: boolean,
  ) {
    this.topic = name;
  }

  init(context: StateStoreContext): void {
    this.context = context;
    this.keySerde ??= context.defaultKeySerde;
    this.valueSerde ??= context.defaultValueSerde;
    this.topic = changelogTopic(context.applicationId, this.name);
    context.registerRestore(this.name, (key, value) => this.restore(key, value));
  }

  /** Buffers the latest update of a window (replacing the one before). */
  put(update: BufferedUpdate): void {
    const bytes = this.encodeKey(update.key, update.start, update.end);
    this.entries.set(bytes.toString('latin1'), { ...update, bytes });
    if (update.end < this.minEndMs) this.minEndMs = update.end;
    if (!this.logging) return;
    const value = this.serdes()[1].serialize(this.topic, update.value) ?? Buffer.alloc(0);
    const out = Buffer.allocUnsafe(8 + value.length);
    out.writeBigInt64BE(BigInt(update.timestamp), 0);
    value.copy(out, 8);
    this.open().logChange(this.name, bytes, out, update.timestamp);
  }

  /** Drops a window's update (a session merged away). */
  delete(key: unknown, start: number, end: number): void {
    const bytes = this.encodeKey(key, start, end);
    if (this.entries.delete(bytes.toString('latin1')) && this.logging) this.open().logChange(this.name, bytes, null);
  }

  /** Removes and returns, earliest end first, the updates whose window end + grace is at or before `streamTimeMs`. */
  takeDue(streamTimeMs: number, graceMs: number): BufferedUpdate[] {
    if (this.minEndMs + graceMs > streamTimeMs) return [];
    const due: (BufferedUpdate & { bytes: Buffer })[] = [];
    let minEnd = Infinity;
    for (const e of this.entries.values()) {
      if (e.end + graceMs <= streamTimeMs) due.push(e);
      else if (e.end < minEnd) minEnd = e.end;
    }
    this.minEndMs = minEnd;
    due.sort((a, b) => a.end - b.end || a.start - b.start);
    for (const e of due) {
      this.entries.delete(e.bytes.toString('latin1'));
      if (this.logging) this.open().logChange(this.name, e.bytes, null);
    }
    return due;
  }

  get size(): number {
    return this.entries.size;
  }

  flush(): void {}

  close(): void {
    this.entries.clear();
    this.context = null;
  }

  private restore(key: Buffer, value: Buffer | null): void {
    const id = key.toString('latin1');
    if (value === null) return void this.entries.delete(id);
    if (key.length < 16 || value.length < 8) throw new StreamsError(StreamsErrorCode.STORE, `corrupt record in the changelog of suppression buffer '${this.name}'`);
    const [keySerde, valueSerde] = this.serdes();
    const end = Number(key.readBigInt64BE(0));
    const update = {
      key: keySerde.deserialize(this.topic, key.subarray(16)),
      start: Number(key.readBigInt64BE(8)),
      end,
      value: valueSerde.deserialize(this.topic, value.subarray(8)),
      timestamp: Number(value.readBigInt64BE(0)),
      bytes: Buffer.from(key),
    };
    this.entries.set(id, update);
    if (end < this.minEndMs) this.minEndMs = end;
  }

  private encodeKey(key: unknown, start: number, end: number): Buffer {
    const k = this.serdes()[0].serialize(this.topic, key);
    if (k === null) throw new StreamsError(StreamsErrorCode.STORE, `suppression buffer '${this.name}' does not take null keys`);
    const out = Buffer.allocUnsafe(16 + k.length);
    out.writeBigInt64BE(BigInt(end), 0);
    out.writeBigInt64BE(BigInt(start), 8);
    k.copy(out, 16);
    return out;
  }

  private serdes(): [Serde<unknown>, Serde<unknown>] {
    this.open();
    return [this.keySerde as Serde<unknown>, this.valueSerde as Serde<unknown>];
  }

  private open(): StateStoreContext {
    if (this.context === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open`);
    return this.context;
  }
}

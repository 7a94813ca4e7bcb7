/**
 * Byte-level key-value stores: the layer under the typed stores, ordered by
 * key bytes (as Kafka's RocksDB stores are). The in-memory one keeps a Map
 * keyed by the key bytes as a latin1 string, whose code units compare as the
 * bytes do, and sorts on range queries.
 */

/** A key-value store of bytes. */
export interface BytesStore {
  readonly persistent: boolean;
  /** Opens the store; `dir` is where a persistent one keeps its files. Returns true if unreadable files were wiped. */
  open(dir: string | null): boolean;
  get(key: Buffer): Buffer | undefined;
  put(key: Buffer, value: Buffer): void;
  delete(key: Buffer): void;
  /** Entries with from <= key <= to (null: open), in byte order. */
  range(from: Buffer | null, to: Buffer | null): [Buffer, Buffer][];
  size(): number;
  flush(): void;
  close(): void;
}

/** Makes the bytes store of a named store (one per task). */
export interface BytesStoreSupplier {
  readonly name: string;
  readonly persistent: boolean;
  get(): BytesStore;
}

/** Bytes kept in a Map; lost when the task closes (rebuilt from the changelog). */
export class InMemoryBytesStore implements BytesStore {
  readonly persistent = false;
  private readonly map = new Map<string, [Buffer, Buffer]>();

  open(): boolean {
    return false;
  }

  get(key: Buffer): Buffer | undefined {
    return this.map.get(key.toString('latin1'))?.[1];
  }

  put(key: Buffer, value: Buffer): void {
    this.map.set(key.toString('latin1'), [Buffer.from(key), value]);
  }

  delete(key: Buffer): void {
    this.map.delete(key.toString('latin1'));
  }

  range(from: Buffer | null, to: Buffer | null): [Buffer, Buffer][] {
    const lo = from === null ? null : from.toString('latin1');
    const hi = to === null ? null : to.toString('latin1');
    const keys = [...this.map.keys()].filter((k) => (lo === null || k >= lo) && (hi === null || k <= hi)).sort();
    return keys.map((k) => this.map.get(k) as [Buffer, Buffer]);
  }

  size(): number {
    return this.map.size;
  }

  flush(): void {}

  close(): void {
    this.map.clear();
  }
}

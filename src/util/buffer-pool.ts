/**
 * A pool of large Buffers whose end of use is known, so that their memory is
 * reused instead of allocated afresh.
 *
 * Why: a fresh Buffer of a megabyte comes from newly mapped memory, and every
 * 4 KiB page of it faults on first touch. Reading a 1 MiB fetch response from
 * the page cache into a fresh Buffer measured ~2.4 ms here against ~0.06 ms
 * into a reused one, and the freed buffers kept the garbage collector busy
 * (bench/README.md, "Consumer: the broker's read buffers").
 *
 * Buffers are handed out in capacity classes (powers of two and the quarter
 * steps between them, so a slab wastes at most a fifth) between `minBytes`
 * and `maxBytes`; a request outside that range gets a plain Buffer that
 * `release` ignores. `acquire(n)` returns a view of exactly n bytes at the
 * start of a pooled slab. `release` takes that view (or any view starting at
 * the slab's first byte) back; releasing a Buffer the pool did not lend, or
 * one already released, does nothing, so a missed or repeated release never
 * corrupts another user's data: a missed one only costs a fresh allocation.
 * At most `retainBytes` of free slabs are kept; the rest are left to the GC.
 */
export interface BufferPoolOptions {
  /** Smallest length pooled (smaller requests get plain Buffers). */
  minBytes: number;
  /** Largest length pooled (larger requests get plain Buffers). */
  maxBytes: number;
  /** Free slabs kept for reuse, in bytes. */
  retainBytes: number;
}

export interface BufferPoolStats {
  /** Buffers handed out from a free slab. */
  reused: number;
  /** Buffers handed out from a newly allocated slab. */
  allocated: number;
  /** Slabs released and kept. */
  released: number;
  /** Bytes of free slabs kept now. */
  retainedBytes: number;
}

export class BufferPool {
  /** Free slabs by capacity (see capacityFor). */
  private readonly free = new Map<number, ArrayBuffer[]>();
  /** Slabs lent and not yet released; weak, so a never-released slab is still collected. */
  private readonly lent = new WeakSet<ArrayBuffer>();
  private retained = 0;
  private reusedCount = 0;
  private allocatedCount = 0;
  private releasedCount = 0;

  constructor(readonly options: BufferPoolOptions) {
    if (!(options.minBytes > 0 && options.minBytes <= options.maxBytes)) {
      throw new RangeError(`BufferPool: need 0 < minBytes <= maxBytes, got ${options.minBytes} and ${options.maxBytes}`);
    }
  }

  /** `acquire` as a function value (e.g. a storage read's allocator). */
  readonly allocate = (length: number): Buffer => this.acquire(length);

  /** `release` as a function value, made once (a Fetch passes it with every read). */
  readonly releaseFn = (buf: Buffer): void => this.release(buf);

  /** A Buffer of exactly `length` bytes, uninitialised (as Buffer.allocUnsafe). */
  acquire(length: number): Buffer {
    if (length < this.options.minBytes || length > this.options.maxBytes) return Buffer.allocUnsafe(length);
    const capacity = capacityFor(length);
    let slab = this.free.get(capacity)?.pop();
    if (slab !== undefined) {
      this.retained -= capacity;
      this.reusedCount++;
    } else {
      this.allocatedCount++;
      // allocUnsafeSlow: a slab of its own (byteOffset 0, byteLength = capacity), never Node's shared 8 KiB pool.
      slab = Buffer.allocUnsafeSlow(capacity).buffer as ArrayBuffer;
    }
    this.lent.add(slab);
    return Buffer.from(slab, 0, length);
  }

  /** Gives back a Buffer from `acquire` once nothing reads or writes it any more. */
  release(buf: Buffer): void {
    const ab = buf.buffer;
    if (buf.byteOffset !== 0 || !(ab instanceof ArrayBuffer) || !this.lent.has(ab)) return;
    this.lent.delete(ab);
    const capacity = ab.byteLength;
    if (this.retained + capacity > this.options.retainBytes) return;
    const list = this.free.get(capacity);
    if (list === undefined) this.free.set(capacity, [ab]);
    else list.push(ab);
    this.retained += capacity;
    this.releasedCount++;
  }

  stats(): BufferPoolStats {
    return { reused: this.reusedCount, allocated: this.allocatedCount, released: this.releasedCount, retainedBytes: this.retained };
  }
}

/** The smallest capacity class >= n: 2^k, or 2^k plus a whole number of quarters of 2^k (1 <= n < 2^31). */
export function capacityFor(n: number): number {
  const base = 2 ** (31 - Math.clz32(n));
  if (n === base || base < 4) return n === base ? n : base * 2;
  const quarter = base / 4;
  return base + Math.ceil((n - base) / quarter) * quarter;
}

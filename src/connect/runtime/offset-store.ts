/**
 * Source offsets: where each source partition of each connector is. The
 * standalone worker keeps them in `offset.storage.file.filename` as JSON
 * (written to a temporary file, synced and renamed, so a crash leaves the
 * old or the new content, never a torn one). Keys are Kafka's offset-topic
 * key, `["<connector>",<partition>]`, so they read the same in both stores.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import type { SourceOffset, SourcePartition } from '../spi.js';

export interface OffsetEntry {
  partition: SourcePartition;
  offset: SourceOffset | null;
}

export interface OffsetStore {
  get(connector: string, partition: SourcePartition): SourceOffset | null;
  all(connector: string): OffsetEntry[];
  /** Stores and persists the entries (a null offset removes a partition). */
  set(connector: string, entries: readonly OffsetEntry[]): Promise<void>;
}

/** JSON with sorted object keys, so equal partitions give equal keys. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function offsetKey(connector: string, partition: SourcePartition): string {
  return canonicalJson([connector, partition]);
}

/** Offsets kept in memory, optionally persisted to a file. */
export class FileOffsetStore implements OffsetStore {
  private readonly data = new Map<string, SourceOffset>();
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly path: string | null) {
    if (path !== null && existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      const parsed = text.trim() === '' ? {} : (JSON.parse(text) as Record<string, SourceOffset>);
      for (const [k, v] of Object.entries(parsed)) this.data.set(k, v);
    }
  }

  get(connector: string, partition: SourcePartition): SourceOffset | null {
    return this.data.get(offsetKey(connector, partition)) ?? null;
  }

  all(connector: string): OffsetEntry[] {
    const out: OffsetEntry[] = [];
    for (const [k, offset] of this.data) {
      const [name, partition] = JSON.parse(k) as [string, SourcePartition];
      if (name === connector) out.push({ partition, offset });
    }
    return out;
  }

  set(connector: string, entries: readonly OffsetEntry[]): Promise<void> {
    for (const e of entries) {
      const key = offsetKey(connector, e.partition);
      if (e.offset === null) this.data.delete(key);
      else this.data.set(key, e.offset);
    }
    // Writes are chained so an older snapshot never lands after a newer one.
    this.writing = this.writing.then(() => this.persist());
    return this.writing;
  }

  private async persist(): Promise<void> {
    if (this.path === null) return;
    const tmp = `${this.path}.tmp`;
    const f = await open(tmp, 'w');
    try {
      await f.writeFile(JSON.stringify(Object.fromEntries(this.data)));
      await f.sync();
    } finally {
      await f.close();
    }
    await rename(tmp, this.path);
  }
}

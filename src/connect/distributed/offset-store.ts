/**
 * Source offsets in the offset topic (Kafka's KafkaOffsetBackingStore):
 * the key is Kafka's `["<connector>", {<source partition>}]` as JSON, the
 * value the source offset as JSON, a tombstone removes it. Every worker
 * reads the whole topic, so a task that moves to another worker resumes
 * from the last offset its previous owner flushed. Keys are compared in a
 * canonical form (sorted object keys), so keys written with another key
 * order (by Kafka's Java worker) name the same partition.
 */
import type { ConsumerRecord } from '../../client/index.js';
import type { SourceOffset, SourcePartition } from '../spi.js';
import { canonicalJson, offsetKey, type OffsetEntry, type OffsetStore } from '../runtime/offset-store.js';
import { KafkaLog } from './kafka-log.js';

export class KafkaOffsetStore implements OffsetStore {
  private readonly data = new Map<string, { connector: string; partition: SourcePartition; offset: SourceOffset }>();
  readonly log: KafkaLog;

  constructor(options: { bootstrap: string; clientId: string; topic: string; partitions: number; replicationFactor: number }) {
    this.log = new KafkaLog({ ...options, onRecord: (r) => this.apply(r) });
  }

  /** Applies one record of the topic (the log calls it in order; tests feed records directly). */
  apply(r: ConsumerRecord<Buffer | null, Buffer | null>): void {
    if (r.key === null) return;
    let key: unknown;
    let value: unknown = null;
    try {
      key = JSON.parse(r.key.toString('utf8'));
      if (r.value !== null) value = JSON.parse(r.value.toString('utf8'));
    } catch {
      return;
    }
    if (!Array.isArray(key) || typeof key[0] !== 'string' || typeof key[1] !== 'object' || key[1] === null) return;
    const [connector, partition] = key as [string, SourcePartition];
    const k = canonicalJson([connector, partition]);
    if (value === null || typeof value !== 'object') this.data.delete(k);
    else this.data.set(k, { connector, partition, offset: value as SourceOffset });
  }

  get(connector: string, partition: SourcePartition): SourceOffset | null {
    return this.data.get(offsetKey(connector, partition))?.offset ?? null;
  }

  all(connector: string): OffsetEntry[] {
    return [...this.data.values()].filter((e) => e.connector === connector).map((e) => ({ partition: e.partition, offset: e.offset }));
  }

  /** Writes the entries and waits for their acknowledgement; the local view changes at once (a task reads its own writes). */
  async set(connector: string, entries: readonly OffsetEntry[]): Promise<void> {
    const sends: Promise<unknown>[] = [];
    for (const e of entries) {
      const key = offsetKey(connector, e.partition);
      if (e.offset === null) this.data.delete(key);
      else this.data.set(key, { connector, partition: e.partition, offset: e.offset });
      sends.push(this.log.send(key, e.offset === null ? null : Buffer.from(canonicalJson(e.offset), 'utf8')));
    }
    await Promise.all(sends);
  }
}

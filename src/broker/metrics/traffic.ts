/**
 * Per-topic traffic and per-partition error counts, updated by the Produce
 * and Fetch handlers: one map lookup and a few additions per partition of a
 * request, never per record. Read by the Prometheus exporter at scrape time.
 *
 * Records out are not counted: that would mean walking every fetched batch
 * header on the Fetch hot path (Kafka has no MessagesOut metric either).
 */
import { Buffer } from 'node:buffer';
import type { RecordsValue } from '../../protocol/schema.js';

export interface TopicTraffic {
  /** Bytes of record batches appended by Produce (after validation). */
  bytesIn: number;
  /** Records in those batches (the batch headers' record counts). */
  recordsIn: number;
  /** Bytes of record data returned by Fetch. */
  bytesOut: number;
}

/** What the Fetch handler answers, structurally (only what is counted). */
export interface FetchedTopic {
  readonly topic: string;
  readonly partitions: readonly { readonly errorCode: number; readonly records?: RecordsValue | undefined }[];
}

/** What the Produce handler answers, structurally. */
export interface ProducedTopic {
  readonly partitions: readonly { readonly errorCode: number }[];
}

export class TrafficMetrics {
  private readonly topics = new Map<string, TopicTraffic>();
  /** Keyed by apiKey * 65536 + (errorCode + 1): error codes start at -1. */
  private readonly partitionErrorCounts = new Map<number, number>();

  /** A batch was appended to `topic` by Produce. */
  produced(topic: string, bytes: number, records: number): void {
    const t = this.topic(topic);
    t.bytesIn += bytes;
    t.recordsIn += records;
  }

  /** Counts the per-partition error codes of a Produce response. */
  produceAnswered(topics: readonly ProducedTopic[]): void {
    for (const t of topics) for (const p of t.partitions) if (p.errorCode !== 0) this.partitionError(0, p.errorCode);
  }

  /** Counts the bytes and per-partition error codes of a Fetch response. */
  fetchAnswered(topics: readonly FetchedTopic[]): void {
    for (const t of topics) {
      let bytes = 0;
      for (const p of t.partitions) {
        if (p.errorCode !== 0) this.partitionError(1, p.errorCode);
        const r = p.records;
        if (r) bytes += Buffer.isBuffer(r) ? r.length : r.byteLength;
      }
      if (bytes > 0) this.topic(t.topic).bytesOut += bytes;
    }
  }

  partitionError(apiKey: number, errorCode: number): void {
    const k = apiKey * 65536 + errorCode + 1;
    this.partitionErrorCounts.set(k, (this.partitionErrorCounts.get(k) ?? 0) + 1);
  }

  topicTraffic(): ReadonlyMap<string, Readonly<TopicTraffic>> {
    return this.topics;
  }

  /** Per (API key, error code) counts of partition-level errors. */
  *partitionErrors(): IterableIterator<{ apiKey: number; errorCode: number; count: number }> {
    for (const [k, count] of this.partitionErrorCounts) yield { apiKey: Math.floor(k / 65536), errorCode: (k % 65536) - 1, count };
  }

  /** Drops a deleted topic's counters (keeps the label set bounded by the live topics). */
  forgetTopic(topic: string): void {
    this.topics.delete(topic);
  }

  private topic(name: string): TopicTraffic {
    let t = this.topics.get(name);
    if (!t) {
      t = { bytesIn: 0, recordsIn: 0, bytesOut: 0 };
      this.topics.set(name, t);
    }
    return t;
  }
}

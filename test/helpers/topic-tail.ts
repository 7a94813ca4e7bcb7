/**
 * Collects every record of a topic's partition 0 in the background, for
 * tests that watch what a connector writes: `tail.values()` parses them as
 * JSON, `await tail.waitFor(n)` waits (bounded) until n records arrived.
 * The topic is created first (one partition) unless it exists.
 */
import { Admin, Consumer } from '../../src/client/index.js';

export interface TailRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: bigint;
}

export class TopicTail {
  readonly records: TailRecord[] = [];
  private readonly consumer: Consumer<Buffer | null, Buffer | null>;
  private readonly loop: Promise<void>;

  private constructor(bootstrap: string, readonly topic: string) {
    this.consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap });
    this.consumer.assign([{ topic, partition: 0 }]);
    this.consumer.seek({ topic, partition: 0 }, 0);
    this.loop = this.drain().catch(() => undefined);
  }

  private async drain(): Promise<void> {
    for await (const batch of this.consumer.batches()) for (const r of batch.records) this.records.push({ key: r.key, value: r.value, offset: r.offset });
  }

  /** Creates the topic (one partition) if missing and starts reading it from offset 0. */
  static async open(bootstrap: string, topic: string): Promise<TopicTail> {
    const admin = await Admin.connect({ bootstrap });
    try {
      await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
    } finally {
      await admin.close();
    }
    return new TopicTail(bootstrap, topic);
  }

  /** Values parsed as JSON (null for tombstones). */
  values(): unknown[] {
    return this.records.map((r) => (r.value === null ? null : JSON.parse(r.value.toString('utf8'))));
  }

  /** Keys parsed as JSON (null when absent). */
  keys(): unknown[] {
    return this.records.map((r) => (r.key === null ? null : JSON.parse(r.key.toString('utf8'))));
  }

  /** Waits until at least n records arrived; throws after timeoutMs with what did. */
  async waitFor(n: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.records.length < n) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} records on ${this.topic}; got ${this.records.length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    await this.consumer.close();
    await this.loop;
  }
}

/** Polls check until it returns true; throws after timeoutMs. */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

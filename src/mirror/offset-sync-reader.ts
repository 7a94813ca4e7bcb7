/**
 * Feeds an OffsetSyncStore from the offset syncs topic: reads partition 0
 * from the beginning, marks the store read-to-end once it reached the end
 * offset seen at start (before that, translation is refused), then keeps
 * reading new syncs in the background until closed. A malformed record is
 * logged and skipped.
 */
import { Admin, Consumer } from '../client/index.js';
import { OffsetSyncStore } from './offset-sync-store.js';
import { decodeOffsetSync } from './records.js';

export class OffsetSyncReader {
  readonly store = new OffsetSyncStore();
  private consumer: Consumer | null = null;
  private loop: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly bootstrap: string,
    private readonly topic: string,
    private readonly log: (m: string) => void,
  ) {}

  /** Resolves once every sync that existed at start has been read. */
  async start(): Promise<void> {
    const admin = await Admin.connect({ bootstrap: this.bootstrap, clientId: 'mirror-offset-syncs-reader' });
    let end: bigint;
    try {
      end = (await admin.listOffsets(this.topic, 0, 'latest')).offset;
    } finally {
      await admin.close();
    }
    const consumer = new Consumer({ bootstrap: this.bootstrap, clientId: 'mirror-offset-syncs-reader', autoOffsetReset: 'earliest' });
    this.consumer = consumer;
    consumer.assign([{ topic: this.topic, partition: 0 }]);
    let reachedEnd!: () => void;
    const atEnd = new Promise<void>((r) => (reachedEnd = r));
    if (end <= 0n) {
      this.store.markReadToEnd();
      reachedEnd();
    }
    this.loop = (async () => {
      try {
        for await (const batch of consumer.batches()) {
          for (const r of batch.records) this.apply(r.key, r.value);
          const last = batch.records[batch.records.length - 1];
          if (!this.store.isReadToEnd && last !== undefined && last.offset + 1n >= end) {
            this.store.markReadToEnd();
            reachedEnd();
          }
        }
      } catch (err) {
        if (!this.closed) this.log(`reading ${this.topic} stopped: ${(err as Error).message}`);
      }
    })();
    await atEnd;
  }

  private apply(key: Buffer | null, value: Buffer | null): void {
    try {
      const s = decodeOffsetSync(key, value);
      this.store.add(s.topic, s.partition, { upstreamOffset: s.upstreamOffset, downstreamOffset: s.downstreamOffset });
    } catch (err) {
      this.log(`skipping a malformed offset sync in ${this.topic}: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.consumer?.close().catch(() => undefined);
    await this.loop;
  }
}

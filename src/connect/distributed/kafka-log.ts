/**
 * A compacted topic read in full and written to (Kafka's KafkaBasedLog):
 * the config, offset and status stores of the distributed worker each keep
 * their state in one. `start()` creates the topic if it is missing
 * (cleanup.policy=compact, the configured partitions and replication
 * factor), reads it from the beginning and returns once it has reached the
 * end offsets it saw at the start, so a worker never serves from a partial
 * view; afterwards every record (its own writes too) reaches `onRecord` in
 * log order. `readToEnd()` does the same catching up at any later time.
 */
import { Admin, Consumer, Producer, type ConsumerRecord, type RecordMetadata } from '../../client/index.js';

export interface KafkaLogOptions {
  bootstrap: string;
  clientId: string;
  topic: string;
  partitions: number;
  /** -1: the broker's default.replication.factor. */
  replicationFactor: number;
  onRecord(record: ConsumerRecord<Buffer | null, Buffer | null>): void;
}

/** Bound on catching up with the log (Kafka's worker gives up on startup after a timeout too). */
const READ_TO_END_TIMEOUT_MS = 60_000;
const READ_TO_END_POLL_MS = 10;

export class KafkaLog {
  private consumer: Consumer<Buffer | null, Buffer | null> | null = null;
  private producer: Producer<Buffer | null, Buffer | null> | null = null;
  private admin: Admin | null = null;
  private loop: Promise<void> | null = null;
  private partitionCount = 0;
  private failure: unknown = null;

  constructor(private readonly o: KafkaLogOptions) {}

  get topic(): string {
    return this.o.topic;
  }

  async start(): Promise<void> {
    const clusterOptions = { bootstrap: this.o.bootstrap, clientId: this.o.clientId };
    this.admin = await Admin.connect(clusterOptions);
    this.partitionCount = await this.ensureTopic(this.admin);
    this.producer = await Producer.connect<Buffer | null, Buffer | null>({ clusterOptions, acks: -1, lingerMs: 0 });
    const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: this.o.bootstrap, clientId: `${this.o.clientId}-${this.o.topic}`, autoOffsetReset: 'earliest', autoCommit: false });
    this.consumer = consumer;
    consumer.assign(Array.from({ length: this.partitionCount }, (_, partition) => ({ topic: this.o.topic, partition })));
    this.loop = this.read(consumer);
    await this.readToEnd();
  }

  /** Creates the topic when it does not exist; its partition count. */
  private async ensureTopic(admin: Admin): Promise<number> {
    const existing = async (): Promise<number> => {
      const [d] = await admin.describeTopics([this.o.topic]).catch(() => []);
      return d?.partitions.length ?? 0;
    };
    const found = await existing();
    if (found > 0) return found;
    const [created] = await admin.createTopics([{ name: this.o.topic, numPartitions: this.o.partitions, replicationFactor: this.o.replicationFactor, configs: { 'cleanup.policy': 'compact' } }]);
    if (created?.error && created.error.errorName !== 'TOPIC_ALREADY_EXISTS') throw created.error;
    for (let attempt = 0; attempt < 50; attempt++) {
      const n = await existing();
      if (n > 0) return n;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`topic ${this.o.topic} was created but its metadata did not show up`);
  }

  private async read(consumer: Consumer<Buffer | null, Buffer | null>): Promise<void> {
    try {
      for await (const batch of consumer.batches()) {
        // Synchronous on purpose: once a position moved, its records are applied (readToEnd relies on it).
        for (const r of batch.records) this.o.onRecord(r);
      }
    } catch (err) {
      this.failure = err;
    }
  }

  /** Resolves once every record written before the call has been applied. */
  async readToEnd(): Promise<void> {
    const admin = this.admin;
    const consumer = this.consumer;
    if (admin === null || consumer === null) throw new Error(`the log of ${this.o.topic} is not started`);
    const ends = await admin.listOffsets(Array.from({ length: this.partitionCount }, (_, partition) => ({ topic: this.o.topic, partition, spec: 'latest' as const })));
    const deadline = Date.now() + READ_TO_END_TIMEOUT_MS;
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const behind = ends.filter((e) => e.offset > (consumer.position({ topic: e.topic, partition: e.partition }) ?? -1n) && e.offset > 0n);
      if (behind.length === 0) return;
      if (Date.now() > deadline) throw new Error(`timed out reading ${this.o.topic} to its end`);
      await new Promise((r) => setTimeout(r, READ_TO_END_POLL_MS));
    }
  }

  /** Writes a record (null value: a tombstone) and waits for all replicas to have it. */
  async send(key: string, value: Buffer | null): Promise<RecordMetadata> {
    if (this.producer === null) throw new Error(`the log of ${this.o.topic} is not started`);
    return this.producer.send({ topic: this.o.topic, key: Buffer.from(key, 'utf8'), value });
  }

  async stop(): Promise<void> {
    await this.consumer?.close().catch(() => undefined);
    await this.loop;
    await this.producer?.close().catch(() => undefined);
    await this.admin?.close().catch(() => undefined);
    this.consumer = null;
    this.producer = null;
    this.admin = null;
  }
}

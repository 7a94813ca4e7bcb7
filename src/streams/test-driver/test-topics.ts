/**
 * The input and output topics of the TopologyTestDriver (Kafka Streams'
 * `TestInputTopic` and `TestOutputTopic`): they serialize with the serdes you
 * give them, so a test also checks the topology's own serdes.
 */
import type { StreamHeaders } from '../processor/record.js';
import type { Serde } from '../serdes.js';

/** A record read back from an output topic. */
export interface TestRecord<K, V> {
  key: K | null;
  value: V | null;
  timestamp: number;
  headers: StreamHeaders;
}

/** A record the topology wrote, as the driver keeps it: bytes, as a broker holds them (internal). */
export interface DriverRecord {
  topic: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: StreamHeaders;
}

/** How the driver takes a record piped into a topic (internal). */
export type PipeFn = (topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: StreamHeaders) => void;

/** Writes records into a source topic of the tested topology. */
export class TestInputTopic<K, V> {
  private nextTimestampMs: number;

  /** @internal */
  constructor(
    private readonly topic: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly pipe: PipeFn,
    startTimestampMs: number,
    private readonly autoAdvanceMs: number,
  ) {
    this.nextTimestampMs = startTimestampMs;
  }

  /** Pipes one record; without a timestamp it gets the topic's current time (which then advances by autoAdvanceMs). */
  pipeInput(key: K | null, value: V | null, timestampMs?: number, headers: StreamHeaders = []): void {
    const timestamp = timestampMs ?? this.nextTimestamp();
    this.pipe(this.topic, this.keySerde.serialize(this.topic, key), this.valueSerde.serialize(this.topic, value), timestamp, headers);
  }

  /** Pipes values with null keys. */
  pipeValueList(values: readonly (V | null)[]): void {
    for (const v of values) this.pipeInput(null, v);
  }

  /** Pipes key-value pairs. */
  pipeKeyValueList(pairs: readonly { key: K | null; value: V | null }[]): void {
    for (const p of pairs) this.pipeInput(p.key, p.value);
  }

  /** Moves the time given to records piped without a timestamp. */
  advanceTime(ms: number): void {
    this.nextTimestampMs += ms;
  }

  private nextTimestamp(): number {
    const t = this.nextTimestampMs;
    this.nextTimestampMs += this.autoAdvanceMs;
    return t;
  }
}

/** Reads what the tested topology wrote to a topic, oldest first. */
export class TestOutputTopic<K, V> {
  /** @internal */
  constructor(
    private readonly topic: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly queue: DriverRecord[],
  ) {}

  /** The next record (throws when there is none). */
  readRecord(): TestRecord<K, V> {
    const r = this.queue.shift();
    if (r === undefined) throw new Error(`no more records in output topic '${this.topic}'`);
    return { key: this.keySerde.deserialize(this.topic, r.key), value: this.valueSerde.deserialize(this.topic, r.value), timestamp: r.timestamp, headers: r.headers };
  }

  /** The next record's key and value. */
  readKeyValue(): { key: K | null; value: V | null } {
    const { key, value } = this.readRecord();
    return { key, value };
  }

  /** The next record's value. */
  readValue(): V | null {
    return this.readRecord().value;
  }

  /** Every remaining record. */
  readRecordsToList(): TestRecord<K, V>[] {
    const out: TestRecord<K, V>[] = [];
    while (!this.isEmpty()) out.push(this.readRecord());
    return out;
  }

  /** Every remaining key and value. */
  readKeyValuesToList(): { key: K | null; value: V | null }[] {
    return this.readRecordsToList().map(({ key, value }) => ({ key, value }));
  }

  /** Every remaining value. */
  readValuesToList(): (V | null)[] {
    return this.readRecordsToList().map((r) => r.value);
  }

  /** The last value of each key among the remaining records (a null value is kept, as Kafka's does). */
  readKeyValuesToMap(): Map<K, V | null> {
    const out = new Map<K, V | null>();
    for (const r of this.readRecordsToList()) {
      if (r.key === null) throw new Error(`readKeyValuesToMap: a record of '${this.topic}' has a null key`);
      out.set(r.key, r.value);
    }
    return out;
  }

  /** The number of unread records. */
  getQueueSize(): number {
    return this.queue.length;
  }

  /** Whether every record was read. */
  isEmpty(): boolean {
    return this.queue.length === 0;
  }
}

/**
 * Where a task's output goes: sink records (already serialized, topic
 * resolved) and store changelog records. The test driver captures them; the
 * KafkaStreams runtime hands them to its Producer.
 */
import type { StreamHeaders } from '../processor/record.js';

/**
 * A record a sink or a store's changelog writes, serialized, with its final
 * topic name. A string key or value stands for its UTF-8 bytes (what
 * Serdes.String writes), left for the Producer's batch builder to encode
 * without an intermediate Buffer. The shape is the Producer's record, so the
 * runtime hands it over as it is: no copy per record.
 */
export interface SinkRecord {
  topic: string;
  key: Buffer | string | null;
  value: Buffer | string | null;
  timestamp: number;
  /** Absent when the record has none (the common case: the Producer then converts nothing). */
  headers?: StreamHeaders;
  /** Set by the collector: a changelog's partition, or the sink partitioner's choice. */
  partition?: number;
}

/** The bytes of a SinkRecord key or value (a string is its UTF-8 encoding). */
export function sinkBytes(data: Buffer | string | null): Buffer | null {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

/** A record read from a topic, not yet deserialized. */
export interface RawRecord {
  topic: string;
  partition: number;
  offset: bigint;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: StreamHeaders;
}

/**
 * A record as the runtime's Consumer hands it to a task: a RawRecord, except
 * that for a topic deserialized at fetch time (runtime/fetch-deserializers.ts)
 * its key and value are already the deserialized values.
 */
export interface FetchedRecord extends Omit<RawRecord, 'key' | 'value'> {
  key: unknown;
  value: unknown;
}

/** Receives a task's output. */
export interface RecordCollector {
  /** A sink record; `choosePartition(n)` applies the sink's partitioner once the topic's partition count n is known. */
  send(record: SinkRecord, choosePartition?: (numPartitions: number) => number | undefined): void;
  /** A store change for `<applicationId>-<store>-changelog`, partition of the task. */
  logChange(topic: string, partition: number, key: Buffer, value: Buffer | null, timestamp: number): void;
}

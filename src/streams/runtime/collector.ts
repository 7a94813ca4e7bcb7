/**
 * Where a task's output goes: sink records (already serialized, topic
 * resolved) and store changelog records. The test driver captures them; the
 * KafkaStreams runtime hands them to its Producer.
 */
import type { StreamHeaders } from '../processor/record.js';

/** A record a sink wrote, serialized, with its final topic name. */
export interface SinkRecord {
  topic: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: StreamHeaders;
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

/** Receives a task's output. */
export interface RecordCollector {
  /** A sink record; `choosePartition(n)` applies the sink's partitioner once the topic's partition count n is known. */
  send(record: SinkRecord, choosePartition?: (numPartitions: number) => number | undefined): void;
  /** A store change for `<applicationId>-<store>-changelog`, partition of the task. */
  logChange(topic: string, partition: number, key: Buffer, value: Buffer | null, timestamp: number): void;
}

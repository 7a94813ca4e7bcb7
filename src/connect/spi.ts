/**
 * The connector SPI: what a connector plugin implements, modelled on Kafka
 * Connect's `org.apache.kafka.connect.{connector,source,sink}` with the same
 * life cycle, as TypeScript interfaces (a plugin's classes implement them;
 * the worker tells sources from sinks by `type`, so a plugin with its own
 * copy of this package still works).
 *
 * Life cycle of a connector: `start(props, context)` once, `taskConfigs(max)`
 * whenever the worker (re)builds tasks, `stop()` once. Of a source task:
 * `start`, then `poll()` in a loop (null or [] means nothing now), `commit()`
 * after offsets were flushed, `stop()`. Of a sink task: `start`, `open`
 * for assigned partitions, `put(records)` per batch, `preCommit` (default:
 * `flush` then the consumed offsets) before offsets are committed, `close`
 * for revoked partitions, `stop()`.
 */
import type { ConfigDef, ConfigValue } from './config-def.js';
import type { Schema } from './data/schema.js';

/** A header of a Connect record: a key, a schema (null when schemaless) and a value. */
export interface ConnectHeader {
  readonly key: string;
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** What source and sink records share (Kafka's ConnectRecord). Records are immutable: transforms build new ones. */
export interface ConnectRecord {
  readonly topic: string;
  /** null lets the producer's partitioner choose. */
  readonly kafkaPartition: number | null;
  readonly keySchema: Schema | null;
  readonly key: unknown;
  readonly valueSchema: Schema | null;
  readonly value: unknown;
  /** Epoch ms; null lets the producer stamp it. */
  readonly timestamp: number | null;
  readonly headers: readonly ConnectHeader[];
}

/** Where a source record came from, as plain JSON-able maps (e.g. `{ filename }` and `{ position }`). */
export type SourcePartition = Readonly<Record<string, unknown>>;
export type SourceOffset = Readonly<Record<string, unknown>>;

export interface SourceRecord extends ConnectRecord {
  readonly sourcePartition: SourcePartition;
  readonly sourceOffset: SourceOffset;
}

export interface SinkRecord extends ConnectRecord {
  readonly kafkaPartition: number;
  readonly kafkaOffset: bigint;
  readonly timestampType: 'CreateTime' | 'LogAppendTime' | 'NoTimestampType';
}

/** A new source record with defaults for what is not given (Kafka's SourceRecord constructors). */
export function sourceRecord(r: Partial<SourceRecord> & Pick<SourceRecord, 'topic' | 'sourcePartition' | 'sourceOffset'>): SourceRecord {
  return {
    kafkaPartition: null,
    keySchema: null,
    key: null,
    valueSchema: null,
    value: null,
    timestamp: null,
    headers: [],
    ...r,
  };
}

/** A copy of a record with some fields replaced (Kafka's ConnectRecord.newRecord); the subtype's fields are kept. */
export function withChanges<R extends ConnectRecord>(record: R, changes: Partial<ConnectRecord>): R {
  return { ...record, ...changes };
}

/** Reads committed source offsets (Kafka's OffsetStorageReader). */
export interface OffsetStorageReader {
  offset(partition: SourcePartition): SourceOffset | null;
  offsets(partitions: readonly SourcePartition[]): Map<SourcePartition, SourceOffset | null>;
}

export interface ConnectorContext {
  /** Asks the worker to call taskConfigs again and restart the tasks with the result. */
  requestTaskReconfiguration(): void;
  /** Fails the connector with this error (shown in its status). */
  raiseError(error: Error): void;
}

export interface SourceConnectorContext extends ConnectorContext {
  readonly offsetStorageReader: OffsetStorageReader;
}

interface ConnectorBase {
  version(): string;
  /** The connector's own config keys (the worker adds its common ones). */
  config(): ConfigDef;
  /** Optional custom validation (default: config().validate(props)). */
  validate?(props: Readonly<Record<string, string>>): ConfigValue[];
  taskConfigs(maxTasks: number): Record<string, string>[] | Promise<Record<string, string>[]>;
  stop(): void | Promise<void>;
}

export interface SourceConnector extends ConnectorBase {
  readonly type: 'source';
  start(props: Readonly<Record<string, string>>, context: SourceConnectorContext): void | Promise<void>;
  taskClass(): SourceTaskClass;
}

export interface SinkConnector extends ConnectorBase {
  readonly type: 'sink';
  start(props: Readonly<Record<string, string>>, context: ConnectorContext): void | Promise<void>;
  taskClass(): SinkTaskClass;
}

export type Connector = SourceConnector | SinkConnector;

export interface SourceTaskContext {
  configs(): Readonly<Record<string, string>>;
  readonly offsetStorageReader: OffsetStorageReader;
}

/** Where a produced source record landed (Kafka's RecordMetadata, reduced). */
export interface SourceRecordMetadata {
  topic: string;
  partition: number;
  offset: bigint;
}

export interface SourceTask {
  version(): string;
  start(props: Readonly<Record<string, string>>, context: SourceTaskContext): void | Promise<void>;
  /** Records ready now; null or [] when none (the worker calls again). Should not block for long. */
  poll(): Promise<SourceRecord[] | null> | SourceRecord[] | null;
  /** Offsets up to the last polled records were flushed. */
  commit?(): void | Promise<void>;
  /** One record was acknowledged by Kafka (or dropped by a transform/filter: metadata null). */
  commitRecord?(record: SourceRecord, metadata: SourceRecordMetadata | null): void | Promise<void>;
  stop(): void | Promise<void>;
}

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

/** Offset to commit per partition: the next offset to read, as Kafka's OffsetAndMetadata. */
export type SinkOffsets = Map<string, { topic: string; partition: number; offset: bigint }>;

/** Reports a record that failed in the task's own code to the worker's error handling (KIP-610). */
export type ErrantRecordReporter = (record: SinkRecord, error: Error) => Promise<void>;

export interface SinkTaskContext {
  configs(): Readonly<Record<string, string>>;
  assignment(): TopicPartitionRef[];
  /** Rewinds (or skips) partitions to these offsets before the next put. */
  offset(tp: TopicPartitionRef, offset: bigint): void;
  pause(...partitions: TopicPartitionRef[]): void;
  resume(...partitions: TopicPartitionRef[]): void;
  /** Commits offsets soon instead of waiting for offset.flush.interval.ms. */
  requestCommit(): void;
  /** Hands a failed record to the worker's error handling (errors.tolerance, DLQ, log); with tolerance none it fails the task. */
  errantRecordReporter(): ErrantRecordReporter;
}

export interface SinkTask {
  version(): string;
  start(props: Readonly<Record<string, string>>, context: SinkTaskContext): void | Promise<void>;
  open?(partitions: TopicPartitionRef[]): void | Promise<void>;
  put(records: SinkRecord[]): void | Promise<void>;
  /** Writes everything put so far (default preCommit calls it). */
  flush?(offsets: SinkOffsets): void | Promise<void>;
  /** The offsets safe to commit; default: flush(offsets) then offsets. */
  preCommit?(offsets: SinkOffsets): SinkOffsets | Promise<SinkOffsets>;
  close?(partitions: TopicPartitionRef[]): void | Promise<void>;
  stop(): void | Promise<void>;
}

export type SourceTaskClass = new () => SourceTask;
export type SinkTaskClass = new () => SinkTask;
export type ConnectorClass = new () => Connector;

/** Thrown by a task to ask for a retry of the same call (Kafka's RetriableException). */
export class RetriableError extends Error {
  override readonly name = 'RetriableException';
}

/** A failure of the Connect framework or a connector (Kafka's ConnectException). */
export class ConnectError extends Error {
  override readonly name = 'ConnectException';
}

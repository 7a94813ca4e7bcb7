/**
 * TopologyTestDriver: runs a topology in the calling thread without a broker
 * (Kafka Streams' `TopologyTestDriver`). The whole topology is one task of
 * partition 0; records written to internal (repartition) topics are read back
 * at once, in order, before `pipeInput` returns; records written to other
 * topics wait in their output topic. Stream-time punctuations fire after each
 * input record; wall-clock ones on `advanceWallClockTime`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { StreamHeaders } from '../processor/record.js';
import { Serdes, type Serde } from '../serdes.js';
import { sinkBytes, type RawRecord } from '../runtime/collector.js';
import { GlobalStores } from '../runtime/global-stores.js';
import { RecordCache } from '../state/record-cache.js';
import { StreamTask, type DeserializationExceptionHandler } from '../runtime/stream-task.js';
import type { KeyValueStore, StateStore } from '../state/store.js';
import type { Topology } from '../topology.js';
import { TestInputTopic, TestOutputTopic, type DriverRecord } from './test-topics.js';

/** Kafka's default `statestore.cache.max.bytes` (10 MiB). */
const STATESTORE_CACHE_MAX_BYTES_DEFAULT = 10 * 1024 * 1024; // Kafka's default

/** Options of the test driver. */
export interface TestDriverConfig {
  /** Default 'test-driver'; prefixes internal topic names. */
  applicationId?: string;
  defaultKeySerde?: Serde<unknown>;
  defaultValueSerde?: Serde<unknown>;
  /** The driver's wall-clock time at start (default Date.now()). */
  initialWallClockTimeMs?: number;
  /** What to do with a record that does not deserialize (default: fail, throwing from pipeInput). */
  deserializationExceptionHandler?: DeserializationExceptionHandler;
  /** The record cache of the stores that cache (Kafka's `statestore.cache.max.bytes`, default 10 MiB; 0 disables). The driver flushes it after each input, as Kafka's commits after each record. */
  statestoreCacheMaxBytes?: number;
}

/** Runs a topology without a broker. */
export class TopologyTestDriver {
  private readonly task: StreamTask;
  private readonly outputs = new Map<string, DriverRecord[]>();
  private readonly changelogs = new Map<string, DriverRecord[]>();
  private readonly pending: DriverRecord[] = [];
  private readonly applicationId: string;
  private wallClockMs: number;
  private offset = 0n;
  private closed = false;
  /** Global stores: a record piped into their topic updates them at once (through their processor, if any). */
  private readonly globals: GlobalStores;
  /** Persistent stores live in a temporary directory, removed on close. */
  private readonly stateDir = mkdtempSync(join(tmpdir(), 'tributary-test-driver-'));

  constructor(
    private readonly topology: Topology,
    config: TestDriverConfig = {},
  ) {
    topology.validate();
    this.applicationId = config.applicationId ?? 'test-driver';
    this.wallClockMs = config.initialWallClockTimeMs ?? Date.now();
    const nodes = topology.subtopologies().flatMap((s) => s.nodes);
    const defaultKeySerde = config.defaultKeySerde ?? (Serdes.ByteArray() as Serde<unknown>);
    const defaultValueSerde = config.defaultValueSerde ?? (Serdes.ByteArray() as Serde<unknown>);
    const onDeserializationError = config.deserializationExceptionHandler ?? (() => 'FAIL');
    this.globals = new GlobalStores(topology, { applicationId: this.applicationId, defaultKeySerde, defaultValueSerde, stateDir: join(this.stateDir, 'global'), wallClockMs: () => this.wallClockMs, onDeserializationError });
    this.task = new StreamTask({
      globalStores: this.globals.readOnlyStores,
      applicationId: this.applicationId,
      taskId: '0_0',
      partition: 0,
      topology,
      nodes,
      stateDir: this.stateDir,
      defaultKeySerde,
      defaultValueSerde,
      collector: {
        send: (sent) => {
          // What the driver's topics hold is bytes, as a broker would (a string is the UTF-8 the Producer would write).
          const record: DriverRecord = { topic: sent.topic, key: sinkBytes(sent.key), value: sinkBytes(sent.value), timestamp: sent.timestamp, headers: sent.headers ?? [] };
          if (this.isInternal(record.topic)) this.pending.push(record);
          else this.queue(this.outputs, record.topic).push(record);
        },
        logChange: (topic, _partition, key, value, timestamp) => void this.queue(this.changelogs, topic).push({ topic, key, value, timestamp, headers: [] }),
      },
      wallClockMs: () => this.wallClockMs,
      onDeserializationError,
      cache: new RecordCache(config.statestoreCacheMaxBytes ?? STATESTORE_CACHE_MAX_BYTES_DEFAULT),
    });
    this.task.init();
  }

  /** An input topic writing into `topic` (a source topic of the topology). */
  createInputTopic<K, V>(topic: string, keySerde: Serde<K>, valueSerde: Serde<V>, options: { startTimestampMs?: number; autoAdvanceMs?: number } = {}): TestInputTopic<K, V> {
    if (!this.task.sourceTopics.includes(topic) && !this.globals.reads(topic)) throw new StreamsError(StreamsErrorCode.TOPOLOGY, `the topology reads no topic '${topic}' (it reads: ${this.task.sourceTopics.join(', ')})`);
    return new TestInputTopic(topic, keySerde, valueSerde, (t, k, v, ts, h) => this.pipe(t, k, v, ts, h), options.startTimestampMs ?? this.wallClockMs, options.autoAdvanceMs ?? 0);
  }

  /** An output topic reading what the topology wrote to `topic` (or, for `<applicationId>-<store>-changelog`, what a store logged). */
  createOutputTopic<K, V>(topic: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestOutputTopic<K, V> {
    const changelog = topic.startsWith(`${this.applicationId}-`) && topic.endsWith('-changelog');
    return new TestOutputTopic(topic, keySerde, valueSerde, this.queue(changelog ? this.changelogs : this.outputs, topic));
  }

  /** Moves wall-clock time forward and fires the wall-clock punctuations due. */
  advanceWallClockTime(ms: number): void {
    this.assertOpen();
    this.wallClockMs += ms;
    this.task.punctuateWallClock(this.wallClockMs);
    this.commit();
  }

  /** A key-value store of the topology. */
  getKeyValueStore<K, V>(name: string): KeyValueStore<K, V> {
    return this.getStateStore<KeyValueStore<K, V>>(name);
  }

  /** Any store of the topology. */
  getStateStore<S extends StateStore>(name: string): S {
    const store = this.task.stateStores.get(name) ?? this.globals.stores.get(name);
    if (store === undefined) throw new StreamsError(StreamsErrorCode.STORE, `the topology has no store '${name}'`);
    return store as S;
  }

  /** The topics the topology wrote to so far (internal ones included, with their full names). */
  producedTopicNames(): string[] {
    return [...new Set([...this.outputs.keys(), ...this.changelogs.keys()])];
  }

  /** Closes processors and stores. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.task.close();
      this.globals.close();
    } finally {
      rmSync(this.stateDir, { recursive: true, force: true });
    }
  }

  private pipe(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: StreamHeaders): void {
    this.assertOpen();
    if (this.globals.reads(topic)) return this.globals.apply(this.raw(topic, key, value, timestamp, headers));
    this.task.process(this.raw(topic, key, value, timestamp, headers));
    this.drainInternal();
    this.task.punctuateStreamTime();
    this.commit();
  }

  /** As Kafka's driver commits after each input: the caches write through, and what that sends to internal topics is processed in turn. */
  private commit(): void {
    do {
      this.drainInternal();
      this.task.flushCaches();
    } while (this.pending.length > 0);
  }

  /** Reads back what went to internal topics, including what that produces in turn. */
  private drainInternal(): void {
    for (let r = this.pending.shift(); r !== undefined; r = this.pending.shift()) {
      this.queue(this.outputs, r.topic).push(r);
      if (this.task.sourceTopics.includes(r.topic)) this.task.process(this.raw(r.topic, r.key, r.value, r.timestamp, r.headers));
    }
  }

  private raw(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: StreamHeaders): RawRecord {
    return { topic, partition: 0, offset: this.offset++, key, value, timestamp, headers };
  }

  private isInternal(topic: string): boolean {
    const prefix = `${this.applicationId}-`;
    return topic.startsWith(prefix) && this.topology.isInternalTopic(topic.slice(prefix.length));
  }

  private queue(map: Map<string, DriverRecord[]>, topic: string): DriverRecord[] {
    let q = map.get(topic);
    if (q === undefined) map.set(topic, (q = []));
    return q;
  }

  private assertOpen(): void {
    if (this.closed) throw new StreamsError(StreamsErrorCode.STATE, 'the test driver is closed');
  }
}

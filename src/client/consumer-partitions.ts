/**
 * The Consumer's assigned partitions (consumer.ts): their states by key,
 * the round-robin order in which partitions with data are served, and
 * handing out one batch of a ready partition (decoded maxPollRecords at a
 * time, moving its position). Separate so consumer.ts keeps the lifecycle
 * (subscribe/assign, the pull, commits, close) and not the bookkeeping.
 */
import { PartitionDecoder, type ConsumerRecord } from './consumer-decode.js';
import type { TopicPartitions } from './consumer-protocol.js';
import { PartitionState, partitionKey } from './consumer-state.js';
import { MAX_POLL_RECORDS_DEFAULT, positiveIntegerOption, type ConsumerBatch, type ConsumerOptions, type TopicPartition } from './consumer-types.js';
import { ClientErrorCode, TributaryClientError, invalidArgument } from '../net/errors.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { deserializers, type Deserializer } from './serde.js';

/** How batches are decoded: at most maxPollRecords records; null deserializers hand out the bytes. */
export interface BatchDecoding<K, V> {
  readonly maxPollRecords: number;
  readonly keyDeserializer: Deserializer<K> | null;
  readonly valueDeserializer: Deserializer<V> | null;
}

/** The decoding settings from the consumer's options; a deserializer that returns the bytes as they are (the default) is left out. */
export function batchDecoding<K, V>(options: ConsumerOptions<K, V>): BatchDecoding<K, V> {
  const identity = (d: Deserializer<unknown> | undefined): boolean => d === undefined || d === deserializers.buffer;
  return {
    maxPollRecords: positiveIntegerOption(options.maxPollRecords ?? MAX_POLL_RECORDS_DEFAULT, 'maxPollRecords'),
    keyDeserializer: identity(options.keyDeserializer as Deserializer<unknown> | undefined) ? null : (options.keyDeserializer as Deserializer<K>),
    valueDeserializer: identity(options.valueDeserializer as Deserializer<unknown> | undefined) ? null : (options.valueDeserializer as Deserializer<V>),
  };
}

/** The partitions a consumer holds, served round robin. */
export class PartitionSet<K, V> {
  /** The states by partitionKey (the offsets logic reads them too). */
  readonly states = new Map<string, PartitionState<K, V>>();
  private order: PartitionState<K, V>[] = [];
  private cursor = 0;

  /** The states of these partitions, created when missing. */
  add(partitions: readonly TopicPartitions[]): PartitionState<K, V>[] {
    const added: PartitionState<K, V>[] = [];
    for (const t of partitions) {
      for (const p of t.partitions) {
        const key = partitionKey(t.topic, p);
        let s = this.states.get(key);
        if (s === undefined) {
          s = new PartitionState<K, V>(t.topic, p);
          this.states.set(key, s);
        }
        added.push(s);
      }
    }
    this.order = [...this.states.values()];
    return added;
  }

  /** Unassigns these states and forgets them. */
  remove(states: readonly PartitionState<K, V>[]): void {
    for (const s of states) {
      s.assigned = false;
      if (this.states.get(s.key) === s) this.states.delete(s.key);
    }
    this.order = [...this.states.values()];
  }

  /** Unassigns and forgets every partition whose key is not in `keep` (assign()). */
  retain(keep: ReadonlySet<string>): void {
    for (const [key, s] of this.states) {
      if (keep.has(key)) continue;
      s.assigned = false;
      this.states.delete(key);
    }
    this.order = [...this.states.values()];
  }

  /** Unassigns and forgets every partition (close). */
  clear(): void {
    for (const s of this.states.values()) s.assigned = false;
    this.states.clear();
    this.order = [];
  }

  /** The states held of these partitions. */
  of(partitions: readonly TopicPartitions[]): PartitionState<K, V>[] {
    const out: PartitionState<K, V>[] = [];
    for (const t of partitions) {
      for (const p of t.partitions) {
        const s = this.states.get(partitionKey(t.topic, p));
        if (s !== undefined) out.push(s);
      }
    }
    return out;
  }

  /** The state of an assigned partition; ERR_TRIB_INVALID_ARGUMENT when it is not assigned. */
  get(tp: TopicPartition): PartitionState<K, V> {
    const s = this.states.get(partitionKey(tp.topic, tp.partition));
    if (s === undefined) throw invalidArgument(`${tp.topic}-${tp.partition} is not assigned to this consumer`);
    return s;
  }

  /** Every state held now. */
  all(): PartitionState<K, V>[] {
    return [...this.states.values()];
  }

  /** The partitions held, sorted. */
  assignment(): TopicPartition[] {
    return [...this.states.values()].map((s) => ({ topic: s.topic, partition: s.partition })).sort(compareTp);
  }

  /** The paused partitions, sorted. */
  paused(): TopicPartition[] {
    return [...this.states.values()].filter((s) => s.paused).map((s) => ({ topic: s.topic, partition: s.partition })).sort(compareTp);
  }

  /** The next partition with records to hand out, round robin from the last one served; null when none is ready. */
  nextReady(): PartitionState<K, V> | null {
    const n = this.order.length;
    for (let i = 0; i < n; i++) {
      const s = this.order[(this.cursor + i) % n] as PartitionState<K, V>;
      if (!s.ready()) continue;
      this.cursor = (this.cursor + i + 1) % n;
      return s;
    }
    return null;
  }
}

/**
 * Hands out the next batch of a ready partition and moves its position;
 * 'again' when the fetch held no records for the application or the
 * partition was seeked (or revoked) while decoding. `pump` asks for more
 * data once a fetch is used up.
 */
export async function takeBatch<K, V>(s: PartitionState<K, V>, decoding: BatchDecoding<K, V>, pump: () => void): Promise<ConsumerBatch<K, V> | 'again'> {
  const fetched = s.buffered[0] as NonNullable<(typeof s.buffered)[number]>;
  const epoch = s.epoch;
  let out: ConsumerRecord<K, V>[];
  // Decoded maxPollRecords at a time: only the records handed out are alive.
  const decoder = (fetched.decoder ??= new PartitionDecoder<K, V>(
    { topic: s.topic, partition: s.partition, fetchOffset: fetched.fetchOffset, keyDeserializer: decoding.keyDeserializer, valueDeserializer: decoding.valueDeserializer },
    fetched.data,
    fetched.aborted,
  ));
  try {
    out = await decoder.read(decoding.maxPollRecords);
  } catch (err) {
    if (s.epoch === epoch && s.position !== null) s.seekTo(s.position);
    throw err instanceof DecodeError || err instanceof TributaryClientError
      ? err
      : new TributaryClientError(ClientErrorCode.DESERIALIZATION, `${s.topic}-${s.partition}: a deserializer threw: ${(err as Error).message}`, { cause: err });
  }
  // Seeked (or revoked) while decoding: that fetch is no longer wanted.
  if (s.epoch !== epoch || s.buffered[0] !== fetched) return 'again';
  if (decoder.finished) {
    s.buffered.shift();
    s.position = fetched.nextOffset;
    pump();
  } else {
    s.position = (out[out.length - 1] as ConsumerRecord<K, V>).offset + 1n;
  }
  s.highWatermark = fetched.highWatermark;
  if (out.length === 0) return 'again';
  // The position's epoch, for validation after a leader change (KIP-320).
  s.lastEpoch = (out[out.length - 1] as ConsumerRecord<K, V>).leaderEpoch;
  return { topic: s.topic, partition: s.partition, records: out, highWatermark: fetched.highWatermark };
}

function compareTp(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

/**
 * The record a processor receives and forwards (Kafka Streams' `Record`):
 * immutable; the `with*` methods return a copy with one field changed.
 */

/** A header of a record flowing through a topology. */
export interface StreamHeader {
  key: string;
  value: Buffer | null;
}

/** The headers of a record flowing through a topology, in order. */
export type StreamHeaders = readonly StreamHeader[];

const NO_HEADERS: StreamHeaders = Object.freeze([]);

/** A key, a value, a timestamp (epoch ms) and headers: what flows between processors. */
export class StreamRecord<K, V> {
  constructor(
    /** The key (null for none). */
    readonly key: K,
    /** The value (null is a tombstone for tables). */
    readonly value: V,
    /** Event time, epoch milliseconds. */
    readonly timestamp: number,
    /** Headers, passed on unchanged unless replaced. */
    readonly headers: StreamHeaders = NO_HEADERS,
  ) {}

  /** A copy with another key. */
  withKey<K2>(key: K2): StreamRecord<K2, V> {
    return new StreamRecord(key, this.value, this.timestamp, this.headers);
  }

  /** A copy with another value. */
  withValue<V2>(value: V2): StreamRecord<K, V2> {
    return new StreamRecord(this.key, value, this.timestamp, this.headers);
  }

  /** A copy with another timestamp. */
  withTimestamp(timestamp: number): StreamRecord<K, V> {
    return new StreamRecord(this.key, this.value, timestamp, this.headers);
  }

  /** A copy with other headers. */
  withHeaders(headers: StreamHeaders): StreamRecord<K, V> {
    return new StreamRecord(this.key, this.value, this.timestamp, headers);
  }
}

/** A key and a value (Kafka's `KeyValue`); `KeyValue.pair(k, v)` makes one. */
export interface KeyValue<K, V> {
  key: K;
  value: V;
}

/** Makes `KeyValue`s. */
export const KeyValue = {
  /** `{ key, value }`. */
  pair: <K, V>(key: K, value: V): KeyValue<K, V> => ({ key, value }),
} as const;

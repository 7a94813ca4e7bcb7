/**
 * The typed key-value store: serdes over a bytes store, writing each change
 * to the changelog through the task (Kafka's metered + change-logging layers
 * in one). Values are stored serialized, so what is restored from the
 * changelog is byte-for-byte what was written.
 */
import type { Serde } from '../serdes.js';
import { StreamsError, StreamsErrorCode } from '../errors.js';
import type { BytesStore, BytesStoreSupplier } from './bytes-store.js';
import { changelogTopic, type KeyValueEntry, type KeyValueStore, type StateStoreContext } from './store.js';

/** A key-value store of typed keys and values. */
export class TypedKeyValueStore<K, V> implements KeyValueStore<K, V> {
  readonly name: string;
  readonly persistent: boolean;
  private readonly inner: BytesStore;
  private context: StateStoreContext | null = null;
  private keySerde: Serde<K> | undefined;
  private valueSerde: Serde<V> | undefined;
  private topic: string;

  constructor(
    supplier: BytesStoreSupplier,
    keySerde: Serde<K> | undefined,
    valueSerde: Serde<V> | undefined,
    private readonly logging: boolean,
  ) {
    this.name = supplier.name;
    this.persistent = supplier.persistent;
    this.inner = supplier.get();
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.topic = supplier.name;
  }

  init(context: StateStoreContext): void {
    this.context = context;
    this.keySerde ??= context.defaultKeySerde as Serde<K>;
    this.valueSerde ??= context.defaultValueSerde as Serde<V>;
    this.topic = changelogTopic(context.applicationId, this.name);
    if (this.inner.open(context.stateDir)) context.reportWiped(this.name);
    context.registerRestore(this.name, (key, value) => {
      if (value === null) this.inner.delete(key);
      else this.inner.put(key, value);
    });
  }

  get(key: K): V | null {
    const bytes = this.inner.get(this.serializeKey(key));
    return bytes === undefined ? null : this.serdes()[1].deserialize(this.topic, bytes);
  }

  put(key: K, value: V | null): void {
    const keyBytes = this.serializeKey(key);
    const valueBytes = value === null ? null : this.serdes()[1].serialize(this.topic, value);
    if (valueBytes === null) this.inner.delete(keyBytes);
    else this.inner.put(keyBytes, valueBytes);
    if (this.logging) this.open().logChange(this.name, keyBytes, valueBytes);
  }

  putIfAbsent(key: K, value: V): V | null {
    const old = this.get(key);
    if (old === null) this.put(key, value);
    return old;
  }

  delete(key: K): V | null {
    const old = this.get(key);
    if (old !== null) this.put(key, null);
    return old;
  }

  range(from: K | null, to: K | null): KeyValueEntry<K, V>[] {
    const lo = from === null ? null : this.serializeKey(from);
    const hi = to === null ? null : this.serializeKey(to);
    return this.decode(this.inner.range(lo, hi));
  }

  all(): KeyValueEntry<K, V>[] {
    return this.decode(this.inner.range(null, null));
  }

  approximateNumEntries(): number {
    return this.inner.size();
  }

  flush(): void {
    this.inner.flush();
  }

  close(): void {
    this.inner.close();
    this.context = null;
  }

  private decode(entries: [Buffer, Buffer][]): KeyValueEntry<K, V>[] {
    const [keySerde, valueSerde] = this.serdes();
    return entries.map(([k, v]) => ({ key: keySerde.deserialize(this.topic, k) as K, value: valueSerde.deserialize(this.topic, v) as V }));
  }

  private serializeKey(key: K): Buffer {
    const bytes = this.serdes()[0].serialize(this.topic, key);
    if (bytes === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' does not take null keys`);
    return bytes;
  }

  private serdes(): [Serde<K>, Serde<V>] {
    this.open();
    return [this.keySerde as Serde<K>, this.valueSerde as Serde<V>];
  }

  private open(): StateStoreContext {
    if (this.context === null) throw new StreamsError(StreamsErrorCode.STORE, `store '${this.name}' is not open (closed, or not initialised by its task)`);
    return this.context;
  }
}

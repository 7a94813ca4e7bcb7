/**
 * The global stores of one instance (Kafka's GlobalStateManager): a
 * GlobalKTable's key-value store holds every partition of its topic, is
 * shared read-only by all the instance's tasks, has no changelog (the
 * topic is one) and is rebuilt from the topic's start whenever the
 * instance starts. Records are applied in offset order per partition: a
 * value puts, a null value (tombstone) deletes.
 */
import type { Serde } from '../serdes.js';
import type { KeyValueStore, StateStore, StateStoreContext } from '../state/store.js';
import type { GlobalStoreSpec, Topology } from '../topology.js';

/** The global stores of an instance and how topic records update them. */
export class GlobalStores {
  readonly stores = new Map<string, StateStore>();
  private readonly byTopic = new Map<string, { spec: GlobalStoreSpec; store: KeyValueStore<unknown, unknown> }>();

  constructor(
    topology: Topology,
    private readonly options: { applicationId: string; defaultKeySerde: Serde<unknown>; defaultValueSerde: Serde<unknown> },
  ) {
    const context: StateStoreContext = {
      applicationId: options.applicationId,
      taskId: 'global',
      partition: -1,
      stateDir: null,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      logChange: () => {},
      recordTimestampMs: () => 0,
      cache: null,
      reportWiped: () => {},
      registerRestore: () => {},
    };
    for (const [name, spec] of topology.globalStores) {
      const store = spec.builder.withLoggingDisabled().build() as KeyValueStore<unknown, unknown>;
      store.init(context);
      this.stores.set(name, store);
      this.byTopic.set(spec.topic, { spec, store });
    }
  }

  /** The topics that feed global stores. */
  topics(): string[] {
    return [...this.byTopic.keys()];
  }

  /** Whether `topic` feeds a global store. */
  reads(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  /** Applies one record of a global topic to its store. */
  apply(topic: string, key: Buffer | null, value: Buffer | null): void {
    const entry = this.byTopic.get(topic);
    if (entry === undefined || key === null) return; // a record without a key cannot be stored
    const k = (entry.spec.options.keySerde ?? this.options.defaultKeySerde).deserialize(topic, key);
    if (k === null || k === undefined) return;
    const v = value === null ? null : (entry.spec.options.valueSerde ?? this.options.defaultValueSerde).deserialize(topic, value);
    entry.store.put(k, v ?? null);
  }

  /** Closes the stores. */
  close(): void {
    for (const store of this.stores.values()) store.close();
  }
}

/**
 * Deserialization at fetch time, for the source topics where it cannot fail.
 *
 * A StreamTask deserializes what its sources read (Kafka's SourceNode), so
 * that a record that does not deserialize goes to the deserialization
 * exception handler with its raw bytes. Without deserializers the Consumer
 * hands every key and value out as a Buffer view that the record keeps until
 * its batch is dropped; measured with `bench/streams/streams.mjs`, that view
 * per field (made, kept alive, then copied into a string by the task) cost
 * several percent of the stateless topology's CPU. For a topic whose source
 * key and value serdes both deserialize every input without throwing
 * (`deserializesInfallibly`: Serdes.String, Serdes.ByteArray) the outcome is
 * the same whenever it runs, so the thread's Consumer deserializes that
 * topic's records as it decodes them, the way a hand-written consumer with
 * string deserializers does, and the task takes the values as they are.
 * Every other topic is handed out as bytes and deserialized by the task.
 */
import type { Deserializer } from '../../client/index.js';
import { deserializesInfallibly, type Serde } from '../serdes.js';
import type { Topology } from '../topology.js';

/** The source serdes of one topic decoded at fetch time. */
interface FetchSerdes {
  key: Serde<unknown>;
  value: Serde<unknown>;
}

/** Which source topics (resolved names) a thread's Consumer deserializes, and its deserializers. */
export class FetchDeserializers {
  private readonly byTopic = new Map<string, FetchSerdes>();

  constructor(topology: Topology, resolve: (topic: string) => string, defaultKeySerde: Serde<unknown>, defaultValueSerde: Serde<unknown>) {
    for (const sub of topology.subtopologies()) {
      for (const node of sub.nodes) {
        if (node.kind !== 'source') continue;
        const key = node.options.keySerde ?? defaultKeySerde;
        const value = node.options.valueSerde ?? defaultValueSerde;
        if (!deserializesInfallibly(key) || !deserializesInfallibly(value)) continue;
        for (const topic of node.topics) this.byTopic.set(resolve(topic), { key, value });
      }
    }
  }

  /** Whether records of `topic` (resolved) reach the tasks deserialized. */
  decodes(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  /** The topic looked up last and its serdes: a decoder asks for every field of every record of one partition. */
  private lastTopic = '';
  private lastSerdes: FetchSerdes | undefined = undefined;

  private serdesOf(topic: string): FetchSerdes | undefined {
    if (topic !== this.lastTopic) {
      this.lastTopic = topic;
      this.lastSerdes = this.byTopic.get(topic);
    }
    return this.lastSerdes;
  }

  /** The Consumer's key deserializer: the source's serde for a topic decoded at fetch time, else the bytes. */
  readonly key: Deserializer<unknown> = (data, context) => {
    const serdes = this.serdesOf(context.topic);
    return serdes === undefined ? data : serdes.key.deserialize(context.topic, data);
  };

  /** The Consumer's value deserializer (as `key`). */
  readonly value: Deserializer<unknown> = (data, context) => {
    const serdes = this.serdesOf(context.topic);
    return serdes === undefined ? data : serdes.value.deserialize(context.topic, data);
  };
}

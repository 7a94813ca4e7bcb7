/**
 * How the DSL classes build one another (KStream.groupBy gives a
 * KGroupedStream, whose count gives a KTable, whose toStream gives a
 * KStream...). They reach the constructors through the graph's factory,
 * filled in once by `StreamsBuilder`, instead of importing each other's
 * modules, so the DSL's modules import in one direction only.
 */
import type { BranchedKStream } from './branched-kstream.js';
import type { KGroupedStream } from './kgrouped-stream.js';
import type { KStream, StreamState } from './kstream.js';
import type { KTable, TableState } from './ktable.js';

/** Constructors of the DSL's objects (internal). */
export interface DslNodeFactory {
  stream<K, V>(state: StreamState<K, V>): KStream<K, V>;
  table<K, V>(state: TableState<K, V>): KTable<K, V>;
  grouped<K, V>(state: StreamState<K, V>, groupName: string | undefined): KGroupedStream<K, V>;
  split<K, V>(parent: StreamState<K, V>, splitNode: string, prefix: string): BranchedKStream<K, V>;
}

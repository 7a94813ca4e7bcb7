/**
 * Set-up shared by the Streams caching tests (record, window, session and
 * sliding-window caches): a windowed word count run in the
 * TopologyTestDriver, read back as text, and a StateStoreContext for a
 * caching store built by hand that hands its changelog writes to the test.
 */
import {
  KeyValue,
  Serdes,
  StreamsBuilder,
  TopologyTestDriver,
  type KGroupedStream,
  type KTable,
  type Materialized,
  type StateStoreContext,
  type Windowed,
} from '../../src/streams/index.js';
import type { RecordCache } from '../../src/streams/state/record-cache.js';

const S = Serdes.String();

/** The caching options a test varies: the thread cache's size, and the store's own switch. */
export interface CachingOptions {
  cacheBytes?: number;
  cachingEnabled?: boolean;
}

/** A running windowed word count. */
export interface WindowedCount {
  /** One input line (words separated by spaces) at `timestampMs`. */
  pipe(line: string, timestampMs: number): void;
  /** The output so far, as `word@start-end=count` (`=null` for a removed window). */
  read(): string[];
  /** The output so far with each record's timestamp: `word@start-end=count@timestamp`. */
  readTimed(): string[];
  /** How many changelog records the store has written so far. */
  changelog(): number;
  close(): void;
}

/**
 * lines -> words -> groupBy(word) -> `count` (the windowing under test: it
 * calls windowedBy and count with the Materialized it is given) -> out, in a
 * driver of application `app`, store `storeName`.
 */
export function windowedWordCount(
  storeName: string,
  options: CachingOptions,
  count: (grouped: KGroupedStream<string, string>, materialized: Materialized<string, bigint>) => KTable<Windowed<string>, bigint>,
): WindowedCount {
  const materialized: Materialized<string, bigint> = { storeName, ...(options.cachingEnabled === undefined ? {} : { cachingEnabled: options.cachingEnabled }) };
  const builder = new StreamsBuilder();
  const grouped = builder
    .stream('lines', { keySerde: S, valueSerde: S })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_k, w) => w, { keySerde: S, valueSerde: S });
  count(grouped, materialized)
    .toStream()
    .map((wk, n) => KeyValue.pair(`${wk.key}@${wk.window.start}-${wk.window.end}`, n === null ? 'null' : String(n)))
    .to('out', { keySerde: S, valueSerde: S });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app', ...(options.cacheBytes === undefined ? {} : { statestoreCacheMaxBytes: options.cacheBytes }) });
  const input = driver.createInputTopic('lines', S, S);
  const out = driver.createOutputTopic('out', S, S);
  const log = driver.createOutputTopic(`app-${storeName}-changelog`, S, Serdes.Long());
  return {
    pipe: (line, timestampMs) => input.pipeInput(null, line, timestampMs),
    read: () => out.readKeyValuesToList().map((kv) => `${kv.key}=${kv.value}`),
    readTimed: () => out.readRecordsToList().map((r) => `${r.key}=${r.value}@${r.timestamp}`),
    changelog: () => log.readRecordsToList().length,
    close: () => driver.close(),
  };
}

/**
 * The context a caching store gets from its task, for a store built by hand:
 * application `app`, task 0_0, no state directory, `cache` as the thread's
 * record cache, changelog writes handed to `logChange`, and every record at
 * `recordTimestampMs`.
 */
export function cachingStoreContext(cache: RecordCache, logChange: StateStoreContext['logChange'], recordTimestampMs: number): StateStoreContext {
  return {
    applicationId: 'app',
    taskId: '0_0',
    partition: 0,
    stateDir: null,
    defaultKeySerde: S as never,
    defaultValueSerde: S as never,
    logChange,
    recordTimestampMs: () => recordTimestampMs,
    cache,
    registerRestore: () => {},
    reportWiped: () => {},
  };
}

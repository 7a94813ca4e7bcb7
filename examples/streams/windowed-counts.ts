/**
 * Streams windowed aggregation: clicks per user per one-minute window with
 * a 10-second grace period, one final count per window (suppress). The
 * input has an out-of-order click inside the grace period (counted) and a
 * late one after it (dropped); record times are set explicitly so the
 * output is the same on every run. Prints each final count as
 * `<user> [<window start>s, <window end>s): <count>` and stops.
 *
 *   npm run build && node dist/examples/streams/windowed-counts.js [input-topic]
 *
 * The broker is TRIBUTARY_BOOTSTRAP (default 127.0.0.1:9092).
 */
import { Admin, Consumer, KafkaStreams, KeyValue, Producer, Serdes, StreamsBuilder, Suppressed, TimeWindows } from 'tributary';

const bootstrap = process.env['TRIBUTARY_BOOTSTRAP'] ?? '127.0.0.1:9092';
const input = process.argv[2] ?? 'clicks';
const output = `${input}-per-minute`;
const base = 1_700_000_040_000; // a minute boundary: windows start at base, base + 60 s, ...

// [user, seconds after base], in the order they arrive.
const clicks: [string, number][] = [
  ['alice', 1],
  ['bob', 5],
  ['alice', 30],
  ['alice', 65], // stream time 65 s: the first window [0, 60) is open until 60 + 10 s grace
  ['bob', 50], //  out of order, within the grace period: counted in [0, 60)
  ['carol', 75], // stream time 75 s: [0, 60) closes and its final counts are emitted
  ['alice', 20], // late (its window closed at 70 s): dropped
  ['carol', 200], // stream time 200 s: [60, 120) closes
];

const admin = await Admin.connect({ bootstrap });
await admin.createTopics([
  { name: input, numPartitions: 1 },
  { name: output, numPartitions: 1 },
]);
await admin.close();

const builder = new StreamsBuilder();
builder
  .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  .groupByKey()
  .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
  .count({ storeName: 'clicks-per-minute' })
  .suppress(Suppressed.untilWindowCloses())
  .toStream()
  .map((wk, n) => KeyValue.pair(`${wk.key} [${(wk.window.start - base) / 1000}s, ${(wk.window.end - base) / 1000}s)`, n))
  .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });

const streams = new KafkaStreams(builder.build(), { applicationId: `windowed-${input}`, bootstrapServers: bootstrap, commitIntervalMs: 200, logger: () => {} });
await streams.start();

const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap } });
for (const [user, s] of clicks) await producer.send({ topic: input, key: user, value: 'click', timestamp: base + s * 1000 });
await producer.close();

const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap, autoOffsetReset: 'earliest' });
consumer.assign([{ topic: output, partition: 0 }]);
const lines: string[] = [];
const deadline = Date.now() + 20_000;
for await (const batch of consumer.batches()) {
  for (const r of batch.records) lines.push(`${Serdes.String().deserialize(output, r.key)}: ${Serdes.Long().deserialize(output, r.value)}`);
  if (lines.length >= 4 || Date.now() > deadline) break;
}
await consumer.close();
for (const line of lines.sort()) console.log(line);
await streams.close();

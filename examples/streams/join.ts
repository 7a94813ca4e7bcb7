/**
 * Streams join: clicks (a stream) enriched with user names (a table),
 * a left join, so a click of an unknown user still comes out. The table is
 * filled first and queried (interactive query) until it holds both users,
 * then the clicks flow. Prints each enriched click and stops.
 *
 *   npm run build && node dist/examples/streams/join.js [prefix]
 *
 * The broker is TRIBUTARY_BOOTSTRAP (default 127.0.0.1:9092).
 */
import { Admin, Consumer, KafkaStreams, Producer, Serdes, StreamsBuilder } from 'tributary';

const bootstrap = process.env['TRIBUTARY_BOOTSTRAP'] ?? '127.0.0.1:9092';
const prefix = process.argv[2] ?? 'shop';
const [users, clicks, enriched] = [`${prefix}-users`, `${prefix}-clicks`, `${prefix}-enriched-clicks`];

const admin = await Admin.connect({ bootstrap });
// A stream-table join needs co-partitioned inputs: the same partition count.
await admin.createTopics([users, clicks, enriched].map((name) => ({ name, numPartitions: 2 })));
await admin.close();

const builder = new StreamsBuilder();
const names = builder.table(users, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, { storeName: 'user-names' });
builder
  .stream(clicks, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  .leftJoin(names, (page, name) => `${page} by ${name ?? 'anonymous'}`)
  .to(enriched, { keySerde: Serdes.String(), valueSerde: Serdes.String() });

const streams = new KafkaStreams(builder.build(), { applicationId: `join-${prefix}`, bootstrapServers: bootstrap, commitIntervalMs: 200, logger: () => {} });
await streams.start();

const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap } });
await producer.send({ topic: users, key: 'alice', value: 'Alice' });
await producer.send({ topic: users, key: 'bob', value: 'Bob' });
const deadline = Date.now() + 20_000;
while (streams.store<string, string>('user-names').approximateNumEntries() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
for (const [user, page] of [['alice', '/home'], ['carol', '/about'], ['bob', '/cart']] as const) await producer.send({ topic: clicks, key: user, value: page });
await producer.close();

const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap, autoOffsetReset: 'earliest' });
consumer.assign([0, 1].map((partition) => ({ topic: enriched, partition })));
const lines: string[] = [];
for await (const batch of consumer.batches()) {
  for (const r of batch.records) lines.push(`${r.key?.toString()}: ${r.value?.toString()}`);
  if (lines.length >= 3 || Date.now() > deadline) break;
}
await consumer.close();
for (const line of lines.sort()) console.log(line);
await streams.close();

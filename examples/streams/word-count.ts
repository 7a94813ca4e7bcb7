/**
 * Streams word count: the topology of docs/streams.md run against a broker.
 * Produces a few lines, counts the words with KafkaStreams, queries the
 * store, prints the counts and the topology, and stops; exactly once.
 *
 *   npm run build && node dist/examples/streams/word-count.js [input-topic]
 *
 * The broker is TRIBUTARY_BOOTSTRAP (default 127.0.0.1:9092).
 */
import { Admin, KafkaStreams, Producer, Serdes, StreamsBuilder } from 'tributary';

const bootstrap = process.env['TRIBUTARY_BOOTSTRAP'] ?? '127.0.0.1:9092';
const input = process.argv[2] ?? 'text-lines';
const output = `${input}-word-counts`;
const lines = ['the quick brown fox', 'jumps over the lazy dog', 'The dog sleeps'];

const admin = await Admin.connect({ bootstrap });
await admin.createTopics([
  { name: input, numPartitions: 2 },
  { name: output, numPartitions: 2 },
]);
await admin.close();

const producer = await Producer.connect<string | null, string>({ clusterOptions: { bootstrap } });
for (const line of lines) await producer.send({ topic: input, key: null, value: line });
await producer.close();

const builder = new StreamsBuilder();
builder
  .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
  .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  .count({ storeName: 'word-counts' })
  .toStream()
  .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
const topology = builder.build();

// Exactly once (KIP-447): output, changelog and input offsets commit together, every 100 ms by default.
const streams = new KafkaStreams(topology, { applicationId: `word-count-${input}`, bootstrapServers: bootstrap, processingGuarantee: 'exactly_once_v2' });
await streams.start();
const words = lines.join(' ').toLowerCase().split(/\W+/).length;
const deadline = Date.now() + 20_000;
const total = (): bigint => streams.store<string, bigint>('word-counts').all().reduce((n, e) => n + e.value, 0n);
while (total() < BigInt(words) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
for (const { key, value } of [...streams.store<string, bigint>('word-counts').all()].sort((a, b) => a.key.localeCompare(b.key))) console.log(`${key}: ${value}`);
console.log(`sub-topologies: ${topology.describe().subtopologies.length}`);
await streams.close();

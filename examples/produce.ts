/**
 * Produce: create a topic, send keyed JSON records, print where each landed.
 *
 *   npm run build && node dist/examples/produce.js [topic] [count]
 *
 * The broker is TRIBUTARY_BOOTSTRAP (default 127.0.0.1:9092).
 */
import { Admin, Producer, Serializers, isKafkaError } from 'tributary';

const bootstrap = process.env['TRIBUTARY_BOOTSTRAP'] ?? '127.0.0.1:9092';
const topic = process.argv[2] ?? 'orders';
const count = Number(process.argv[3] ?? 3);

interface Order {
  id: number;
  amount: number;
}

// Create the topic (3 partitions); an existing topic is fine.
const admin = await Admin.connect({ bootstrap });
try {
  await admin.createTopic({ name: topic, numPartitions: 3 });
} catch (err) {
  if (!isKafkaError(err, 'TOPIC_ALREADY_EXISTS')) throw err;
} finally {
  await admin.close();
}

const producer = await Producer.connect<string, Order>({
  clusterOptions: { bootstrap },
  keySerializer: Serializers.string,
  valueSerializer: Serializers.json,
  acks: -1,
  lingerMs: 5,
  compression: 'lz4',
});
try {
  // One promise per record; the same key always lands on the same partition.
  const sent = await Promise.all(
    Array.from({ length: count }, (_, i) => producer.send({ topic, key: `order-${i}`, value: { id: i, amount: 10 * (i + 1) }, headers: { source: 'example' } })),
  );
  for (const [i, r] of sent.entries()) console.log(`sent order-${i} to ${r.topic}-${r.partition} at offset ${r.offset}`);
} finally {
  await producer.close(); // flushes what is still buffered
}

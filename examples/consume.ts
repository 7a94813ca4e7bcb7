/**
 * Consume: join a consumer group, read records as they arrive with
 * `for await`, commit, and stop after `count` records.
 *
 *   npm run build && node dist/examples/consume.js [topic] [count] [group]
 *
 * The broker is TRIBUTARY_BOOTSTRAP (default 127.0.0.1:9092).
 */
import { Consumer, deserializers } from 'tributary';

const bootstrap = process.env['TRIBUTARY_BOOTSTRAP'] ?? '127.0.0.1:9092';
const topic = process.argv[2] ?? 'orders';
const count = Number(process.argv[3] ?? 3);
const groupId = process.argv[4] ?? 'order-audit';

const consumer = new Consumer({
  bootstrap,
  groupId,
  keyDeserializer: deserializers.string,
  valueDeserializer: deserializers.json,
  autoOffsetReset: 'earliest', // a new group starts at the beginning
});
await consumer.subscribe([topic]);

let seen = 0;
try {
  for await (const record of consumer) {
    console.log(`received ${record.key} ${JSON.stringify(record.value)} from ${record.topic}-${record.partition}@${record.offset}`);
    if (++seen >= count) break; // leaving the loop does not close the consumer
  }
  await consumer.commit(); // the positions consumed so far
} finally {
  await consumer.close(); // commits (autoCommit) and leaves the group
}
console.log(`consumed ${seen} records`);

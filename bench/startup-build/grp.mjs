import { Kafka, logLevel } from 'kafkajs';
import { startCluster } from './dist/src/index.js';
for (const parts of [50, 1]) {
  const c = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': parts } });
  const kafka = new Kafka({ brokers: [c.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin(); await admin.connect(); await admin.createTopics({ topics: [{ topic: 't' }] }); await admin.disconnect();
  const t0 = performance.now();
  const consumer = kafka.consumer({ groupId: 'g' });
  await consumer.connect(); await consumer.subscribe({ topic: 't' });
  await new Promise((resolve) => { consumer.on(consumer.events.GROUP_JOIN, resolve); void consumer.run({ eachMessage: async () => {} }); });
  console.log('offsets partitions', parts, 'first join ms', Math.round(performance.now() - t0));
  await consumer.disconnect(); await c.stop();
}
console.log(process.getActiveResourcesInfo());
setTimeout(() => console.log('after 2s', process.getActiveResourcesInfo()), 2000).unref();

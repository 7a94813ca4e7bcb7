/**
 * Admin: create a topic with configs, describe it, change a config, look up
 * offsets, inspect the cluster, then delete the topic. Batch calls answer
 * per resource (`error` on each result); single-resource calls throw.
 *
 *   npm run build && node dist/examples/admin.js [topic]
 *
 * The broker is TRIBUTARY_BOOTSTRAP (default 127.0.0.1:9092).
 */
import { Admin, KafkaProtocolError } from 'tributary';

const bootstrap = process.env['TRIBUTARY_BOOTSTRAP'] ?? '127.0.0.1:9092';
const topic = process.argv[2] ?? 'admin-example';

const admin = await Admin.connect({ bootstrap });
try {
  const [created] = await admin.createTopics([{ name: topic, numPartitions: 2, configs: { 'cleanup.policy': 'compact' } }]);
  console.log(`created ${created?.name}: ${created?.error?.kafkaErrorName ?? 'ok'}`);
  // One result per topic: the existing one fails on its own, the other is created.
  const [again, other] = await admin.createTopics([{ name: topic }, { name: `${topic}-2` }]);
  console.log(`created ${again?.name} again: ${again?.error?.kafkaErrorName ?? 'ok'}; ${other?.name}: ${other?.error?.kafkaErrorName ?? 'ok'}`);

  const [described] = await admin.describeTopics([topic]);
  for (const p of described?.partitions ?? []) console.log(`partition ${p.partition}: leader ${p.leader}, replicas [${p.replicas.join(',')}], isr [${p.isr.join(',')}]`);
  console.log(`cleanup.policy=${described?.configs?.find((c) => c.name === 'cleanup.policy')?.value}`);

  await admin.incrementalAlterConfigs({ type: 'topic', name: topic }, [{ name: 'retention.ms', op: 'set', value: '3600000' }]);
  const [configs] = await admin.describeConfigs([{ type: 'topic', name: topic, keys: ['retention.ms'] }]);
  const retention = configs?.configs[0];
  console.log(`retention.ms=${retention?.value} (${retention?.source})`);

  const offsets = await admin.listOffsets([
    { topic, partition: 0, spec: 'earliest' },
    { topic, partition: 1, spec: 'latest' },
    { topic, partition: 9, spec: 'latest' }, // no such partition: an error for this one only
  ]);
  for (const o of offsets) console.log(`offset ${o.topic}-${o.partition}: ${o.error === null ? o.offset : o.error.kafkaErrorName}`);

  const cluster = await admin.describeCluster();
  console.log(`cluster ${cluster.clusterId}: controller ${cluster.controllerId}, ${cluster.brokers.length} broker(s)`);

  try {
    await admin.createPartitions(topic, 1); // fewer than it has: the single form throws
  } catch (err) {
    if (!(err instanceof KafkaProtocolError)) throw err;
    console.log(`createPartitions: ${err.kafkaErrorName} (${err.code}, retriable: ${err.retriable})`);
  }
} finally {
  await admin.deleteTopics([topic, `${topic}-2`]);
  await admin.close();
}
console.log('done');

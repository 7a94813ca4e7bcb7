/**
 * The worker's `producer.*` settings (Kafka Connect's worker configs with
 * the `producer.` prefix, e.g. `producer.linger.ms=20`): the Java producer
 * config names the source tasks' producer honours, mapped to our Producer's
 * options. Keys without a counterpart here are reported back so the worker
 * can warn about them, as Kafka warns about unused configs; a bad value is a
 * ConfigException at start, never a silently different producer.
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';
import type { Acks, CompressionName, ProducerOptions } from '../../client/index.js';

export const PRODUCER_PREFIX = 'producer.';

const PRODUCER_DEF = new ConfigDef()
  .define({ name: 'acks', type: 'STRING', defaultValue: 'all', importance: 'HIGH', documentation: 'Acknowledgements: all (-1), 1 or 0.', validator: Validators.in('all', '-1', '1', '0') })
  .define({ name: 'linger.ms', type: 'LONG', defaultValue: 5, importance: 'MEDIUM', documentation: 'How long a batch waits for more records.', validator: Validators.atLeast(0) })
  .define({ name: 'batch.size', type: 'INT', defaultValue: 16384, importance: 'MEDIUM', documentation: 'Bytes per partition batch.', validator: Validators.atLeast(1) })
  .define({ name: 'compression.type', type: 'STRING', defaultValue: 'none', importance: 'HIGH', documentation: 'none, gzip, snappy, lz4 or zstd.', validator: Validators.in('none', 'gzip', 'snappy', 'lz4', 'zstd') })
  .define({ name: 'buffer.memory', type: 'LONG', defaultValue: 33554432, importance: 'HIGH', documentation: 'Bytes of records waiting to be sent.', validator: Validators.atLeast(1) })
  .define({ name: 'retries', type: 'INT', defaultValue: 2147483647, importance: 'HIGH', documentation: 'Retries of a failed batch.', validator: Validators.atLeast(0) })
  .define({ name: 'retry.backoff.ms', type: 'LONG', defaultValue: 100, importance: 'LOW', documentation: 'First backoff before a retry.', validator: Validators.atLeast(0) })
  .define({ name: 'delivery.timeout.ms', type: 'INT', defaultValue: 120000, importance: 'MEDIUM', documentation: 'Upper bound on the time to report a send.', validator: Validators.atLeast(1) })
  .define({ name: 'request.timeout.ms', type: 'INT', defaultValue: 30000, importance: 'MEDIUM', documentation: 'Produce request timeout.', validator: Validators.atLeast(1) })
  .define({ name: 'max.request.size', type: 'INT', defaultValue: 1048576, importance: 'MEDIUM', documentation: 'Largest produce request.', validator: Validators.atLeast(1) })
  .define({ name: 'max.block.ms', type: 'LONG', defaultValue: 60000, importance: 'MEDIUM', documentation: 'How long a send waits for metadata.', validator: Validators.atLeast(0) })
  .define({ name: 'enable.idempotence', type: 'BOOLEAN', defaultValue: true, importance: 'LOW', documentation: 'Idempotent producer (needs acks=all).' })
  .define({ name: 'max.in.flight.requests.per.connection', type: 'INT', defaultValue: 5, importance: 'LOW', documentation: 'Batches per partition in flight.', validator: Validators.atLeast(1) });

type SourceProducerOptions = Pick<
  ProducerOptions<Buffer | null, Buffer | null>,
  'acks' | 'lingerMs' | 'batchSize' | 'compression' | 'bufferMemory' | 'retries' | 'retryBackoffMs' | 'deliveryTimeoutMs' | 'requestTimeoutMs' | 'maxRequestBytes' | 'maxBlockMs' | 'idempotent' | 'maxInFlight'
>;

/** The producer options of a worker config's `producer.*` keys, and the keys it does not know. */
export function sourceProducerOptions(workerRaw: Readonly<Record<string, string>>): { options: SourceProducerOptions; unknown: string[] } {
  const props: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(workerRaw)) {
    if (!k.startsWith(PRODUCER_PREFIX)) continue;
    const name = k.slice(PRODUCER_PREFIX.length);
    if (PRODUCER_DEF.get(name) === undefined) unknown.push(k);
    else props[name] = v;
  }
  const c = ParsedConfig.of(PRODUCER_DEF, props);
  const acks = c.string('acks');
  const idempotenceSet = props['enable.idempotence'] !== undefined;
  const options: SourceProducerOptions = {
    acks: (acks === 'all' ? -1 : Number(acks)) as Acks,
    lingerMs: c.number('linger.ms'),
    batchSize: c.number('batch.size'),
    compression: c.string('compression.type') as CompressionName,
    bufferMemory: c.number('buffer.memory'),
    retries: c.number('retries'),
    retryBackoffMs: c.number('retry.backoff.ms'),
    deliveryTimeoutMs: c.number('delivery.timeout.ms'),
    requestTimeoutMs: c.number('request.timeout.ms'),
    maxRequestBytes: c.number('max.request.size'),
    maxBlockMs: c.number('max.block.ms'),
    maxInFlight: c.number('max.in.flight.requests.per.connection'),
    // Unset, idempotence follows the other options (our Producer's rule, as Java's); set, it is required.
    ...(idempotenceSet ? { idempotent: c.boolean('enable.idempotence') } : {}),
  };
  return { options, unknown };
}

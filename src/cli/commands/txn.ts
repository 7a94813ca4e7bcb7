/**
 * `tributary txn list|describe|abort` and `tributary producer describe
 * TOPIC`: the transaction tools of KIP-664 (kafka-transactions.sh) over the
 * Kafka protocol (src/client/txn-admin.ts): ListTransactions from every
 * broker, DescribeTransactions from the id's coordinator, DescribeProducers
 * from each partition leader, and `abort`, which writes an ABORT marker for
 * a producer's open transaction on one partition (a hanging transaction no
 * coordinator will end). Without --producer-epoch / --coordinator-epoch,
 * abort takes them from DescribeProducers, as Kafka's tool does.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { abortTransaction, describeProducers, describeTransaction, listTransactions } from '../../client/txn-admin.js';
import { findHangingTransactions } from './txn-hanging.js';
import { checkBootstrap, collect, formatTable, nonNegativeInt, toJson, usageError, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

interface JsonOption extends CommonOptions {
  json?: boolean;
}

interface ListOptions extends JsonOption {
  state?: string[];
  producerId?: string[];
  durationMs?: number;
  hanging?: boolean;
  topic?: string[];
  maxTransactionTimeoutMs?: number;
}

/** Kafka's transaction.max.timeout.ms default, the threshold of find-hanging. */
const MAX_TRANSACTION_TIMEOUT_MS_DEFAULT = 900_000;

interface AbortOptions extends JsonOption {
  topic: string;
  partition: number;
  producerId: bigint;
  producerEpoch?: number;
  coordinatorEpoch?: number;
}

function bigintArg(value: string): bigint {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`not an integer: ${value}`);
  return BigInt(value);
}

export function registerTxnCommands(program: Command): void {
  const txn = program.command('txn').description('list, describe and abort transactions (KIP-664)');
  withExamples(txn, ['tributary txn list', 'tributary txn describe payments-tx', 'tributary txn abort --topic orders --partition 0 --producer-id 1001']);
  withExamples(withClientOptions(txn.command('list').description('transactional ids of every coordinator')), ['tributary txn list', 'tributary txn list --state Ongoing --duration-ms 60000 --json', 'tributary txn list --hanging --topic orders'])
    .option('--state <state>', 'only these states (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence, Dead); repeatable', collect)
    .option('--producer-id <id>', 'only this producer id; repeatable', collect)
    .option('--duration-ms <ms>', 'only transactions open longer than this', nonNegativeInt('--duration-ms'))
    .option('--hanging', 'instead: open transactions no coordinator knows (kafka-transactions.sh find-hanging), from every partition\'s producers')
    .option('--topic <topic>', 'with --hanging: only this topic; repeatable', collect)
    .option('--max-transaction-timeout-ms <ms>', 'with --hanging: open (since the producer\'s last write) at least this long (the brokers\' transaction.max.timeout.ms)', nonNegativeInt('--max-transaction-timeout-ms'))
    .option('--json', 'print JSON')
    .action(async (options: ListOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      if (options.hanging === true) return listHanging(options);
      await withAdmin(options, async (admin) => {
        const filters = { states: options.state ?? [], producerIds: (options.producerId ?? []).map(bigintArg), ...(options.durationMs === undefined ? {} : { durationMs: options.durationMs }) };
        const txns = await listTransactions(admin.cluster, filters);
        if (options.json === true) return writeOut(`${toJson(txns, 2)}\n`);
        const rows = txns.map((t) => [t.transactionalId, String(t.coordinatorId), String(t.producerId), t.state]);
        return writeOut(`${formatTable(['TRANSACTIONAL-ID', 'COORDINATOR', 'PRODUCER-ID', 'STATE'], rows)}\n`);
      });
    });
  withExamples(withClientOptions(txn.command('describe').description('one transactional id: state, producer, timeout, partitions').argument('<transactional-id>')), ['tributary txn describe payments-tx', 'tributary txn describe payments-tx --json'])
    .option('--json', 'print JSON')
    .action(async (id: string, options: JsonOption, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const d = await describeTransaction(admin.cluster, id);
        if (options.json === true) return writeOut(`${toJson(d, 2)}\n`);
        const partitions = d.partitions.map((p) => `${p.topic}-${p.partition}`).join(',') || '-';
        const start = d.transactionStartTimeMs < 0n ? '-' : new Date(Number(d.transactionStartTimeMs)).toISOString();
        const rows = [[d.transactionalId, String(d.coordinatorId), d.state, String(d.producerId), String(d.producerEpoch), String(d.transactionTimeoutMs), start, partitions]];
        return writeOut(`${formatTable(['TRANSACTIONAL-ID', 'COORDINATOR', 'STATE', 'PRODUCER-ID', 'EPOCH', 'TIMEOUT-MS', 'STARTED', 'PARTITIONS'], rows)}\n`);
      });
    });
  registerAbort(txn);
  const producer = program.command('producer').description('active producers of partitions (KIP-664)');
  withExamples(producer, ['tributary producer describe orders']);
  withExamples(withClientOptions(producer.command('describe').description('active producers of a topic\'s partitions, from their leaders').argument('<topic>')), ['tributary producer describe orders', 'tributary producer describe orders --partition 0 --json'])
    .option('--partition <n>', 'only this partition; repeatable', collect)
    .option('--json', 'print JSON')
    .action(async (topic: string, options: JsonOption & { partition?: string[] }, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const list = await describeProducers(admin.cluster, topic, options.partition?.map(Number));
        if (options.json === true) return writeOut(`${toJson(list, 2)}\n`);
        const rows = list.map((p) => [String(p.partition), String(p.producerId), String(p.producerEpoch), String(p.lastSequence), String(p.lastTimestamp), String(p.coordinatorEpoch), String(p.currentTxnStartOffset)]);
        return writeOut(`${formatTable(['PARTITION', 'PRODUCER-ID', 'EPOCH', 'LAST-SEQUENCE', 'LAST-TIMESTAMP', 'COORDINATOR-EPOCH', 'TXN-START-OFFSET'], rows)}\n`);
      });
    });
}

async function listHanging(options: ListOptions): Promise<void> {
  await withAdmin(options, async (admin) => {
    const found = await findHangingTransactions(admin.cluster, {
      maxTimeoutMs: options.maxTransactionTimeoutMs ?? MAX_TRANSACTION_TIMEOUT_MS_DEFAULT,
      ...(options.topic === undefined ? {} : { topics: options.topic }),
    });
    if (options.json === true) return writeOut(`${toJson(found, 2)}\n`);
    const rows = found.map((h) => [h.topic, String(h.partition), String(h.producerId), String(h.producerEpoch), String(h.coordinatorEpoch), String(h.firstOffset), String(Math.round(h.openForMs / 1000))]);
    return writeOut(`${formatTable(['TOPIC', 'PARTITION', 'PRODUCER-ID', 'EPOCH', 'COORDINATOR-EPOCH', 'START-OFFSET', 'OPEN-S'], rows)}\n`);
  });
}

function registerAbort(txn: Command): void {
  withExamples(withClientOptions(txn.command('abort').description('write an ABORT marker for a producer\'s open transaction on one partition (a hanging transaction)')), [
    'tributary txn abort --topic orders --partition 0 --producer-id 1001',
  ])
    .requiredOption('--topic <topic>', 'the partition\'s topic')
    .requiredOption('--partition <n>', 'the partition', nonNegativeInt('--partition'))
    .requiredOption('--producer-id <id>', 'the producer whose transaction to abort', bigintArg)
    .option('--producer-epoch <n>', 'its epoch (default: from DescribeProducers)', nonNegativeInt('--producer-epoch'))
    .option('--coordinator-epoch <n>', 'coordinator epoch of the marker (default: from DescribeProducers)', nonNegativeInt('--coordinator-epoch'))
    .option('--json', 'print JSON')
    .action(async (options: AbortOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        let { producerEpoch, coordinatorEpoch } = options;
        if (producerEpoch === undefined || coordinatorEpoch === undefined) {
          const active = (await describeProducers(admin.cluster, options.topic, [options.partition])).find((p) => p.producerId === options.producerId);
          if (active === undefined) usageError(cmd, `producer ${options.producerId} is not active on ${options.topic}-${options.partition}`);
          producerEpoch ??= active.producerEpoch;
          coordinatorEpoch ??= Math.max(active.coordinatorEpoch, 0);
        }
        const spec = { topic: options.topic, partition: options.partition, producerId: options.producerId, producerEpoch, coordinatorEpoch };
        await abortTransaction(admin.cluster, spec);
        if (options.json === true) return writeOut(`${toJson({ aborted: spec }, 2)}\n`);
        return writeOut(`aborted the transaction of producer ${spec.producerId} (epoch ${producerEpoch}) on ${spec.topic}-${spec.partition}\n`);
      });
    });
}

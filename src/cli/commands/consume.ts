/**
 * `tributary consume TOPIC`: prints record values, one per line.
 *
 * Reads one partition (--partition) or all of them (assigned directly, no
 * consumer group), starting at --offset earliest|latest|N (default latest).
 * Stops after --max records, when --timeout-ms passes without a new record,
 * or on Ctrl-C. Output per record:
 *   [partition:offset<TAB>][key<TAB>]value      (--print-offset, --print-key)
 *   {"topic":..,"partition":..,"offset":..,"timestamp":..,"key":..,"value":..,"headers":{..}}   (--json)
 * Null keys and values print as `null`.
 *
 * With --group G the command joins consumer group G instead of reading every
 * partition (see consume-group.ts): it starts from the group's committed
 * offsets and commits what it printed.
 */
import type { Command } from 'commander';
import type { Cluster } from '../../client/cluster.js';
import { invalidArgument } from '../../net/errors.js';
import { fetchMany, listOffsetsMany, type FetchPosition } from '../../client/records.js';
import { consumeGroup } from './consume-group.js';
import { formatRecord } from './record-format.js';
import { watchStdoutReader } from './stdout-reader.js';
import { checkBootstrap, connectCluster, nonNegativeInt, positiveInt, run, toJson, usageError, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

/** Longest single fetch wait, so --timeout-ms and Ctrl-C are noticed promptly. */
const FETCH_WAIT_MS_MAX = 500;

interface ConsumeCliOptions extends CommonOptions {
  partition?: number;
  offset?: string;
  fromBeginning?: boolean;
  max?: number;
  timeoutMs?: number;
  printKey?: boolean;
  printOffset?: boolean;
  json?: boolean;
  isolationLevel: string;
  group?: string;
}

type StartOffset = 'earliest' | 'latest' | bigint;

export function registerConsumeCommand(program: Command): void {
  withExamples(withClientOptions(program.command('consume').description('print records of a topic, one value per line')), [
    'tributary consume orders                                   new records, until Ctrl-C',
    'tributary consume orders --offset earliest --max 10 --print-key --print-offset',
    'tributary consume orders --partition 2 --from-beginning --timeout-ms 1000 --json',
    'tributary consume orders --group audit --from-beginning    as a member of consumer group audit',
  ])
    .argument('<topic>', 'topic to read')
    .option('-p, --partition <n>', 'read only this partition (default: all)', nonNegativeInt('--partition'))
    .option('-o, --offset <offset>', 'where to start: earliest, latest or an offset (default: latest)')
    .option('--from-beginning', 'same as --offset earliest')
    .option('-n, --max <n>', 'stop after this many records', positiveInt('--max'))
    .option('--timeout-ms <ms>', 'stop when no record arrives for this long (default: run until Ctrl-C)', positiveInt('--timeout-ms'))
    .option('--print-key', 'print key<TAB>value')
    .option('--print-offset', 'print partition:offset<TAB> before each record')
    .option('--json', 'print one JSON object per record')
    .option('--isolation-level <level>', 'read_uncommitted or read_committed', 'read_uncommitted')
    .option('-g, --group <group>', 'consume as a member of this consumer group (start from its committed offsets; --offset applies when there are none)')
    .action(async (topic: string, options: ConsumeCliOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      let start: StartOffset;
      try {
        start = parseStartOffset(options.fromBeginning === true ? 'earliest' : (options.offset ?? 'latest'));
        if (options.isolationLevel !== 'read_uncommitted' && options.isolationLevel !== 'read_committed') {
          throw new Error('--isolation-level must be read_uncommitted or read_committed');
        }
        if (options.group !== undefined) {
          if (options.group.length === 0) throw new Error('--group needs a group id');
          if (options.partition !== undefined) throw new Error('--partition cannot be used with --group (the group assigns the partitions)');
          if (typeof start === 'bigint') throw new Error('with --group, --offset is earliest or latest (where to start when the group has no committed offset)');
        }
      } catch (err) {
        usageError(cmd, (err as Error).message);
      }
      await run(
        async () => {
          if (options.group !== undefined) {
            await consumeGroup(topic, options.group, start === 'earliest' ? 'earliest' : 'latest', options);
            return;
          }
          const cluster = await connectCluster(options);
          try {
            await consume(cluster, topic, start, options);
          } finally {
            await cluster.close();
          }
        },
        { bootstrap: options.bootstrap },
      );
    });
}

export function parseStartOffset(text: string): StartOffset {
  if (text === 'earliest' || text === 'beginning') return 'earliest';
  if (text === 'latest' || text === 'end') return 'latest';
  if (/^\d+$/.test(text)) return BigInt(text);
  throw invalidArgument(`--offset must be earliest, latest or an offset >= 0, got '${text}'`);
}

async function consume(cluster: Cluster, topic: string, start: StartOffset, options: ConsumeCliOptions): Promise<void> {
  const meta = await cluster.topic(topic);
  let partitions = meta.partitions.map((p) => p.partition);
  if (options.partition !== undefined) {
    if (!partitions.includes(options.partition)) {
      throw invalidArgument(`partition ${options.partition} does not exist: ${topic} has partitions 0-${partitions.length - 1}`);
    }
    partitions = [options.partition];
  }
  let positions: FetchPosition[];
  if (typeof start === 'bigint') {
    positions = partitions.map((partition) => ({ topic, partition, offset: start }));
  } else {
    const listed = await listOffsetsMany(
      cluster,
      partitions.map((partition) => ({ topic, partition, spec: start })),
    );
    positions = listed.map((l) => ({ topic, partition: l.partition, offset: l.offset }));
  }

  let stopped = false;
  const onSigint = (): void => {
    stopped = true;
  };
  process.once('SIGINT', onSigint);
  // `consume ... | head`: a closed pipe ends the command quietly.
  let pipeClosed = false;
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') pipeClosed = stopped = true;
  };
  process.stdout.on('error', onStdoutError);
  // With nothing new to print there is no write to fail: notice the reader leaving (stdout-reader.ts).
  let writing = false;
  const stopWatch = watchStdoutReader(() => (pipeClosed = stopped = true), () => !writing);
  const max = options.max ?? Infinity;
  let count = 0;
  let lastRecordMs = performance.now();
  try {
    while (!stopped && count < max) {
      const idleMs = performance.now() - lastRecordMs;
      if (options.timeoutMs !== undefined && idleMs >= options.timeoutMs) break;
      const waitMs = Math.max(1, Math.min(FETCH_WAIT_MS_MAX, options.timeoutMs === undefined ? FETCH_WAIT_MS_MAX : options.timeoutMs - idleMs));
      const results = await fetchMany(cluster, positions, {
        maxWaitMs: Math.round(waitMs),
        isolationLevel: options.isolationLevel === 'read_committed' ? 1 : 0,
      });
      const out: string[] = [];
      results.forEach((r, i) => {
        (positions[i] as FetchPosition).offset = r.nextOffset;
        for (const record of r.records) {
          if (count >= max) break;
          out.push(formatRecord(record, options));
          count++;
        }
      });
      if (out.length > 0) {
        lastRecordMs = performance.now();
        writing = true;
        try {
          await writeOut(`${out.join('\n')}\n`);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
          pipeClosed = true;
        } finally {
          writing = false;
        }
        if (pipeClosed) break;
      }
    }
  } finally {
    stopWatch();
    process.off('SIGINT', onSigint);
    // The stdout error listener stays: a late EPIPE must not crash the exiting process.
  }
  process.stderr.write(`Processed a total of ${count} records.\n`);
}

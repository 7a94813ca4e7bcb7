/**
 * `tributary records delete TOPIC (--before OFFSET | --all)`: deletes the
 * records of a topic below an offset (DeleteRecords: moves each partition's
 * log start offset), as kafka-delete-records.sh does. `--all` deletes up to
 * the high watermark. Every partition by default, or those of --partition.
 * With many partitions the work goes in chunks with a progress line.
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { Admin } from '../../client/admin.js';
import { HIGH_WATERMARK, type DeleteRecordsResult } from '../../client/cluster-admin.js';
import { invalidArgument } from '../../net/errors.js';
import {
  EXIT_RUNTIME,
  Progress,
  checkBootstrap,
  formatTable,
  reportError,
  toJson,
  usageError,
  withAdmin,
  withClientOptions,
  withExamples,
  writeOut,
  type CommonOptions,
} from './common.js';

/** At this many partitions or more, records delete shows a progress line. */
export const DELETE_PROGRESS_PARTITIONS_MIN = 100;
const DELETE_CHUNK_PARTITIONS = 100;

interface DeleteOptions extends CommonOptions {
  partition?: number[];
  before?: bigint;
  all?: boolean;
  json?: boolean;
}

export function registerRecordsCommands(program: Command): void {
  const records = program.command('records').description('delete records from the start of partitions');
  withExamples(records, ['tributary records delete orders --partition 0 --before 1000', 'tributary records delete orders --all']);

  withExamples(withClientOptions(records.command('delete').description('delete the records below an offset (moves the log start offset)')), [
    'tributary records delete orders --partition 0 --before 1000     records 0-999 of partition 0',
    'tributary records delete orders --partition 0,2 --before 500',
    'tributary records delete orders --all                           every record of every partition, up to the high watermark',
    'tributary records delete orders --all --json',
  ])
    .argument('<topic>', 'topic')
    .option('-p, --partition <n[,n...]>', 'only these partitions; repeatable (default: every partition)', collectPartitions)
    .option('--before <offset>', 'delete the records below this offset (it becomes the log start offset)', parseOffset)
    .option('--all', 'delete every record up to the high watermark')
    .option('--json', 'print the results as JSON')
    .action(async (topic: string, options: DeleteOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      if ((options.before === undefined) === (options.all !== true)) usageError(cmd, 'give exactly one of --before OFFSET and --all');
      const offset = options.all === true ? HIGH_WATERMARK : (options.before as bigint);
      await withAdmin(options, (admin) => deleteRecords(admin, topic, offset, options));
    });
}

function collectPartitions(value: string, previous: number[] | undefined): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || !Number.isSafeInteger(Number(p)))) {
    throw new InvalidArgumentError(`--partition must be integers >= 0 separated by commas, got '${value}'.`);
  }
  return [...new Set([...(previous ?? []), ...parts.map(Number)])].sort((a, b) => a - b);
}

function parseOffset(value: string): bigint {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`--before must be an offset >= 0, got '${value}'.`);
  return BigInt(value.trim());
}

async function deleteRecords(admin: Admin, topic: string, offset: bigint, options: DeleteOptions): Promise<void> {
  const meta = await admin.cluster.topic(topic, true);
  const existing = meta.partitions.map((p) => p.partition);
  const partitions = options.partition ?? existing;
  for (const p of partitions) {
    if (!existing.includes(p)) throw invalidArgument(`partition ${p} does not exist: ${topic} has partitions 0-${existing.length - 1}`);
  }
  const progress = new Progress(partitions.length >= DELETE_PROGRESS_PARTITIONS_MIN);
  const results: DeleteRecordsResult[] = [];
  for (let i = 0; i < partitions.length; i += DELETE_CHUNK_PARTITIONS) {
    const chunk = partitions.slice(i, i + DELETE_CHUNK_PARTITIONS);
    results.push(...(await admin.deleteRecords(topic, new Map(chunk.map((p) => [p, offset])), { timeoutMs: options.requestTimeoutMs })));
    progress.show(`Deleting records: ${results.length}/${partitions.length} partitions`);
  }
  progress.done();
  if (options.json === true) await writeOut(`${toJson(results, 2)}\n`);
  else await writeOut(`${formatDeleteResults(results)}\n`);
  const failed = results.filter((r) => r.error !== null);
  if (failed.length > 0) {
    reportError(failed[0]?.error);
    if (failed.length > 1) process.stderr.write(`error: ${failed.length} of ${results.length} partitions failed (see the ERROR column).\n`);
    process.exitCode = EXIT_RUNTIME;
    return;
  }
  const what = offset === HIGH_WATERMARK ? 'every record up to the high watermark' : `the records below offset ${offset}`;
  process.stderr.write(`Deleted ${what} in ${results.length} partition${results.length === 1 ? '' : 's'} of ${topic}.\n`);
}

export function formatDeleteResults(results: readonly DeleteRecordsResult[]): string {
  const rows = results.map((r) => [r.topic, String(r.partition), r.error === null ? String(r.lowWatermark) : '-', r.error === null ? '-' : r.error.errorName]);
  return formatTable(['TOPIC', 'PARTITION', 'LOG-START-OFFSET', 'ERROR'], rows);
}

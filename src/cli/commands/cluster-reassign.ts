/**
 * `tributary cluster reassign --execute|--verify|--cancel <file>`: partition
 * reassignment from a file in Kafka's reassignment JSON format (the one
 * kafka-reassign-partitions.sh reads), over AlterPartitionReassignments (45)
 * and ListPartitionReassignments (46):
 *
 *   {"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,3]}]}
 *
 * (`log_dirs`, when present, must be "any" per replica: one log dir per node.)
 * --execute prints the current assignment first, in the same format, to keep
 * for a rollback, then starts the moves; --verify says, per partition,
 * whether the move is complete, still in progress, or did not happen;
 * --cancel stops the moves in progress (the replicas go back).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Admin } from '../../client/admin.js';
import type { PartitionReassignment } from '../../client/cluster-admin.js';
import { EXIT_RUNTIME, checkBootstrap, formatTable, reportError, toJson, usageError, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

interface ReassignOptions extends CommonOptions {
  execute?: string;
  verify?: string;
  cancel?: string;
  json?: boolean;
}

export interface PartitionTarget {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
}

/** Parses Kafka's reassignment JSON; throws an Error naming what is wrong. */
export function parseReassignmentJson(text: string): PartitionTarget[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`the reassignment file is not JSON: ${(err as Error).message}`);
  }
  const d = doc as { version?: unknown; partitions?: unknown };
  if (typeof d !== 'object' || d === null || d.version !== 1 || !Array.isArray(d.partitions)) throw new Error('expected {"version":1,"partitions":[...]}');
  const seen = new Set<string>();
  return d.partitions.map((raw: unknown, i): PartitionTarget => {
    const p = raw as { topic?: unknown; partition?: unknown; replicas?: unknown; log_dirs?: unknown };
    const where = `partitions[${i}]`;
    if (typeof p !== 'object' || p === null || typeof p.topic !== 'string' || p.topic === '') throw new Error(`${where}: "topic" must be a topic name`);
    if (!Number.isInteger(p.partition) || (p.partition as number) < 0) throw new Error(`${where}: "partition" must be a partition number`);
    const replicas = p.replicas;
    if (!Array.isArray(replicas) || replicas.length === 0 || !replicas.every((r) => Number.isInteger(r) && (r as number) >= 0)) throw new Error(`${where}: "replicas" must be a non-empty list of broker ids`);
    if (new Set(replicas).size !== replicas.length) throw new Error(`${where}: "replicas" names a broker twice`);
    if (p.log_dirs !== undefined && (!Array.isArray(p.log_dirs) || p.log_dirs.length !== replicas.length || !p.log_dirs.every((x) => x === 'any'))) {
      throw new Error(`${where}: "log_dirs" must be "any" for every replica (one log directory per node)`);
    }
    const key = `${p.topic}:${String(p.partition)}`;
    if (seen.has(key)) throw new Error(`${where}: ${p.topic}-${String(p.partition)} is listed twice`);
    seen.add(key);
    return { topic: p.topic, partition: p.partition as number, replicas: replicas as number[] };
  });
}

/** The reassignment JSON of `targets` (Kafka's format). */
export function reassignmentJson(targets: readonly PartitionTarget[]): string {
  return toJson({ version: 1, partitions: targets.map((t) => ({ topic: t.topic, partition: t.partition, replicas: t.replicas, log_dirs: t.replicas.map(() => 'any') })) });
}

export type VerifyState = 'complete' | 'in progress' | 'not moved';

/** --verify: per target, complete (the replicas are the target), in progress (listed by ListPartitionReassignments), or not moved. */
export function verifyStates(targets: readonly PartitionTarget[], current: ReadonlyMap<string, readonly number[]>, ongoing: readonly PartitionReassignment[]): { target: PartitionTarget; state: VerifyState }[] {
  const moving = new Set(ongoing.map((o) => `${o.topic}:${o.partition}`));
  return targets.map((target) => {
    const key = `${target.topic}:${target.partition}`;
    if (moving.has(key)) return { target, state: 'in progress' };
    const now = current.get(key) ?? [];
    const done = now.length === target.replicas.length && now.every((r, i) => r === target.replicas[i]);
    return { target, state: done ? 'complete' : 'not moved' };
  });
}

async function currentReplicas(admin: Admin, topics: readonly string[]): Promise<Map<string, readonly number[]>> {
  const out = new Map<string, readonly number[]>();
  for (const t of await admin.describeTopics([...new Set(topics)])) for (const p of t.partitions) out.set(`${t.name}:${p.partition}`, p.replicas);
  return out;
}

export function registerReassignCommand(cluster: Command): void {
  withExamples(withClientOptions(cluster.command('reassign').description('move partition replicas between brokers (Kafka reassignment JSON)')), [
    'tributary cluster reassign --execute plan.json      prints the current assignment (keep it for a rollback), starts the moves',
    'tributary cluster reassign --verify plan.json       complete / in progress / not moved, per partition',
    'tributary cluster reassign --cancel plan.json',
    'tributary cluster reassignments                      every move in progress',
  ])
    .option('--execute <file>', 'start the reassignment described by the file')
    .option('--verify <file>', 'report the progress of the reassignment described by the file')
    .option('--cancel <file>', 'cancel the moves of the file that are in progress')
    .option('--json', 'print JSON')
    .action(async (options: ReassignOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const modes = (['execute', 'verify', 'cancel'] as const).filter((m) => options[m] !== undefined);
      if (modes.length !== 1) usageError(cmd, 'give exactly one of --execute, --verify, --cancel');
      const mode = modes[0] as 'execute' | 'verify' | 'cancel';
      let targets: PartitionTarget[] = [];
      try {
        targets = parseReassignmentJson(readFileSync(options[mode] as string, 'utf8'));
      } catch (err) {
        usageError(cmd, `${options[mode] as string}: ${(err as Error).message}`);
      }
      await withAdmin(options, async (admin) => {
        if (mode === 'verify') return verify(admin, targets, options.json === true);
        if (mode === 'execute') {
          const current = await currentReplicas(admin, targets.map((t) => t.topic));
          const rollback = targets.flatMap((t) => {
            const replicas = current.get(`${t.topic}:${t.partition}`);
            return replicas === undefined ? [] : [{ topic: t.topic, partition: t.partition, replicas }];
          });
          if (options.json !== true) await writeOut(`Current partition replica assignment (save it for a rollback with --execute):\n${reassignmentJson(rollback)}\n\n`);
        }
        const results = await admin.alterPartitionReassignments(targets.map((t) => ({ topic: t.topic, partition: t.partition, replicas: mode === 'cancel' ? null : t.replicas })));
        if (options.json === true) await writeOut(`${toJson(results, 2)}\n`);
        else {
          const rows = results.map((r) => [r.topic, String(r.partition), r.error === null ? (mode === 'cancel' ? 'cancelled' : 'started') : 'failed', r.error?.errorName ?? '-', r.error?.message ?? '-']);
          await writeOut(`${formatTable(['TOPIC', 'PARTITION', 'RESULT', 'ERROR', 'MESSAGE'], rows)}\n`);
        }
        const failed = results.filter((r) => r.error !== null);
        for (const r of failed) reportError(r.error);
        if (failed.length > 0) process.exitCode = EXIT_RUNTIME;
      });
    });
}

async function verify(admin: Admin, targets: readonly PartitionTarget[], json: boolean): Promise<void> {
  const current = await currentReplicas(admin, targets.map((t) => t.topic));
  const states = verifyStates(targets, current, await admin.listPartitionReassignments());
  if (json) await writeOut(`${toJson(states.map((s) => ({ ...s.target, state: s.state, current: current.get(`${s.target.topic}:${s.target.partition}`) ?? null })), 2)}\n`);
  else {
    const rows = states.map((s) => [s.target.topic, String(s.target.partition), s.target.replicas.join(','), (current.get(`${s.target.topic}:${s.target.partition}`) ?? []).join(',') || '-', s.state]);
    await writeOut(`${formatTable(['TOPIC', 'PARTITION', 'TARGET', 'CURRENT', 'STATE'], rows)}\n`);
  }
  if (states.some((s) => s.state === 'not moved')) process.exitCode = EXIT_RUNTIME;
}

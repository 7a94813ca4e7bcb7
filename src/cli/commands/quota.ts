/**
 * `tributary quota set|list|remove`: client quotas (KIP-546) through
 * AlterClientQuotas and DescribeClientQuotas, as kafka-configs.sh
 * --entity-type users|clients|ips does. An entity is given by --user,
 * --client-id and --ip; a flag without a name (or with `<default>`, or
 * with --default) is that type's default entity (docs/security.md, "Quotas").
 */
import type { Command } from 'commander';
import type { ClientQuotaEntity, ClientQuotaFilterComponent, QuotaEntityType } from '../../client/quota-admin.js';
import { checkBootstrap, formatTable, toJson, usageError, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

const DEFAULT_NAME = '<default>';

/** Quota flags and their keys (Kafka's QuotaConfigs). */
const QUOTA_FLAGS = [
  ['--producer-byte-rate <bytes>', 'producer_byte_rate', 'produce bytes per second'],
  ['--consumer-byte-rate <bytes>', 'consumer_byte_rate', 'fetched bytes per second'],
  ['--request-percentage <percent>', 'request_percentage', 'request handler time, percent of one thread'],
  ['--controller-mutation-rate <n>', 'controller_mutation_rate', 'partitions created or deleted per second'],
  ['--connection-creation-rate <n>', 'connection_creation_rate', 'new connections per second (with --ip only)'],
] as const;

interface EntityOptions extends CommonOptions {
  user?: string | true;
  clientId?: string | true;
  ip?: string | true;
  default?: boolean;
}

interface SetOptions extends EntityOptions {
  producerByteRate?: string;
  consumerByteRate?: string;
  requestPercentage?: string;
  controllerMutationRate?: string;
  connectionCreationRate?: string;
}

interface RemoveOptions extends EntityOptions {
  key?: string[];
}

interface ListOptions extends EntityOptions {
  strict?: boolean;
  json?: boolean;
}

function withEntityOptions(cmd: Command): Command {
  return cmd
    .option('--user [name]', 'the user (no name, or <default>: the default user)')
    .option('--client-id [id]', 'the client id (no id, or <default>: the default client id)')
    .option('--ip [address]', 'the IP address (no address, or <default>: the default IP)')
    .option('--default', 'the entity types given without a name are their defaults; alone: the default user');
}

/** The entity named by the flags (undefined types are not part of it; null = default). */
export function entityOf(options: EntityOptions): ClientQuotaEntity {
  const name = (v: string | true): string | null => (v === true || v === DEFAULT_NAME ? null : v);
  const entity: { [T in QuotaEntityType]?: string | null } = {};
  if (options.user !== undefined) entity.user = name(options.user);
  if (options.clientId !== undefined) entity['client-id'] = name(options.clientId);
  if (options.ip !== undefined) entity.ip = name(options.ip);
  if (Object.keys(entity).length === 0 && options.default === true) entity.user = null;
  return entity;
}

/** Kafka's path of an entity, e.g. /config/users/alice/clients/<default>. */
export function entityPath(e: ClientQuotaEntity): string {
  const n = (v: string | null | undefined): string => v ?? DEFAULT_NAME;
  if (e.ip !== undefined) return `/config/ips/${n(e.ip)}`;
  if (e.user !== undefined && e['client-id'] !== undefined) return `/config/users/${n(e.user)}/clients/${n(e['client-id'])}`;
  if (e.user !== undefined) return `/config/users/${n(e.user)}`;
  return `/config/clients/${n(e['client-id'])}`;
}

function filterOf(options: EntityOptions): ClientQuotaFilterComponent[] {
  return (Object.entries(entityOf(options)) as [QuotaEntityType, string | null][]).map(([entityType, name]) =>
    name === null ? { entityType, matchType: 'default' } : { entityType, matchType: 'exact', match: name },
  );
}

function requireEntity(cmd: Command, options: EntityOptions): ClientQuotaEntity {
  const entity = entityOf(options);
  if (Object.keys(entity).length === 0) usageError(cmd, 'name an entity: --user, --client-id and/or --ip (or --default for the default user)');
  return entity;
}

export function registerQuotaCommands(program: Command): void {
  const quota = program.command('quota').description('client quotas (bytes/s, request time, mutations, connection rate): set, list, remove');
  withExamples(quota, ['tributary quota set --user alice --producer-byte-rate 1048576', 'tributary quota list', 'tributary quota remove --user alice']);
  registerSet(quota);
  registerList(quota);
  registerRemove(quota);
}

function registerSet(quota: Command): void {
  const set = withEntityOptions(withClientOptions(quota.command('set').description('set quota values of an entity (others it has are kept)')));
  for (const [flag, key, help] of QUOTA_FLAGS) set.option(flag, `${key}: ${help}`);
  withExamples(set, [
    'tributary quota set --user alice --producer-byte-rate 1048576 --consumer-byte-rate 2097152',
    'tributary quota set --user alice --client-id reporting --request-percentage 25',
    'tributary quota set --user --producer-byte-rate 10485760          # the default user',
    'tributary quota set --ip 10.0.0.7 --connection-creation-rate 5',
  ]).action(async (options: SetOptions, cmd: Command) => {
    checkBootstrap(cmd, options.bootstrap);
    const entity = requireEntity(cmd, options);
    const values: Record<string, string | undefined> = {
      producer_byte_rate: options.producerByteRate, consumer_byte_rate: options.consumerByteRate, request_percentage: options.requestPercentage,
      controller_mutation_rate: options.controllerMutationRate, connection_creation_rate: options.connectionCreationRate,
    };
    const ops = Object.entries(values).flatMap(([key, raw]) => {
      if (raw === undefined) return [];
      const value = Number(raw);
      if (!Number.isFinite(value) || value <= 0) usageError(cmd, `${key} must be a positive number, got ${raw}`);
      return [{ key, value }];
    });
    if (ops.length === 0) usageError(cmd, `give at least one of ${QUOTA_FLAGS.map(([f]) => f.split(' ')[0]).join(', ')}`);
    await withAdmin(options, async (admin) => {
      const [result] = await admin.alterClientQuotas([{ entity, ops }]);
      if (result?.error) throw result.error;
      await writeOut(`Set ${ops.map((o) => `${o.key}=${o.value}`).join(', ')} on ${entityPath(entity)}.\n`);
    });
  });
}

function registerList(quota: Command): void {
  withExamples(withEntityOptions(withClientOptions(quota.command('list').description('quota entities and values (all, or those matching the entity flags)'))), [
    'tributary quota list',
    'tributary quota list --user alice',
    'tributary quota list --user --strict --json      # only the default user entity',
  ])
    .option('--strict', 'only entities with exactly the given entity types')
    .option('--json', 'print JSON')
    .action(async (options: ListOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      await withAdmin(options, async (admin) => {
        const entries = await admin.describeClientQuotas({ components: filterOf(options), strict: options.strict === true });
        const rows = entries.map((e) => ({ entity: entityPath(e.entity), values: e.values })).sort((a, b) => a.entity.localeCompare(b.entity));
        if (options.json === true) await writeOut(`${toJson(rows, 2)}\n`);
        else await writeOut(`${formatTable(['ENTITY', 'QUOTA', 'VALUE'], rows.flatMap((r) => Object.entries(r.values).map(([k, v]) => [r.entity, k, String(v)])))}\n`);
      });
    });
}

function registerRemove(quota: Command): void {
  withExamples(withEntityOptions(withClientOptions(quota.command('remove').description("remove an entity's quotas (all of them unless --key)"))), [
    'tributary quota remove --user alice',
    'tributary quota remove --user alice --client-id reporting --key request_percentage',
  ])
    .option('--key <key>', 'only this quota key (repeatable)', (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
    .action(async (options: RemoveOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const entity = requireEntity(cmd, options);
      await withAdmin(options, async (admin) => {
        let keys = options.key;
        if (keys === undefined) {
          const [current] = await admin.describeClientQuotas({ components: filterOf(options), strict: true });
          keys = Object.keys(current?.values ?? {});
        }
        if (keys.length === 0) {
          await writeOut(`${entityPath(entity)} has no quotas.\n`);
          return;
        }
        const [result] = await admin.alterClientQuotas([{ entity, ops: keys.map((key) => ({ key, remove: true as const })) }]);
        if (result?.error) throw result.error;
        await writeOut(`Removed ${keys.join(', ')} from ${entityPath(entity)}.\n`);
      });
    });
}

/**
 * `tributary acl add|remove|list`: ACLs through CreateAcls, DeleteAcls and
 * DescribeAcls, with the habits of kafka-acls.sh (`--allow-principal` is
 * `--allow` here): one principal, one or more `--operation`s, one resource
 * (`--topic`, `--group`, `--transactional-id`, `--cluster`), `--prefixed` for
 * a PREFIXED pattern, `--host` (default `*`). The brokers need an
 * authorizer (docs/security.md); with a SASL listener give the admin's login
 * with --command-config.
 */
import type { Command } from 'commander';
import { AclOperation, CLUSTER_NAME } from '../../protocol/acl-types.js';
import type { Acl, AclFilter } from '../../client/acl-admin.js';
import { checkBootstrap, usageError, collect, formatTable, toJson, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';

const OPERATIONS = Object.keys(AclOperation).filter((o) => o !== 'UNKNOWN' && o !== 'ANY') as Acl['operation'][];

interface ResourceOptions extends CommonOptions {
  topic?: string;
  group?: string;
  transactionalId?: string;
  cluster?: boolean;
  prefixed?: boolean;
}

interface ChangeOptions extends ResourceOptions {
  allow?: string;
  deny?: string;
  operation?: string[];
  host: string;
}

interface ListOptions extends ResourceOptions {
  principal?: string;
  json?: boolean;
}

/** The one resource named by the options; null when none is. */
function resourceOf(o: ResourceOptions, fail: (message: string) => never): { resourceType: Acl['resourceType']; resourceName: string } | null {
  const given = [
    o.topic === undefined ? null : { resourceType: 'TOPIC' as const, resourceName: o.topic },
    o.group === undefined ? null : { resourceType: 'GROUP' as const, resourceName: o.group },
    o.transactionalId === undefined ? null : { resourceType: 'TRANSACTIONAL_ID' as const, resourceName: o.transactionalId },
    o.cluster === true ? { resourceType: 'CLUSTER' as const, resourceName: CLUSTER_NAME } : null,
  ].filter((r) => r !== null);
  if (given.length > 1) fail('give one resource: --topic, --group, --transactional-id or --cluster');
  return given[0] ?? null;
}

/** The ACLs `add` creates and `remove` deletes: one per operation. */
function aclsOf(o: ChangeOptions, fail: (message: string) => never): Acl[] {
  if ((o.allow === undefined) === (o.deny === undefined)) fail('give one of --allow PRINCIPAL or --deny PRINCIPAL (e.g. --allow User:alice)');
  const principal = (o.allow ?? o.deny) as string;
  if (!principal.includes(':')) fail(`a principal is TYPE:NAME, e.g. User:alice (got ${principal})`);
  const resource = resourceOf(o, fail);
  if (resource === null) fail('give the resource: --topic NAME, --group NAME, --transactional-id NAME or --cluster');
  const operations = o.operation ?? [];
  if (operations.length === 0) fail(`give at least one --operation (${OPERATIONS.join(', ')})`);
  const unknown = operations.find((op) => !OPERATIONS.includes(op.toUpperCase() as Acl['operation']));
  if (unknown !== undefined) fail(`--operation must be one of ${OPERATIONS.join(', ')} (got ${unknown})`);
  return operations.map((op) => ({
    ...resource,
    patternType: o.prefixed === true ? 'PREFIXED' : 'LITERAL',
    principal,
    host: o.host,
    operation: op.toUpperCase() as Acl['operation'],
    permissionType: o.allow !== undefined ? 'ALLOW' : 'DENY',
  }));
}

function withResourceOptions(cmd: Command): Command {
  return cmd
    .option('--topic <name>', 'a topic (or a topic prefix with --prefixed; * = every topic)')
    .option('--group <name>', 'a consumer group')
    .option('--transactional-id <id>', 'a transactional id')
    .option('--cluster', 'the cluster')
    .option('--prefixed', 'the name is a prefix (PREFIXED pattern)');
}

function withChangeOptions(cmd: Command): Command {
  return withResourceOptions(withClientOptions(cmd))
    .option('--allow <principal>', 'grant to this principal, e.g. User:alice (User:* = everyone)')
    .option('--deny <principal>', 'deny to this principal')
    .option('--operation <op>', `operation, repeatable: ${OPERATIONS.join(', ')}`, collect)
    .option('--host <host>', 'client address the ACL applies to', '*');
}

function describeAcl(a: Acl): string {
  return `${a.permissionType} ${a.principal} ${a.operation} on ${a.resourceType}:${a.patternType === 'PREFIXED' ? `${a.resourceName}*` : a.resourceName} from ${a.host}`;
}

export function registerAclCommands(program: Command): void {
  const acl = program.command('acl').description('ACLs (the brokers need authorizer.class.name): add, remove, list');
  withExamples(acl, ['tributary acl add --allow User:alice --operation WRITE --topic orders', 'tributary acl list --topic orders']);
  withExamples(withChangeOptions(acl.command('add').description('create ACLs: one per --operation')), [
    'tributary acl add --allow User:alice --operation WRITE --operation DESCRIBE --topic orders',
    'tributary acl add --allow User:etl --operation READ --topic team-a. --prefixed',
    'tributary acl add --allow User:etl --operation READ --group etl',
    'tributary acl add --deny User:mallory --operation ALL --topic * --host 10.0.0.7',
  ]).action(async (options: ChangeOptions, cmd: Command) => {
    checkBootstrap(cmd, options.bootstrap);
    const acls = aclsOf(options, (m) => usageError(cmd, m));
    await withAdmin(options, async (admin) => {
      const results = await admin.createAcls(acls);
      const failed = results.find((r) => r.error !== null);
      if (failed?.error) throw failed.error;
      for (const a of acls) await writeOut(`Added ${describeAcl(a)}.\n`);
    });
  });
  withExamples(withChangeOptions(acl.command('remove').description('delete exactly the ACLs `add` with the same options creates')), ['tributary acl remove --allow User:alice --operation WRITE --topic orders'])
    .action(async (options: ChangeOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const acls = aclsOf(options, (m) => usageError(cmd, m));
      await withAdmin(options, async (admin) => {
        const results = await admin.deleteAcls(acls);
        const failed = results.find((r) => r.error !== null);
        if (failed?.error) throw failed.error;
        const deleted = results.flatMap((r) => r.deleted);
        await writeOut(deleted.length === 0 ? 'No such ACL.\n' : deleted.map((a) => `Removed ${describeAcl(a)}.\n`).join(''));
      });
    });
  withExamples(withResourceOptions(withClientOptions(acl.command('list').description('ACLs, all or those of a resource or principal'))), [
    'tributary acl list',
    'tributary acl list --topic orders          # the ACLs that apply to topic orders (literal, prefixed, *)',
    'tributary acl list --principal User:alice --json',
  ])
    .option('--principal <principal>', 'only this principal\'s ACLs')
    .option('--json', 'print JSON')
    .action(async (options: ListOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const resource = resourceOf(options, (m) => usageError(cmd, m));
      // A named resource lists every ACL that applies to it (MATCH), as kafka-acls.sh --list --topic does with its own filter.
      const filter: AclFilter = {
        ...(resource === null ? {} : { resourceType: resource.resourceType, resourceName: resource.resourceName, patternType: options.prefixed === true ? 'PREFIXED' : 'MATCH' }),
        ...(options.principal === undefined ? {} : { principal: options.principal }),
      };
      await withAdmin(options, async (admin) => {
        const acls = await admin.describeAcls(filter);
        if (options.json === true) await writeOut(`${toJson(acls, 2)}\n`);
        else await writeOut(`${formatTable(['PERMISSION', 'PRINCIPAL', 'OPERATION', 'RESOURCE', 'NAME', 'PATTERN', 'HOST'], acls.map((a) => [a.permissionType, a.principal, a.operation, a.resourceType, a.resourceName, a.patternType, a.host]))}\n`);
      });
    });
}

/**
 * `tributary tenant describe PRINCIPAL`: one operator's view of a tenant
 * (docs/security.md, "Tenants"): the quotas that apply to it, key by key,
 * with the entity level each comes from (Kafka's precedence); its current
 * usage from the brokers' metrics endpoints (--metrics-url, one per
 * broker); and what it may do (tenant-acls.ts).
 */
import type { Command } from 'commander';
import { effectiveClientQuotas } from '../../security/quota/effective.js';
import type { ClientQuotaEntity } from '../../client/quota-admin.js';
import { checkBootstrap, formatTable, toJson, usageError, withAdmin, withClientOptions, withExamples, writeOut, type CommonOptions } from './common.js';
import { describeTenantAcls, type TenantAclSection } from './tenant-acls.js';
import { fetchTenantUsage, type TenantUsage } from './tenant-usage.js';

interface DescribeOptions extends CommonOptions {
  clientId?: string;
  metricsUrl?: string[];
  json?: boolean;
}

function entityParts(e: ClientQuotaEntity): { entityType: string; entityName: string | null }[] {
  return Object.entries(e).map(([entityType, entityName]) => ({ entityType, entityName: entityName ?? null }));
}

export function registerTenantCommands(program: Command): void {
  const tenant = program.command('tenant').description("a principal's quotas, current usage and permissions in one view");
  withExamples(withClientOptions(tenant.command('describe <principal>').description('effective quotas (and the entity each comes from), usage per broker metrics, ACLs')), [
    'tributary tenant describe User:alice',
    'tributary tenant describe User:alice --client-id reporting --metrics-url http://10.0.0.5:9404 --metrics-url http://10.0.0.6:9404',
    'tributary tenant describe User:alice --json --command-config admin.properties',
  ])
    .option('--client-id <id>', 'the client id to resolve quotas for (default: one without its own quota)')
    .option('--metrics-url <url>', "a broker's metrics.listeners URL, for current usage (repeat for every broker)", (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
    .option('--json', 'print JSON')
    .action(async (principal: string, options: DescribeOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      if (!/^[^:]+:.+$/.test(principal)) usageError(cmd, `a principal is TYPE:NAME, e.g. User:alice; got ${principal}`);
      await withAdmin(options, async (admin) => {
        const entries = await admin.describeClientQuotas();
        const views = entries.map((e) => ({ entity: entityParts(e.entity), values: new Map(Object.entries(e.values)) }));
        const quotas = effectiveClientQuotas(views, principal, options.clientId ?? '');
        const usage = options.metricsUrl === undefined ? null : await fetchTenantUsage(options.metricsUrl, principal);
        const acls = await describeTenantAcls(admin, principal);
        if (options.json === true) {
          await writeOut(`${toJson({ principal, clientId: options.clientId ?? null, quotas, usage, acls }, 2)}\n`);
          return;
        }
        await writeOut(renderTenant(principal, options.clientId, quotas, usage, acls));
      });
    });
}

function renderTenant(principal: string, clientId: string | undefined, quotas: ReturnType<typeof effectiveClientQuotas>, usage: TenantUsage | null, acls: TenantAclSection): string {
  const lines = [`Principal: ${principal}${clientId === undefined ? '' : ` (client id ${clientId})`}`, '', 'Quotas:'];
  lines.push(formatTable(['QUOTA', 'VALUE', 'FROM'], quotas.map((q) => [q.key, q.value === undefined ? 'unlimited' : String(q.value), q.from ?? '-'])));
  lines.push('', 'Usage:');
  if (usage === null) {
    lines.push("  not read: give --metrics-url with each broker's metrics.listeners URL");
  } else {
    lines.push(
      formatTable(['PRODUCE B/S', 'FETCH B/S', 'REQUEST TIME %', 'CONNECTIONS', 'BROKERS'], [[usage.produceBytesPerSec.toFixed(0), usage.fetchBytesPerSec.toFixed(0), usage.requestTimePercent.toFixed(2), String(usage.connections), String(usage.brokers)]]),
    );
    for (const u of usage.unreachable) lines.push(`  unreachable: ${u}`);
  }
  lines.push('', 'ACLs:');
  if (!acls.available) lines.push(`  ${acls.note}`);
  else {
    lines.push(`  ${acls.note}`);
    if (acls.acls.length > 0) lines.push(formatTable(['PRINCIPAL', 'RESOURCE', 'PATTERN', 'NAME', 'OPERATION', 'PERMISSION', 'HOST'], acls.acls.map((a) => [a.principal, a.resourceType, a.patternType, a.resourceName, a.operation, a.permission, a.host])));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * IncrementalAlterConfigs as a pure function of the image (see plans.ts):
 * apply SET/DELETE/APPEND/SUBTRACT to a resource's explicit configs, validate
 * the result, and emit ConfigRecords for what changed (value null = delete).
 * Topic configs are validated by the injected topic validator; broker
 * configs only when a broker validator is given (plumbing for later).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { MetadataImage } from './metadata/image.js';
import { ConfigResourceType, type MetadataRecord } from './metadata/records.js';
import type { Plan } from './plans.js';
import {
  AlterConfigOp,
  type AlterConfigsResource,
  type AlterConfigsResult,
  type BrokerConfigValidator,
  type TopicConfigValidator,
} from './types.js';

export interface ConfigPlanContext {
  readonly image: MetadataImage;
  readonly validateTopicConfigs: TopicConfigValidator;
  readonly validateBrokerConfigs: BrokerConfigValidator | null;
  /** Key types and inherited values for APPEND/SUBTRACT; without it they edit the explicit value only. */
  readonly schema?: ConfigSchema | null | undefined;
}

/** What the plan needs to know about config keys (injected: src/config is the broker's). */
export interface ConfigSchema {
  /** Whether the key is list-typed (APPEND/SUBTRACT allowed); undefined for an unknown key (the validator reports it). */
  isList(resourceType: number, name: string): boolean | undefined;
  /** The value a resource has for a key it does not set (what APPEND/SUBTRACT start from), or null. */
  inheritedValue(resourceType: number, resourceName: string, name: string): string | null;
}

type Outcome = { errorCode: ErrorCode; errorMessage: string } | Map<string, string>;

function splitList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function applyOps(current: ReadonlyMap<string, string>, ops: AlterConfigsResource['configs'], ctx?: ConfigPlanContext, r?: AlterConfigsResource): Outcome {
  const next = new Map(current);
  const schema = ctx?.schema ?? null;
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.name)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Config ${op.name} appears more than once in the request.` };
    seen.add(op.name);
    switch (op.configOperation) {
      case AlterConfigOp.Set:
        if (op.value === null) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Null value not supported for ${op.name}; use DELETE to remove it.` };
        next.set(op.name, op.value);
        break;
      case AlterConfigOp.Delete:
        if (schema !== null && r !== undefined && schema.isList(r.resourceType, op.name) === undefined) {
          return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `${op.name}: unknown config key; nothing to delete.` };
        }
        next.delete(op.name);
        break;
      case AlterConfigOp.Append:
      case AlterConfigOp.Subtract: {
        const verb = op.configOperation === AlterConfigOp.Append ? 'APPEND' : 'SUBTRACT';
        if (schema !== null && r !== undefined && schema.isList(r.resourceType, op.name) === false) {
          return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `${op.name}: ${verb} only applies to list configs; use SET.` };
        }
        // Kafka starts from the current value; when the resource does not set
        // the key, from the value it inherits (we use the effective one).
        const inherited = schema !== null && r !== undefined && !next.has(op.name) ? schema.inheritedValue(r.resourceType, r.resourceName, op.name) : null;
        const items = splitList(next.get(op.name) ?? inherited ?? '');
        const changes = splitList(op.value ?? '');
        const updated = op.configOperation === AlterConfigOp.Append
          ? [...items, ...changes.filter((c) => !items.includes(c))]
          : items.filter((i) => !changes.includes(i));
        // With a schema an emptied list stays set to '' (Kafka); without, the key goes.
        if (updated.length === 0 && schema === null) next.delete(op.name);
        else next.set(op.name, updated.join(','));
        break;
      }
      default:
        return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown config operation ${op.configOperation} for ${op.name}.` };
    }
  }
  return next;
}

function planResource(ctx: ConfigPlanContext, r: AlterConfigsResource): Outcome {
  if (r.resourceType === ConfigResourceType.Topic) {
    if (ctx.image.topicByName(r.resourceName) === undefined) {
      return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic '${r.resourceName}' does not exist.` };
    }
    const next = applyOps(ctx.image.configs(r.resourceType, r.resourceName), r.configs, ctx, r);
    if (!(next instanceof Map)) return next;
    const errors = ctx.validateTopicConfigs(next);
    if (errors.length > 0) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: errors.map((e) => e.message).join('; ') };
    return next;
  }
  if (r.resourceType === ConfigResourceType.Broker) {
    if (ctx.validateBrokerConfigs === null) {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Dynamic broker configs cannot be altered yet; set them in the broker properties file.' };
    }
    if (r.resourceName !== '' && !/^\d+$/.test(r.resourceName)) {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Broker resource name '${r.resourceName}' is not a broker id (or '' for the cluster default).` };
    }
    const next = applyOps(ctx.image.configs(r.resourceType, r.resourceName), r.configs, ctx, r);
    if (!(next instanceof Map)) return next;
    const errors = ctx.validateBrokerConfigs(r.resourceName, next);
    if (errors.length > 0) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: errors.map((e) => e.message).join('; ') };
    return next;
  }
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported config resource type ${r.resourceType}.` };
}

function diffRecords(r: AlterConfigsResource, before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): MetadataRecord[] {
  const out: MetadataRecord[] = [];
  const base = { resourceType: r.resourceType, resourceName: r.resourceName };
  for (const [name, value] of after) if (before.get(name) !== value) out.push({ type: 'ConfigRecord', data: { ...base, name, value } });
  for (const name of before.keys()) if (!after.has(name)) out.push({ type: 'ConfigRecord', data: { ...base, name, value: null } });
  return out;
}

/**
 * AlterConfigs (the legacy, whole-resource form) as incremental operations:
 * every key given is SET, every explicit key not given is DELETEd. A null
 * value means "not set", as in KRaft's legacyAlterConfigs.
 */
export function legacyAlterToIncremental(
  image: MetadataImage,
  resources: readonly { resourceType: number; resourceName: string; configs: readonly { name: string; value: string | null }[] }[],
): AlterConfigsResource[] {
  return resources.map((r) => {
    const given = new Set(r.configs.map((c) => c.name));
    const deletes = [...image.configs(r.resourceType, r.resourceName).keys()]
      .filter((name) => !given.has(name))
      .map((name) => ({ name, configOperation: AlterConfigOp.Delete as number, value: null }));
    const sets = r.configs.map((c) => ({ name: c.name, configOperation: (c.value === null ? AlterConfigOp.Delete : AlterConfigOp.Set) as number, value: c.value }));
    return { resourceType: r.resourceType, resourceName: r.resourceName, configs: [...sets, ...deletes] };
  });
}

/** One result per resource, in request order; duplicate resources are INVALID_REQUEST. */
export function planAlterConfigs(ctx: ConfigPlanContext, resources: readonly AlterConfigsResource[], validateOnly: boolean): Plan<AlterConfigsResult> {
  const key = (r: AlterConfigsResource): string => `${r.resourceType}\u0000${r.resourceName}`;
  const counts = new Map<string, number>();
  for (const r of resources) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  const results: AlterConfigsResult[] = [];
  const records: MetadataRecord[] = [];
  for (const r of resources) {
    const base = { resourceType: r.resourceType, resourceName: r.resourceName };
    if ((counts.get(key(r)) ?? 0) > 1) {
      results.push({ ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The resource appears more than once in the request.' });
      continue;
    }
    const outcome = planResource(ctx, r);
    if (!(outcome instanceof Map)) {
      results.push({ ...base, ...outcome });
      continue;
    }
    records.push(...diffRecords(r, ctx.image.configs(r.resourceType, r.resourceName), outcome));
    results.push({ ...base, errorCode: ErrorCode.NONE, errorMessage: null });
  }
  return { results, records: validateOnly ? [] : records };
}

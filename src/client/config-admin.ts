/**
 * Config administration over `Cluster`, behind Admin's config methods:
 * DescribeConfigs (with sources, synonyms and documentation), AlterConfigs
 * (legacy: replaces the resource's whole set of dynamic configs) and
 * IncrementalAlterConfigs (SET / DELETE / APPEND / SUBTRACT per key).
 *
 * Routing, as the Java admin client does: a broker resource named by a node
 * id goes to that broker (it answers for itself only); topics and the
 * cluster-wide broker defaults (name '') go to any broker for describes and
 * to the controller (or any broker, which forwards) for changes.
 *
 * Errors: describes answer per resource with `error`; the alter calls take
 * one resource and throw a KafkaProtocolError carrying the broker's message
 * (INVALID_CONFIG names the key).
 */
import { ErrorCode } from '../protocol/errors.js';
import { AdminApis } from './admin-apis.js';
import { request } from './apis.js';
import type { Cluster } from './cluster.js';
import type { Connection } from '../net/connection.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';

/** Where a config value comes from, as Kafka names it (DescribeConfigs configSource). */
export type ConfigSource =
  | 'UNKNOWN'
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG'
  | 'DYNAMIC_BROKER_LOGGER_CONFIG';


/** One config of a topic or broker. */
export interface ConfigEntry {
  name: string;
  value: string | null;
  source: ConfigSource;
  readOnly: boolean;
  isSensitive: boolean;
}

/** 'topic', or 'broker' (name: a node id, or '' for the cluster-wide dynamic defaults). */
export type ConfigResourceType = 'topic' | 'broker';

/** A topic or broker whose configs are described or changed. */
export interface ConfigResource {
  type: ConfigResourceType;
  name: string;
}

/** A resource to describe, optionally limited to some keys. */
export interface DescribeConfigsResource extends ConfigResource {
  /** Only these keys (unknown ones are skipped by the broker); omitted: every key. */
  keys?: readonly string[];
}

/** A config's value type (DescribeConfigs v3+). */
export type ConfigType = 'UNKNOWN' | 'BOOLEAN' | 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'DOUBLE' | 'LIST' | 'CLASS' | 'PASSWORD';

/** One source a config value could come from (the topic, the broker, the cluster default, the static file, the default). */
export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: ConfigSource;
}

/** A config as `Admin.describeConfigs` returns it, with synonyms, type and documentation. */
export interface ConfigEntryDetail extends ConfigEntry {
  /** Where the value could come from, most specific first (DescribeConfigs v1+ with includeSynonyms). */
  synonyms: ConfigSynonym[];
  /** DescribeConfigs v3+; null before. */
  type: ConfigType | null;
  /** DescribeConfigs v3+ with includeDocumentation; null otherwise. */
  documentation: string | null;
}

/** The answer for one resource of `Admin.describeConfigs`. */
export interface ConfigResourceDescription extends ConfigResource {
  /** Sorted by name; empty when `error` is set. */
  configs: ConfigEntryDetail[];
  error: KafkaProtocolError | null;
}

/** Options of `Admin.describeConfigs`: include synonyms (v1+) and documentation (v3+). */
export interface DescribeConfigsOptions {
  includeSynonyms?: boolean;
  includeDocumentation?: boolean;
}

/** IncrementalAlterConfigs operations: set a value, delete (back to the inherited value), append to / subtract from a list. */
export type ConfigOpType = 'set' | 'delete' | 'append' | 'subtract';

/** One change of `Admin.incrementalAlterConfigs`. */
export interface ConfigOp {
  name: string;
  op: ConfigOpType;
  /** Required for set/append/subtract (a list value is comma-separated); ignored for delete. */
  value?: string | null;
}

/** Options of the alter-configs calls. */
export interface AlterConfigsOptions {
  validateOnly?: boolean;
}

/** Wire codes of the resource types (Kafka's ConfigResource.Type). */
export const RESOURCE_TYPE_CODES: Readonly<Record<ConfigResourceType, number>> = { topic: 2, broker: 4 };
/** Wire codes of IncrementalAlterConfigs operations. */
export const CONFIG_OP_CODES: Readonly<Record<ConfigOpType, number>> = { set: 0, delete: 1, append: 2, subtract: 3 };

const CONFIG_SOURCES: readonly ConfigSource[] = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
];

const CONFIG_TYPES: readonly ConfigType[] = ['UNKNOWN', 'BOOLEAN', 'STRING', 'INT', 'SHORT', 'LONG', 'DOUBLE', 'LIST', 'CLASS', 'PASSWORD'];

/** Kafka's name of a DescribeConfigs configSource code ('UNKNOWN' for codes it does not know). */
export function configSourceName(code: number): ConfigSource {
  return CONFIG_SOURCES[code] ?? 'UNKNOWN';
}

/** Checks a resource: a topic needs a name; a broker is a node id or '' (cluster defaults). */
export function validateResource(resource: ConfigResource): void {
  if (resource.type === 'topic') {
    if (resource.name.length === 0) throw invalidArgument('a topic config resource needs a topic name');
    return;
  }
  if (resource.type !== 'broker') throw invalidArgument(`unknown config resource type '${String(resource.type)}' (topic or broker)`);
  if (resource.name !== '' && !/^\d+$/.test(resource.name)) {
    throw invalidArgument(`a broker config resource is a node id or '' (the cluster-wide defaults), got '${resource.name}'`);
  }
}

/** How a resource reads in messages: "topic orders", "broker 1", "broker defaults". */
export function describeResource(resource: ConfigResource): string {
  if (resource.type === 'broker' && resource.name === '') return 'broker defaults';
  return `${resource.type} ${resource.name}`;
}

/** The node a broker resource must be sent to, or null when any broker answers. */
function targetNode(resource: ConfigResource): number | null {
  return resource.type === 'broker' && resource.name !== '' ? Number(resource.name) : null;
}

async function connectionFor(cluster: Cluster, node: number | null, change: boolean): Promise<Connection> {
  if (node !== null) return cluster.connectionTo(node);
  return change ? cluster.controllerConnection() : cluster.anyConnection();
}

function resourceKey(type: number, name: string): string {
  return `${type}\u0000${name}`;
}

/** Describes the configs of each resource; one result per resource, in order, with `error` on failure. */
export async function describeConfigs(
  cluster: Cluster,
  resources: readonly DescribeConfigsResource[],
  options: DescribeConfigsOptions = {},
): Promise<ConfigResourceDescription[]> {
  for (const r of resources) validateResource(r);
  const byNode = new Map<number | null, DescribeConfigsResource[]>();
  for (const r of resources) {
    const node = targetNode(r);
    byNode.set(node, [...(byNode.get(node) ?? []), r]);
  }
  const answers = new Map<string, ConfigResourceDescription>();
  await Promise.all(
    [...byNode].map(async ([node, list]) => {
      const { version, response } = await cluster.withRetry(async () =>
        request(await connectionFor(cluster, node, false), AdminApis.DescribeConfigs, () => ({
          resources: list.map((r) => ({ resourceType: RESOURCE_TYPE_CODES[r.type], resourceName: r.name, configurationKeys: r.keys === undefined ? null : [...r.keys] })),
          includeSynonyms: options.includeSynonyms ?? false,
          includeDocumentation: options.includeDocumentation ?? false,
        })),
      );
      for (const result of response.results) {
        const resource = list.find((r) => RESOURCE_TYPE_CODES[r.type] === result.resourceType && r.name === result.resourceName);
        if (resource === undefined) continue;
        answers.set(resourceKey(result.resourceType, result.resourceName), {
          type: resource.type,
          name: resource.name,
          configs: result.errorCode === 0 ? result.configs.map((c) => toEntry(c, version)).sort((a, b) => compare(a.name, b.name)) : [],
          error:
            result.errorCode === 0
              ? null
              : new KafkaProtocolError(result.errorCode, { api: `DescribeConfigs ${describeResource(resource)}`, serverMessage: result.errorMessage }),
        });
      }
    }),
  );
  return resources.map(
    (r) =>
      answers.get(resourceKey(RESOURCE_TYPE_CODES[r.type], r.name)) ?? {
        type: r.type,
        name: r.name,
        configs: [],
        error: new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, {
          api: `DescribeConfigs ${describeResource(r)}`,
          serverMessage: 'the broker did not answer for this resource',
        }),
      },
  );
}

type WireConfig = {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: { name: string; value: string | null; source: number }[];
  configType: number;
  documentation: string | null;
};

function toEntry(c: WireConfig, version: number): ConfigEntryDetail {
  return {
    name: c.name,
    value: c.isSensitive ? null : c.value,
    source: configSourceName(c.configSource),
    readOnly: c.readOnly,
    isSensitive: c.isSensitive,
    synonyms: c.synonyms.map((s) => ({ name: s.name, value: c.isSensitive ? null : s.value, source: configSourceName(s.source) })),
    type: version >= 3 ? (CONFIG_TYPES[c.configType] ?? 'UNKNOWN') : null,
    documentation: version >= 3 ? c.documentation : null,
  };
}

/**
 * Legacy AlterConfigs: `configs` becomes the resource's whole set of dynamic
 * configs (keys left out go back to their inherited values). Throws a
 * KafkaProtocolError (INVALID_CONFIG naming the key, ...).
 */
export async function alterConfigs(
  cluster: Cluster,
  resource: ConfigResource,
  configs: Readonly<Record<string, string>>,
  options: AlterConfigsOptions = {},
): Promise<void> {
  validateResource(resource);
  const node = targetNode(resource);
  const { response } = await cluster.withRetry(async () =>
    request(await connectionFor(cluster, node, true), AdminApis.AlterConfigs, () => ({
      resources: [
        {
          resourceType: RESOURCE_TYPE_CODES[resource.type],
          resourceName: resource.name,
          configs: Object.entries(configs).map(([name, value]) => ({ name, value })),
        },
      ],
      validateOnly: options.validateOnly ?? false,
    })),
  );
  throwResourceError('AlterConfigs', resource, response.responses);
}

/**
 * IncrementalAlterConfigs: applies `ops` to one resource (SET, DELETE back to
 * the inherited value, APPEND/SUBTRACT items of list configs). Throws a
 * KafkaProtocolError (INVALID_CONFIG naming the key, INVALID_REQUEST for a
 * key named twice, ...).
 */
export async function incrementalAlterConfigs(
  cluster: Cluster,
  resource: ConfigResource,
  ops: readonly ConfigOp[],
  options: AlterConfigsOptions = {},
): Promise<void> {
  validateResource(resource);
  for (const o of ops) {
    if (o.name.length === 0) throw invalidArgument('a config key must not be empty');
    if (!(o.op in CONFIG_OP_CODES)) throw invalidArgument(`unknown config operation '${String(o.op)}' (set, delete, append or subtract)`);
    if (o.op !== 'delete' && (o.value === undefined || o.value === null)) throw invalidArgument(`config ${o.name}: ${o.op} needs a value`);
  }
  const node = targetNode(resource);
  const { response } = await cluster.withRetry(async () =>
    request(await connectionFor(cluster, node, true), AdminApis.IncrementalAlterConfigs, () => ({
      resources: [
        {
          resourceType: RESOURCE_TYPE_CODES[resource.type],
          resourceName: resource.name,
          configs: ops.map((o) => ({ name: o.name, configOperation: CONFIG_OP_CODES[o.op], value: o.op === 'delete' ? null : (o.value ?? null) })),
        },
      ],
      validateOnly: options.validateOnly ?? false,
    })),
  );
  throwResourceError('IncrementalAlterConfigs', resource, response.responses);
}

function throwResourceError(
  api: string,
  resource: ConfigResource,
  responses: readonly { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string }[],
): void {
  const r = responses.find((x) => x.resourceType === RESOURCE_TYPE_CODES[resource.type] && x.resourceName === resource.name) ?? responses[0];
  const where = `${api} ${describeResource(resource)}`;
  if (r === undefined) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, { api: where, serverMessage: 'the broker did not answer for this resource' });
  if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, { api: where, serverMessage: r.errorMessage });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

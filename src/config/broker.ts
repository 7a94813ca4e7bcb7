/**
 * The broker's configuration: load a Java-properties file, apply overrides,
 * validate every key (and the rules between keys), and expose typed values
 * by Kafka name plus the parsed forms the broker needs (listeners, log dirs,
 * quorum voters). Any problem raises one ConfigError listing all of them.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BROKER_CONFIGS, IGNORED_BROKER_KEYS, type BrokerConfigKey, type BrokerConfigValues, type BrokerSourceInfo } from './broker-defs.js';
import { CONFIG_SOURCE_ID, parseConfigs, type ConfigSource, type ConfigValues } from './def.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { parseEndpoint, parseProtocolMapEntry, parseVoter, SECURITY_PROTOCOLS, type Endpoint, type QuorumVoter, type SecurityProtocol } from './listeners.js';
import { parseProperties } from './properties.js';
import { TOPIC_CONFIG_KEYS, type TopicConfig } from './topic.js';
import { effectiveTopicConfig, TOPIC_BROKER_SYNONYMS } from './topic-broker.js';
import { jaasProblem, splitListenerKeys, type ListenerOverrides } from './listener-configs.js';
import { parseJaasConfig } from './jaas.js';

export { BROKER_CONFIGS, IGNORED_BROKER_KEYS, LOG_LEVELS, type LogLevel } from './broker-defs.js';

export type { BrokerConfigKey, BrokerConfigValues, BrokerSourceInfo } from './broker-defs.js';

/** Everything derived from the raw values, checked across keys. */
interface Derived {
  readonly listeners: Endpoint[];
  readonly advertisedListeners: Endpoint[];
  readonly quorumVoters: QuorumVoter[];
  readonly logDirs: string[];
  readonly metadataLogDir: string;
  readonly interBrokerListenerName: string;
  readonly listenerOverrides: ListenerOverrides;
}

export class BrokerConfig {
  /** The parsed forms, for the broker. */
  readonly listeners: readonly Endpoint[];
  readonly advertisedListeners: readonly Endpoint[];
  readonly quorumVoters: readonly QuorumVoter[];
  /** Absolute data directories (log.dirs, else log.dir). */
  readonly logDirs: readonly string[];
  readonly metadataLogDir: string;
  readonly interBrokerListenerName: string;
  /** `listener.name.<listener>.<key>` values, raw, by upper-case listener name (listener-configs.ts). */
  readonly listenerOverrides: ListenerOverrides;
  readonly nodeId: number;
  readonly roles: { readonly broker: boolean; readonly controller: boolean };

  /** @internal use loadBrokerConfig / parseBrokerConfig. */
  constructor(
    private readonly values: BrokerConfigValues,
    private readonly explicit: ReadonlySet<string>,
    private readonly derivedFrom: ReadonlyMap<string, string>,
    /** The raw strings as given (file, then overrides), before defaults. */
    readonly originals: Readonly<Record<string, string>>,
    /** Accept-and-ignore keys that were present (log them as warnings). */
    readonly ignored: readonly string[],
    /** Things worth a warning that are not errors (duplicate keys...). */
    readonly warnings: readonly string[],
    derived: Derived,
  ) {
    this.listeners = derived.listeners;
    this.advertisedListeners = derived.advertisedListeners;
    this.quorumVoters = derived.quorumVoters;
    this.logDirs = derived.logDirs;
    this.metadataLogDir = derived.metadataLogDir;
    this.interBrokerListenerName = derived.interBrokerListenerName;
    this.listenerOverrides = derived.listenerOverrides;
    this.nodeId = values['node.id'];
    this.roles = { broker: values['process.roles'].includes('broker'), controller: values['process.roles'].includes('controller') };
    Object.freeze(this);
  }

  /** The value of a key, typed by its definition: `get('log.retention.ms')` is a number. */
  get<K extends BrokerConfigKey>(key: K): BrokerConfigValues[K] {
    return this.values[key];
  }

  /** The raw `listener.name.<listener>.<key>` value; undefined when the listener does not override the key. */
  listenerOverride(listenerName: string, key: string): string | undefined {
    return this.listenerOverrides.get(listenerName.toUpperCase())?.get(key);
  }

  /** Whether the key was set in the file or an override (not a default, not derived). */
  isExplicit(key: BrokerConfigKey): boolean {
    return this.explicit.has(key);
  }

  /** Where a key's value came from (log.retention.ms may come from log.retention.hours). */
  sourceOf(key: BrokerConfigKey): BrokerSourceInfo {
    if (this.explicit.has(key)) return { source: 'STATIC_BROKER_CONFIG', key };
    const from = this.derivedFrom.get(key);
    if (from !== undefined) return { source: 'STATIC_BROKER_CONFIG', key: from };
    return { source: 'DEFAULT_CONFIG', key };
  }

  /** The config a topic without overrides gets. */
  topicDefaults(): TopicConfig {
    return effectiveTopicConfig(this);
  }

  /** The config of a topic with these overrides (see effectiveTopicConfig). */
  topicConfig(overrides: Readonly<Record<string, string>>): TopicConfig {
    return effectiveTopicConfig(this, overrides);
  }

  /** Every key with its value as a string (passwords hidden) and source, for logs and DescribeConfigs. */
  describe(): { name: BrokerConfigKey; value: string | null; source: ConfigSource; sourceId: number; sensitive: boolean }[] {
    return (Object.keys(BROKER_CONFIGS) as BrokerConfigKey[]).map((name) => {
      const def = BROKER_CONFIGS[name];
      const value = this.values[name] as unknown;
      const source = this.sourceOf(name).source;
      const text = value === null ? null : def.sensitive ? '[hidden]' : (def.encode as (v: unknown) => string)(value);
      return { name, value: text, source, sourceId: CONFIG_SOURCE_ID[source], sensitive: def.sensitive };
    });
  }
}

// ---------------------------------------------------------------- cross-key checks

/** For broker-level keys users write by their topic-level names. */
const BROKER_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  TOPIC_CONFIG_KEYS.flatMap((topicKey) => {
    const brokerKey = TOPIC_BROKER_SYNONYMS[topicKey][0];
    if (brokerKey === undefined || brokerKey === topicKey) return [];
    return [[topicKey, `"${topicKey}" is a topic config; the broker-wide default is "${brokerKey}"`]];
  }),
);

function protocolMap(v: BrokerConfigValues): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const entry of v['listener.security.protocol.map']) {
    const p = parseProtocolMapEntry(entry);
    if (p.ok) map.set(p.value[0], p.value[1]);
  }
  return map;
}

function toEndpoints(key: string, items: readonly string[], protocols: Map<string, SecurityProtocol>, problems: ConfigProblem[], controllerNames: ReadonlySet<string> = new Set()): Endpoint[] {
  const out: Endpoint[] = [];
  for (const item of items) {
    const p = parseEndpoint(item);
    if (!p.ok) continue; // already reported by the key's own validator
    // A controller listener missing from the map is PLAINTEXT (as Kafka 4 does).
    const protocol = protocols.get(p.value.name) ?? SECURITY_PROTOCOLS.find((s) => s === p.value.name) ?? (controllerNames.has(p.value.name) ? 'PLAINTEXT' : undefined);
    if (protocol === undefined) {
      problems.push({ key, message: `${key}: listener name ${p.value.name} has no security protocol; add "${p.value.name}:PLAINTEXT" (or SSL...) to listener.security.protocol.map` });
      continue;
    }
    if (out.some((e) => e.name === p.value.name)) problems.push({ key, message: `${key}: listener name ${p.value.name} is used twice; each listener needs its own name` });
    out.push({ ...p.value, securityProtocol: protocol });
  }
  return out;
}

function checkListeners(v: BrokerConfigValues, listeners: Endpoint[], problems: ConfigProblem[]): void {
  if (listeners.length === 0 && v['listeners'].length === 0) problems.push({ key: 'listeners', message: 'listeners: at least one listener is required, e.g. PLAINTEXT://127.0.0.1:9092' });
  const ports = new Map<number, string>();
  for (const l of listeners) {
    const other = ports.get(l.port);
    if (l.port !== 0 && other !== undefined) problems.push({ key: 'listeners', message: `listeners: ${other} and ${l.name} both use port ${l.port}; give each listener its own port` });
    ports.set(l.port, l.name);
  }
}

function deriveAdvertised(v: BrokerConfigValues, explicit: ReadonlySet<string>, listeners: Endpoint[], protocols: Map<string, SecurityProtocol>, problems: ConfigProblem[]): Endpoint[] {
  const controllerNames = new Set(v['controller.listener.names'].map((n) => n.toUpperCase()));
  const given = v['advertised.listeners'];
  if (given === null || !explicit.has('advertised.listeners')) {
    // Kafka advertises the machine's name for an empty host; we use loopback (documented).
    return listeners.filter((l) => !controllerNames.has(l.name)).map((l) => ({ ...l, host: l.host === '' || l.host === '0.0.0.0' || l.host === '::' ? '127.0.0.1' : l.host }));
  }
  const advertised = toEndpoints('advertised.listeners', given, protocols, problems);
  for (const a of advertised) {
    if (a.host === '0.0.0.0' || a.host === '::' || a.host === '') problems.push({ key: 'advertised.listeners', message: `advertised.listeners: ${a.name} has host "${a.host || '(empty)'}", which clients cannot connect to; give the host name or IP clients should use` });
    if (!listeners.some((l) => l.name === a.name)) problems.push({ key: 'advertised.listeners', message: `advertised.listeners: ${a.name} is not a listener; names must come from listeners (${listeners.map((l) => l.name).join(', ')})` });
    if (controllerNames.has(a.name) && v['process.roles'].includes('broker')) problems.push({ key: 'advertised.listeners', message: `advertised.listeners: ${a.name} is a controller listener; controller listeners are not advertised to clients` });
  }
  return advertised;
}

function checkQuorum(v: BrokerConfigValues, listeners: Endpoint[], problems: ConfigProblem[]): QuorumVoter[] {
  const voters = v['controller.quorum.voters'].flatMap((s) => { const p = parseVoter(s); return p.ok ? [p.value] : []; });
  const isController = v['process.roles'].includes('controller');
  const ids = new Set<number>();
  for (const voter of voters) {
    if (ids.has(voter.id)) problems.push({ key: 'controller.quorum.voters', message: `controller.quorum.voters: node id ${voter.id} appears twice` });
    ids.add(voter.id);
  }
  if (!isController && voters.length === 0) {
    problems.push({ key: 'controller.quorum.voters', message: 'controller.quorum.voters: a broker-only node (process.roles=broker) needs the controllers\' addresses, e.g. 1@host1:9093,2@host2:9093' });
  }
  if (isController && voters.length > 0) {
    if (!ids.has(v['node.id'])) problems.push({ key: 'controller.quorum.voters', message: `controller.quorum.voters: this node (node.id=${v['node.id']}) is a controller but not among the voters; add ${v['node.id']}@host:port` });
    const names = v['controller.listener.names'].map((n) => n.toUpperCase());
    if (names.length === 0) problems.push({ key: 'controller.listener.names', message: 'controller.listener.names: required when this node is a controller and controller.quorum.voters is set, e.g. controller.listener.names=CONTROLLER with listeners=...,CONTROLLER://:9093' });
    for (const n of names) {
      if (!listeners.some((l) => l.name === n)) problems.push({ key: 'controller.listener.names', message: `controller.listener.names: ${n} is not in listeners; add ${n}://host:port to listeners` });
    }
  }
  return voters;
}

function interBrokerListener(v: BrokerConfigValues, explicit: ReadonlySet<string>, advertised: Endpoint[], problems: ConfigProblem[]): string {
  const named = v['inter.broker.listener.name'];
  if (named !== null && explicit.has('security.inter.broker.protocol')) {
    problems.push({ key: 'inter.broker.listener.name', message: 'inter.broker.listener.name: set either it or security.inter.broker.protocol, not both' });
  }
  const name = (named ?? v['security.inter.broker.protocol']).toUpperCase();
  if (v['process.roles'].includes('broker') && !advertised.some((a) => a.name === name)) {
    const key = named === null ? 'security.inter.broker.protocol' : 'inter.broker.listener.name';
    problems.push({ key, message: `${key}: no advertised listener is named ${name}; set inter.broker.listener.name to one of ${advertised.map((a) => a.name).join(', ') || '(none)'}` });
  }
  return name;
}

function checkOther(v: BrokerConfigValues, explicit: ReadonlySet<string>, problems: ConfigProblem[]): void {
  const brokerId = v['broker.id'];
  if (brokerId !== null && explicit.has('node.id') && brokerId !== v['node.id']) {
    problems.push({ key: 'broker.id', message: `broker.id: ${brokerId} differs from node.id ${v['node.id']}; remove broker.id (it is the old name of node.id)` });
  }
  if (v['group.min.session.timeout.ms'] > v['group.max.session.timeout.ms']) {
    problems.push({ key: 'group.min.session.timeout.ms', message: `group.min.session.timeout.ms: ${v['group.min.session.timeout.ms']} is greater than group.max.session.timeout.ms ${v['group.max.session.timeout.ms']}` });
  }
  if (v['log.cleaner.min.compaction.lag.ms'] > v['log.cleaner.max.compaction.lag.ms']) {
    problems.push({ key: 'log.cleaner.min.compaction.lag.ms', message: 'log.cleaner.min.compaction.lag.ms: greater than log.cleaner.max.compaction.lag.ms' });
  }
  if (v['broker.heartbeat.interval.ms'] >= v['broker.session.timeout.ms']) {
    problems.push({ key: 'broker.heartbeat.interval.ms', message: `broker.heartbeat.interval.ms: ${v['broker.heartbeat.interval.ms']} must be less than broker.session.timeout.ms ${v['broker.session.timeout.ms']}, or every broker is fenced between two heartbeats` });
  }
  const dirs = v['log.dirs'];
  if (dirs !== null && dirs.length === 0) problems.push({ key: 'log.dirs', message: 'log.dirs: at least one directory is required (or remove it to use log.dir)' });
  if (v['log.dir'] === '') problems.push({ key: 'log.dir', message: 'log.dir: a directory is required' });
}

/**
 * Security rules across keys: scoped keys name real listeners, JAAS configs
 * parse, a SASL listener offering PLAIN has users, and a SASL listener that
 * nodes use between themselves offers the mechanism they log in with and
 * names their own credentials (docs/security.md, "Between nodes"). TLS
 * files and keys are read when the listener starts (src/security/tls).
 */
function checkSecurity(v: BrokerConfigValues, listeners: Endpoint[], interBroker: string, overrides: ListenerOverrides, problems: ConfigProblem[]): void {
  const controllerNames = new Set(v['controller.listener.names'].map((n) => n.toUpperCase()));
  for (const name of overrides.keys()) {
    // A broker-only node may configure how it logs in to the controllers' listener, which it does not bind.
    if (!listeners.some((l) => l.name === name) && !controllerNames.has(name)) problems.push({ key: `listener.name.${name.toLowerCase()}`, message: `listener.name.${name.toLowerCase()}.*: ${name} is not one of listeners (${listeners.map((l) => l.name).join(', ')})` });
  }
  const globalJaas = v['sasl.jaas.config'];
  const globalProblem = globalJaas === null ? undefined : jaasProblem('sasl.jaas.config', globalJaas.value);
  if (globalProblem !== undefined) problems.push({ key: 'sasl.jaas.config', message: globalProblem });
  for (const l of listeners) {
    if (!l.securityProtocol.startsWith('SASL_')) continue;
    const mechanisms = overrides.get(l.name)?.get('sasl.enabled.mechanisms')?.split(',').map((m) => m.trim()) ?? v['sasl.enabled.mechanisms'];
    const jaasOf = (mechanism: string): string | undefined => overrides.get(l.name)?.get(`${mechanism.toLowerCase()}.sasl.jaas.config`) ?? overrides.get(l.name)?.get('sasl.jaas.config') ?? globalJaas?.value;
    if (mechanisms.includes('PLAIN') && jaasOf('PLAIN') === undefined) {
      problems.push({ key: 'sasl.enabled.mechanisms', message: `sasl.enabled.mechanisms: ${l.name} offers PLAIN but no JAAS config names its users; set listener.name.${l.name.toLowerCase()}.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_<name>="<password>"; or leave PLAIN out` });
    }
    // A lone node (no voters) has no other node to talk to.
    const lone = v['controller.quorum.voters'].length === 0;
    const between = controllerNames.has(l.name) ? 'controller' : !lone && l.name === interBroker && v['process.roles'].includes('broker') ? 'inter.broker' : null;
    if (between === null) continue;
    const key = between === 'controller' ? 'sasl.mechanism.controller.protocol' : 'sasl.mechanism.inter.broker.protocol';
    const mechanism = v[key];
    if (!mechanisms.includes(mechanism)) problems.push({ key, message: `${key}: ${l.name} is the ${between} listener but does not offer ${mechanism} (sasl.enabled.mechanisms: ${mechanisms.join(',')}); nodes log in to each other with ${key}` });
    const jaas = jaasOf(mechanism);
    const module = jaas === undefined ? undefined : parseJaasConfig(jaas);
    if (typeof module !== 'object' || module.options.get('username') === undefined || module.options.get('password') === undefined) {
      problems.push({ key, message: `${key}: ${l.name} is the ${between} listener; its JAAS config (listener.name.${l.name.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config) needs username="..." password="..." for this node to log in to the others` });
    }
  }
}

function derive(v: BrokerConfigValues, explicit: ReadonlySet<string>, cwd: string, problems: ConfigProblem[], listenerOverrides: ListenerOverrides): Derived {
  const protocols = protocolMap(v);
  const listeners = toEndpoints('listeners', v['listeners'], protocols, problems, new Set(v['controller.listener.names'].map((n) => n.toUpperCase())));
  checkListeners(v, listeners, problems);
  const advertisedListeners = deriveAdvertised(v, explicit, listeners, protocols, problems);
  const quorumVoters = checkQuorum(v, listeners, problems);
  const interBrokerListenerName = interBrokerListener(v, explicit, advertisedListeners, problems);
  checkOther(v, explicit, problems);
  checkSecurity(v, listeners, interBrokerListenerName, listenerOverrides, problems);
  const logDirs = (v['log.dirs'] ?? [v['log.dir']]).map((d) => resolve(cwd, d));
  const metadataDir = v['metadata.log.dir'];
  return { listeners, advertisedListeners, quorumVoters, interBrokerListenerName, listenerOverrides, logDirs, metadataLogDir: metadataDir === null ? (logDirs[0] ?? cwd) : resolve(cwd, metadataDir) };
}

// ---------------------------------------------------------------- loading

export interface ParseBrokerConfigOptions {
  /** Where each key was set, for messages (`server.properties:12`, `--override`). */
  readonly origins?: ReadonlyMap<string, string>;
  /** Relative directories resolve against this (default: process.cwd()). */
  readonly cwd?: string;
  readonly warnings?: readonly string[];
}

/** Validates a map of raw strings. Throws ConfigError listing every problem. */
export function parseBrokerConfig(raw: Readonly<Record<string, string>>, options: ParseBrokerConfigOptions = {}): BrokerConfig {
  const scopedProblems: ConfigProblem[] = [];
  const split = splitListenerKeys(raw, scopedProblems, options.origins);
  const parsed = parseConfigs(BROKER_CONFIGS, split.rest, {
    ignored: IGNORED_BROKER_KEYS, hints: BROKER_HINTS, what: 'broker config', ...(options.origins === undefined ? {} : { origins: options.origins }),
  });
  const problems = [...parsed.problems, ...scopedProblems];
  // Cross-key rules only make sense once every key parsed.
  const derived = problems.length === 0 ? derive(parsed.values, parsed.explicit, options.cwd ?? process.cwd(), problems, split.overrides) : undefined;
  if (problems.length > 0 || derived === undefined) {
    const withOrigins = problems.map((p) => {
      const origin = p.origin ?? options.origins?.get(p.key);
      return origin === undefined ? p : { ...p, origin };
    });
    throw new ConfigError('ERR_TRIB_CONFIG_INVALID', withOrigins);
  }
  const warnings = [...(options.warnings ?? []), ...parsed.ignored.map((k) => `${k} is a Kafka setting Tributary does not use; ignored`)];
  return new BrokerConfig(parsed.values, parsed.explicit, parsed.derivedFrom, { ...raw }, parsed.ignored, warnings, derived);
}

export interface LoadBrokerConfigOptions {
  /** A Java-properties file (Kafka's server.properties format). */
  readonly file?: string;
  /** key=value pairs applied over the file (`--override`). */
  readonly overrides?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** Reads the file (if any), applies overrides, validates everything. Throws ConfigError. */
export function loadBrokerConfig(options: LoadBrokerConfigOptions = {}): BrokerConfig {
  const raw: Record<string, string> = {};
  const origins = new Map<string, string>();
  const warnings: string[] = [];
  if (options.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(resolve(options.cwd ?? process.cwd(), options.file), 'utf8');
    } catch (err) {
      const reason = err instanceof Error && 'code' in err && err.code === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err);
      throw new ConfigError('ERR_TRIB_CONFIG_FILE', [{ key: options.file, message: `${options.file}: cannot read the config file (${reason}); check the path given to --config` }], { cause: err, header: 'Cannot load the configuration:' });
    }
    const props = parseProperties(text, options.file);
    if (props.problems.length > 0) throw new ConfigError('ERR_TRIB_CONFIG_FILE', props.problems);
    for (const e of props.entries) {
      raw[e.key] = e.value;
      origins.set(e.key, `${options.file}:${e.line}`);
    }
    for (const d of props.duplicates) warnings.push(`${d.key} is set more than once in ${options.file} (lines ${d.lines.join(', ')}); the last one wins`);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    raw[key] = value;
    origins.set(key, '--override');
  }
  return parseBrokerConfig(raw, { origins, warnings, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
}

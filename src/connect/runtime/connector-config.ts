/**
 * The configs every connector has (Kafka's ConnectorConfig, SinkConnectorConfig
 * and SourceConnectorConfig): name, class, tasks.max, converters, transforms,
 * predicates and error handling; and the validation behind
 * `PUT /connector-plugins/{plugin}/config/validate` and connector creation,
 * which adds the connector's own keys and each transform's keys (prefixed
 * `transforms.<alias>.`) and reports every problem per key.
 */
import { ConfigDef, Validators, formatDefault, type ConfigKeyDef, type ConfigValue } from '../config-def.js';
import { withPrefix } from '../converters/index.js';
import type { Plugins } from '../plugins.js';
import type { Connector } from '../spi.js';

const COMMON = 'Common';
const TRANSFORMS = 'Transforms';
const PREDICATES = 'Predicates';
const ERRORS = 'Error Handling';

function common(): ConfigDef {
  return new ConfigDef()
    .define({ name: 'name', type: 'STRING', importance: 'HIGH', documentation: 'Globally unique name to use for this connector.', group: COMMON, orderInGroup: 1, displayName: 'Connector name', validator: Validators.nonEmptyString() })
    .define({ name: 'connector.class', type: 'STRING', importance: 'HIGH', documentation: 'Name or alias of the class for this connector.', group: COMMON, orderInGroup: 2, displayName: 'Connector class' })
    .define({ name: 'tasks.max', type: 'INT', defaultValue: 1, importance: 'HIGH', documentation: 'Maximum number of tasks to use for this connector.', group: COMMON, orderInGroup: 3, displayName: 'Tasks max', validator: Validators.atLeast(1) })
    .define({ name: 'key.converter', type: 'CLASS', defaultValue: null, importance: 'LOW', documentation: 'Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. Overrides the worker setting.', group: COMMON, orderInGroup: 4, displayName: 'Key converter class' })
    .define({ name: 'value.converter', type: 'CLASS', defaultValue: null, importance: 'LOW', documentation: 'Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. Overrides the worker setting.', group: COMMON, orderInGroup: 5, displayName: 'Value converter class' })
    .define({ name: 'header.converter', type: 'CLASS', defaultValue: null, importance: 'LOW', documentation: 'HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to Kafka.', group: COMMON, orderInGroup: 6, displayName: 'Header converter class' })
    .define({ name: 'transforms', type: 'LIST', defaultValue: [], importance: 'LOW', documentation: 'Aliases for the transformations to be applied to records.', group: TRANSFORMS, orderInGroup: 1, displayName: 'Transforms' })
    .define({ name: 'predicates', type: 'LIST', defaultValue: [], importance: 'LOW', documentation: 'Aliases for the predicates used by transformations.', group: PREDICATES, orderInGroup: 1, displayName: 'Predicates' })
    .define({ name: 'errors.retry.timeout.ms', type: 'LONG', defaultValue: 0, importance: 'MEDIUM', documentation: 'The maximum duration in milliseconds that a failed operation will be reattempted. The default is 0, which means no retries will be attempted. Use -1 for infinite retries.', group: ERRORS, orderInGroup: 1, displayName: 'Retry Timeout for Errors' })
    .define({ name: 'errors.retry.delay.max.ms', type: 'LONG', defaultValue: 60000, importance: 'MEDIUM', documentation: 'The maximum duration in milliseconds between consecutive retry attempts.', group: ERRORS, orderInGroup: 2, displayName: 'Maximum Delay Between Retries for Errors' })
    .define({ name: 'errors.tolerance', type: 'STRING', defaultValue: 'none', importance: 'MEDIUM', documentation: "Behavior for tolerating errors during connector operation. 'none' is the default value and signals that any error will result in an immediate connector task failure; 'all' changes the behavior to skip over problematic records.", group: ERRORS, orderInGroup: 3, displayName: 'Error Tolerance', validator: Validators.inIgnoreCase('none', 'all'), recommendedValues: ['none', 'all'] })
    .define({ name: 'errors.log.enable', type: 'BOOLEAN', defaultValue: false, importance: 'MEDIUM', documentation: 'If true, write each error and the details of the failed operation and problematic record to the Connect application log.', group: ERRORS, orderInGroup: 4, displayName: 'Log Errors' })
    .define({ name: 'errors.log.include.messages', type: 'BOOLEAN', defaultValue: false, importance: 'MEDIUM', documentation: 'Whether to include in the log the Connect record that resulted in a failure.', group: ERRORS, orderInGroup: 5, displayName: 'Log Error Details' });
}

function sinkExtras(): ConfigDef {
  return new ConfigDef()
    .define({ name: 'topics', type: 'LIST', defaultValue: [], importance: 'HIGH', documentation: 'List of topics to consume, separated by commas', group: COMMON, orderInGroup: 4, displayName: 'Topics' })
    .define({ name: 'topics.regex', type: 'STRING', defaultValue: '', importance: 'HIGH', documentation: 'Regular expression giving topics to consume.', group: COMMON, orderInGroup: 4, displayName: 'Topics regex', validator: Validators.regex() })
    .define({ name: 'errors.deadletterqueue.topic.name', type: 'STRING', defaultValue: '', importance: 'MEDIUM', documentation: 'The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an error when processed by this sink connector, or its transformations or converters.', group: ERRORS, orderInGroup: 6, displayName: 'Dead Letter Queue Topic Name' })
    .define({ name: 'errors.deadletterqueue.topic.replication.factor', type: 'SHORT', defaultValue: 3, importance: 'MEDIUM', documentation: 'Replication factor used to create the dead letter queue topic when it doesn\'t already exist.', group: ERRORS, orderInGroup: 7, displayName: 'Dead Letter Queue Topic Replication Factor' })
    .define({ name: 'errors.deadletterqueue.context.headers.enable', type: 'BOOLEAN', defaultValue: false, importance: 'MEDIUM', documentation: 'If true, add headers containing error context to the messages written to the dead letter queue.', group: ERRORS, orderInGroup: 8, displayName: 'Enable Error Context Headers' });
}

/** The framework's keys for a connector of this kind. */
export function connectorConfigDef(kind: 'source' | 'sink' | null): ConfigDef {
  const def = common();
  return kind === 'sink' ? def.merge(sinkExtras()) : def;
}

/** One entry of the validate response (Kafka's ConfigInfo). */
export interface ConfigInfo {
  definition: {
    name: string;
    type: string;
    required: boolean;
    default_value: string | null;
    importance: string;
    documentation: string;
    group: string | null;
    width: string;
    display_name: string;
    dependents: string[];
    order: number;
  };
  value: { name: string; value: string | null; recommended_values: string[]; errors: string[]; visible: boolean };
}

/** The validate response (Kafka's ConfigInfos). */
export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: ConfigInfo[];
}

function info(key: ConfigKeyDef, value: ConfigValue, name = key.name): ConfigInfo {
  return {
    definition: {
      name,
      type: key.type,
      required: key.defaultValue === undefined,
      default_value: key.defaultValue === undefined ? null : formatDefault(key.defaultValue),
      importance: key.importance,
      documentation: key.documentation,
      group: key.group ?? null,
      width: 'NONE',
      display_name: key.displayName ?? name,
      dependents: [],
      order: key.orderInGroup ?? -1,
    },
    value: { name, value: value.value, recommended_values: value.recommendedValues, errors: value.errors, visible: value.visible },
  };
}

function validateDef(def: ConfigDef, props: Readonly<Record<string, string>>, prefix = '', group?: string): ConfigInfo[] {
  const values = def.validate(props);
  return def.configKeys().map((key, i) => {
    const keyed: ConfigKeyDef = group === undefined ? key : { ...key, group };
    const v = values[i] ?? { name: key.name, value: null, recommendedValues: [], errors: [], visible: true };
    return info(keyed, { ...v, name: prefix + key.name }, prefix + key.name);
  });
}

function addError(configs: ConfigInfo[], name: string, message: string): void {
  const c = configs.find((x) => x.value.name === name);
  if (c !== undefined) c.value.errors.push(message);
}

/** Validates a connector config the way Kafka's AbstractHerder.validateConnectorConfig does. */
export function validateConnectorConfig(plugins: Plugins, props: Readonly<Record<string, string>>): ConfigInfos {
  const className = props['connector.class'] ?? '';
  const found = plugins.newConnector(className);
  const connector: Connector | null = found?.connector ?? null;
  const configs = validateDef(connectorConfigDef(connector?.type ?? null), props);
  if (connector === null) {
    addError(configs, 'connector.class', className === '' ? 'Missing required configuration "connector.class" which has no default value.' : `Invalid value ${className} for configuration connector.class: Class ${className} could not be found.`);
  } else {
    const own = connector.validate?.(props) ?? connector.config().validate(props);
    const byName = new Map(connector.config().configKeys().map((k) => [k.name, k]));
    for (const v of own) {
      const key = byName.get(v.name) ?? { name: v.name, type: 'STRING' as const, importance: 'LOW' as const, documentation: '' };
      const existing = configs.find((c) => c.value.name === v.name);
      if (existing !== undefined) existing.value.errors.push(...v.errors);
      else configs.push(info(key, v));
    }
    if (connector.type === 'sink') checkSinkTopics(configs, props);
  }
  for (const [k, v] of Object.entries(props)) if (k.startsWith('key.converter') || k.startsWith('value.converter')) checkConverter(plugins, configs, k, v);
  configs.push(...validateTransforms(plugins, props));
  const groups: string[] = [];
  for (const c of configs) if (c.definition.group !== null && !groups.includes(c.definition.group)) groups.push(c.definition.group);
  return { name: className, error_count: configs.reduce((n, c) => n + c.value.errors.length, 0), groups, configs };
}

function checkConverter(plugins: Plugins, configs: ConfigInfo[], key: string, value: string): void {
  if ((key === 'key.converter' || key === 'value.converter') && plugins.converterClass(value) === undefined) {
    addError(configs, key, `Invalid value ${value} for configuration ${key}: Class ${value} could not be found.`);
  }
}

function checkSinkTopics(configs: ConfigInfo[], props: Readonly<Record<string, string>>): void {
  const topics = (props.topics ?? '').trim() !== '';
  const regex = (props['topics.regex'] ?? '').trim() !== '';
  if (topics && regex) {
    const msg = 'topics and topics.regex are mutually exclusive options, but both are set.';
    addError(configs, 'topics', msg);
    addError(configs, 'topics.regex', msg);
  } else if (!topics && !regex) {
    const msg = 'Must configure one of topics or topics.regex';
    addError(configs, 'topics', msg);
    addError(configs, 'topics.regex', msg);
  }
}

function aliases(raw: string | undefined): string[] {
  return raw === undefined || raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
}

/** Each transform's and predicate's `type` key plus its own keys, prefixed with its alias. */
function validateTransforms(plugins: Plugins, props: Readonly<Record<string, string>>): ConfigInfo[] {
  const out: ConfigInfo[] = [];
  const kinds = [
    { list: 'transforms', resolve: (n: string) => plugins.transform(n), label: 'Transforms' },
    { list: 'predicates', resolve: (n: string) => plugins.predicate(n), label: 'Predicates' },
  ];
  for (const kind of kinds) {
    for (const alias of aliases(props[kind.list])) {
      const prefix = `${kind.list}.${alias}.`;
      const group = `${kind.label}: ${alias}`;
      const typeName = props[`${prefix}type`];
      const cls = typeName === undefined ? undefined : kind.resolve(typeName);
      const typeKey: ConfigKeyDef = { name: `${prefix}type`, type: 'CLASS', importance: 'HIGH', documentation: `Class for the '${alias}' ${kind.list === 'transforms' ? 'transformation' : 'predicate'}.`, group, displayName: `${kind.label} type for ${alias}` };
      const errors = typeName === undefined ? [`Missing required configuration "${prefix}type" which has no default value.`] : cls === undefined ? [`Invalid value ${typeName} for configuration ${prefix}type: Class ${typeName} could not be found.`] : [];
      out.push(info(typeKey, { name: typeKey.name, value: typeName ?? null, recommendedValues: [], errors, visible: true }));
      if (cls !== undefined) out.push(...validateDef(new cls().config(), withPrefix(props, prefix), prefix, group));
    }
  }
  return out;
}

/** Kafka's message for a connector config rejected on create or update. */
export function invalidConfigMessage(infos: ConfigInfos): string {
  const errors = infos.configs.flatMap((c) => c.value.errors);
  return `Connector configuration is invalid and contains the following ${errors.length} error(s):\n${errors.join('\n')}\nYou can also find the above list of errors at the endpoint \`/connector-plugins/{connectorType}/config/validate\``;
}

/**
 * `tributary config describe|set|delete|append|subtract`: topic and broker
 * configs over the Kafka protocol (DescribeConfigs, IncrementalAlterConfigs),
 * as kafka-configs.sh does, so it works against any Kafka-compatible broker.
 *
 * The resource is exactly one of --topic T, --broker ID (one broker's
 * configs; dynamic changes apply to that broker) or --broker-defaults (the
 * cluster-wide dynamic broker defaults). Changes are validated by the broker;
 * a refused value exits 1 with the broker's message, which names the key.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { describeResource, type ConfigEntryDetail, type ConfigOpType, type ConfigResource, type ConfigResourceDescription } from '../../client/config-admin.js';
import { formatTable, nonNegativeInt, toJson, usageError, withAdmin, withClientOptions, withExamples, writeOut, checkBootstrap, type CommonOptions } from './common.js';

interface ResourceOptions extends CommonOptions {
  topic?: string;
  broker?: number;
  brokerDefaults?: boolean;
}

interface DescribeOptions extends ResourceOptions {
  all?: boolean;
  synonyms?: boolean;
  docs?: boolean;
  json?: boolean;
}

interface AlterOptions extends ResourceOptions {
  validateOnly?: boolean;
}

const RESOURCE_HELP = 'exactly one of --topic T, --broker ID, --broker-defaults';

/** --topic / --broker / --broker-defaults, on every config command. */
function withResourceOptions(cmd: Command): Command {
  return cmd
    .option('-t, --topic <topic>', 'a topic')
    .option('--broker <id>', "one broker's configs (its node id)", nonNegativeInt('--broker'))
    .option('--broker-defaults', 'the cluster-wide dynamic broker defaults');
}

/** The resource the options name; a usage error unless exactly one is given. */
export function resourceFrom(options: Pick<ResourceOptions, 'topic' | 'broker' | 'brokerDefaults'>): ConfigResource {
  const chosen: ConfigResource[] = [];
  if (options.topic !== undefined) chosen.push({ type: 'topic', name: options.topic });
  if (options.broker !== undefined) chosen.push({ type: 'broker', name: String(options.broker) });
  if (options.brokerDefaults === true) chosen.push({ type: 'broker', name: '' });
  const [first] = chosen;
  if (first === undefined || chosen.length > 1) throw new Error(`give ${RESOURCE_HELP}`);
  if (first.type === 'topic' && first.name.length === 0) throw new Error('--topic needs a topic name');
  return first;
}

/** Parses `key=value` arguments (values may contain '='); duplicates are an error. */
export function parseAssignments(args: readonly string[]): { name: string; value: string }[] {
  const seen = new Set<string>();
  return args.map((arg) => {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got '${arg}'`);
    const name = arg.slice(0, eq);
    if (seen.has(name)) throw new InvalidArgumentError(`${name} is given twice`);
    seen.add(name);
    return { name, value: arg.slice(eq + 1) };
  });
}

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('describe and change topic and broker configs');
  withExamples(config, [
    'tributary config describe --topic orders',
    'tributary config set --topic orders retention.ms=86400000 cleanup.policy=compact',
    'tributary config delete --topic orders retention.ms',
    'tributary config describe --broker 1 --all --json',
  ]);

  withExamples(
    withClientOptions(withResourceOptions(config.command('describe').description('show configs: name, value, source, read-only, sensitive'))),
    [
      'tributary config describe --topic orders                 keys set on the topic or inherited from the broker',
      'tributary config describe --topic orders --all           every key, with the defaults',
      'tributary config describe --topic orders retention.ms --synonyms',
      'tributary config describe --broker 1 --json',
      'tributary config describe --broker-defaults              cluster-wide dynamic defaults that are set',
    ],
  )
    .argument('[keys...]', 'only these keys (default: every key that is set; with --all every key)')
    .option('--all', 'include keys at their default value')
    .option('--synonyms', 'show where each value could come from, most specific first')
    .option('--docs', 'show each key\'s documentation (DescribeConfigs v3+)')
    .option('--json', 'print JSON (synonyms included)')
    .action(async (keys: string[], options: DescribeOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const resource = resourceOrUsage(cmd, options);
      await withAdmin(options, async (admin) => {
        const [d] = await admin.describeConfigs([{ ...resource, ...(keys.length > 0 ? { keys } : {}) }], {
          includeSynonyms: true,
          includeDocumentation: options.docs === true,
        });
        if (d === undefined) throw new Error('no answer from DescribeConfigs');
        if (d.error !== null) throw d.error;
        const shown = keys.length > 0 || options.all === true ? d.configs : d.configs.filter((c) => c.source !== 'DEFAULT_CONFIG');
        if (options.json === true) await writeOut(`${toJson({ ...d, configs: shown }, 2)}\n`);
        else await writeOut(formatConfigs(d, shown, options));
      });
    });

  registerAlter(config, 'set', 'set keys to values', '<key=value...>', [
    'tributary config set --topic orders retention.ms=86400000',
    'tributary config set --topic orders max.message.bytes=2097152 --validate-only',
    'tributary config set --broker-defaults log.retention.ms=604800000',
    'tributary config set --broker 1 log.cleaner.threads=2',
  ]);
  registerAlter(config, 'delete', 'remove keys: they go back to the inherited value', '<keys...>', [
    'tributary config delete --topic orders retention.ms cleanup.policy',
    'tributary config delete --broker-defaults log.retention.ms',
  ]);
  registerAlter(config, 'append', 'add items to list configs (comma-separated)', '<key=value...>', [
    'tributary config append --topic orders cleanup.policy=compact',
  ]);
  registerAlter(config, 'subtract', 'remove items from list configs (comma-separated)', '<key=value...>', [
    'tributary config subtract --topic orders cleanup.policy=compact',
  ]);
}

function registerAlter(config: Command, op: ConfigOpType, description: string, argument: string, examples: readonly string[]): void {
  withExamples(withClientOptions(withResourceOptions(config.command(op).description(description))), examples)
    .argument(argument, op === 'delete' ? 'config keys' : 'config keys and values')
    .option('--validate-only', 'ask the broker to validate without changing anything')
    .action(async (args: string[], options: AlterOptions, cmd: Command) => {
      checkBootstrap(cmd, options.bootstrap);
      const resource = resourceOrUsage(cmd, options);
      let ops: { name: string; op: ConfigOpType; value: string | null }[];
      try {
        if (op === 'delete') {
          if (new Set(args).size !== args.length) throw new Error('a key is given twice');
          if (args.some((a) => a.length === 0 || a.includes('='))) throw new Error('config delete takes keys (e.g. retention.ms), not key=value');
          ops = args.map((name) => ({ name, op, value: null }));
        } else {
          ops = parseAssignments(args).map((a) => ({ ...a, op }));
        }
      } catch (err) {
        usageError(cmd, (err as Error).message);
      }
      await withAdmin(options, async (admin) => {
        await admin.incrementalAlterConfigs(resource, ops, { validateOnly: options.validateOnly === true });
        await writeOut(`${alterSummary(op, ops.map((o) => o.name), resource, options.validateOnly === true)}\n`);
      });
    });
}

function resourceOrUsage(cmd: Command, options: ResourceOptions): ConfigResource {
  try {
    return resourceFrom(options);
  } catch (err) {
    usageError(cmd, (err as Error).message);
  }
}

export function alterSummary(op: ConfigOpType, keys: readonly string[], resource: ConfigResource, validateOnly: boolean): string {
  const what = describeResource(resource);
  const list = keys.join(', ');
  const text =
    op === 'set'
      ? `Set ${list} on ${what}`
      : op === 'delete'
        ? `Deleted ${list} from ${what} (back to the inherited value)`
        : op === 'append'
          ? `Appended to ${list} on ${what}`
          : `Subtracted from ${list} on ${what}`;
  return validateOnly ? `Validated, nothing changed: ${text[0]?.toLowerCase() ?? ''}${text.slice(1)}.` : `${text}.`;
}

/** A table of configs; a note instead when nothing is shown. */
export function formatConfigs(d: ConfigResourceDescription, shown: readonly ConfigEntryDetail[], options: { synonyms?: boolean; docs?: boolean; all?: boolean } = {}): string {
  if (shown.length === 0) {
    const hint = options.all === true || d.configs.length === 0 ? '' : ' (--all shows the defaults)';
    return `No configs set on ${describeResource(d)}${hint}.\n`;
  }
  const header = ['NAME', 'VALUE', 'SOURCE', 'READ-ONLY', 'SENSITIVE'];
  if (options.synonyms === true) header.push('SYNONYMS');
  if (options.docs === true) header.push('DOCUMENTATION');
  const rows = shown.map((c) => {
    const row = [c.name, formatValue(c), c.source, c.readOnly ? 'yes' : 'no', c.isSensitive ? 'yes' : 'no'];
    if (options.synonyms === true) row.push(c.synonyms.map((s) => `${s.name}=${s.value ?? '(null)'} (${s.source})`).join(', ') || '-');
    if (options.docs === true) row.push(c.documentation ?? '-');
    return row;
  });
  return `${formatTable(header, rows)}\n`;
}

function formatValue(c: ConfigEntryDetail): string {
  if (c.isSensitive) return '(sensitive)';
  if (c.value === null) return '(null)';
  return c.value === '' ? '""' : c.value;
}

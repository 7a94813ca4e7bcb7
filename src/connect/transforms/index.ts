/**
 * The built-in transforms and predicates by Kafka class name, and the
 * chain a connector's `transforms`/`predicates` configs build:
 *
 *   transforms=mask,route
 *   transforms.mask.type=org.apache.kafka.connect.transforms.MaskField$Value
 *   transforms.mask.fields=ssn
 *   transforms.mask.predicate=isOrders
 *   transforms.mask.negate=false
 *   predicates=isOrders
 *   predicates.isOrders.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches
 *   predicates.isOrders.pattern=orders.*
 */
import { ConfigException } from '../config-def.js';
import { withPrefix } from '../converters/index.js';
import type { ConnectRecord } from '../spi.js';
import { Cast } from './cast.js';
import { ExtractField, HoistField, ValueToKey } from './extract-hoist.js';
import { Filter, HasHeaderKey, RecordIsTombstone, TopicNameMatches } from './filter.js';
import { Flatten } from './flatten.js';
import { DropHeaders, HeaderFrom, InsertHeader } from './headers.js';
import { InsertField } from './insert-field.js';
import { MaskField } from './mask-field.js';
import { ReplaceField } from './replace-field.js';
import { RegexRouter, TimestampRouter } from './routers.js';
import type { Predicate, PredicateClass, Transformation, TransformationClass } from './transformation.js';

export type { Operand, Predicate, PredicateClass, Transformation, TransformationClass } from './transformation.js';
export { KEY, VALUE, keyValuePair, requireMap, requireStruct } from './transformation.js';

const T = 'org.apache.kafka.connect.transforms.';
const P = 'org.apache.kafka.connect.transforms.predicates.';

const pairs: Record<string, { Key: TransformationClass; Value: TransformationClass }> = {
  InsertField,
  ReplaceField,
  MaskField,
  Cast,
  ExtractField,
  HoistField,
  Flatten,
  HeaderFrom,
};
const singles: Record<string, TransformationClass> = { ValueToKey, TimestampRouter, RegexRouter, Filter, InsertHeader, DropHeaders };

export const BUILTIN_TRANSFORMS: ReadonlyMap<string, TransformationClass> = new Map<string, TransformationClass>([
  ...Object.entries(pairs).flatMap(([name, p]) => [
    [`${T}${name}$Key`, p.Key] as const,
    [`${T}${name}$Value`, p.Value] as const,
  ]),
  ...Object.entries(singles).map(([name, c]) => [`${T}${name}`, c] as const),
]);

export const BUILTIN_PREDICATES: ReadonlyMap<string, PredicateClass> = new Map<string, PredicateClass>([
  [`${P}TopicNameMatches`, TopicNameMatches],
  [`${P}HasHeaderKey`, HasHeaderKey],
  [`${P}RecordIsTombstone`, RecordIsTombstone],
]);

/** Finds a class by full name or by the part after the package (`InsertField$Value`, `TopicNameMatches`). */
export function lookupByName<C>(registry: ReadonlyMap<string, C>, name: string): C | undefined {
  const direct = registry.get(name);
  if (direct !== undefined) return direct;
  for (const [full, c] of registry) if (full.slice(full.lastIndexOf('.') + 1) === name) return c;
  return undefined;
}

/** Resolves transform and predicate class names (built in, or from plugins). */
export interface TransformResolver {
  transform(name: string): TransformationClass | undefined;
  predicate(name: string): PredicateClass | undefined;
}

export const builtinResolver: TransformResolver = {
  transform: (name) => lookupByName(BUILTIN_TRANSFORMS, name),
  predicate: (name) => lookupByName(BUILTIN_PREDICATES, name),
};

interface Stage {
  transform: Transformation;
  predicate: Predicate | null;
  negate: boolean;
}

function splitAliases(raw: string | undefined): string[] {
  return raw === undefined || raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
}

/** The ordered transforms of a connector config; apply() runs them, each only where its predicate says. */
export class TransformationChain {
  private constructor(private readonly stages: readonly Stage[]) {}

  static fromConfig(props: Readonly<Record<string, string>>, resolver: TransformResolver = builtinResolver): TransformationChain {
    const predicates = new Map<string, Predicate>();
    for (const alias of splitAliases(props.predicates)) {
      const type = props[`predicates.${alias}.type`];
      const cls = type === undefined ? undefined : resolver.predicate(type);
      if (cls === undefined) throw new ConfigException(`Invalid value ${type ?? 'null'} for configuration predicates.${alias}.type: Class ${type ?? 'null'} could not be found.`);
      const p = new cls();
      p.configure(withPrefix(props, `predicates.${alias}.`));
      predicates.set(alias, p);
    }
    const stages = splitAliases(props.transforms).map((alias): Stage => {
      const prefix = `transforms.${alias}.`;
      const type = props[`${prefix}type`];
      const cls = type === undefined ? undefined : resolver.transform(type);
      if (cls === undefined) throw new ConfigException(`Invalid value ${type ?? 'null'} for configuration ${prefix}type: Class ${type ?? 'null'} could not be found.`);
      const transform = new cls();
      transform.configure(withPrefix(props, prefix));
      const predicateAlias = props[`${prefix}predicate`];
      const predicate = predicateAlias === undefined ? null : (predicates.get(predicateAlias) ?? null);
      if (predicateAlias !== undefined && predicate === null) throw new ConfigException(`Invalid value ${predicateAlias} for configuration ${prefix}predicate: not a configured predicate alias`);
      return { transform, predicate, negate: (props[`${prefix}negate`] ?? 'false').trim().toLowerCase() === 'true' };
    });
    return new TransformationChain(stages);
  }

  get size(): number {
    return this.stages.length;
  }

  /** The record after every transform, or null when one dropped it. */
  apply<R extends ConnectRecord>(record: R): R | null {
    let current: R | null = record;
    for (const s of this.stages) {
      if (current === null) return null;
      if (s.predicate !== null && s.predicate.test(current) === s.negate) continue;
      current = s.transform.apply(current);
    }
    return current;
  }

  close(): void {
    for (const s of this.stages) s.transform.close?.();
  }
}

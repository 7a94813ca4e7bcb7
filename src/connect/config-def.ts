/**
 * Connector and transform config definitions in the manner of Kafka's
 * `ConfigDef`: each key has a type, an optional default (none means
 * required), an optional validator, importance, documentation and a group.
 * `parse` turns string properties into typed values or throws ConfigException
 * with every problem; `validate` reports one `ConfigValue` per key (value,
 * errors, recommended values), which is what
 * `PUT /connector-plugins/{plugin}/config/validate` returns.
 */

export type ConfigKeyType = 'BOOLEAN' | 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'DOUBLE' | 'LIST' | 'CLASS' | 'PASSWORD';
export type ConfigImportance = 'HIGH' | 'MEDIUM' | 'LOW';
export type ConfigParsed = string | number | boolean | string[] | null;

/** Checks a parsed value; throws ConfigException (with `invalidValue`) when it is bad. */
export type ConfigValidator = (name: string, value: ConfigParsed) => void;

export interface ConfigKeyDef {
  readonly name: string;
  readonly type: ConfigKeyType;
  /** undefined: required (Kafka's NO_DEFAULT_VALUE). */
  readonly defaultValue?: ConfigParsed;
  readonly validator?: ConfigValidator;
  readonly importance: ConfigImportance;
  readonly documentation: string;
  readonly group?: string;
  readonly orderInGroup?: number;
  readonly displayName?: string;
  /** Values the validate endpoint recommends (enums). */
  readonly recommendedValues?: readonly string[];
}

/** The result of validating one key (Kafka's ConfigValue). */
export interface ConfigValue {
  name: string;
  value: string | null;
  recommendedValues: string[];
  errors: string[];
  visible: boolean;
}

/** A bad config (Kafka's ConfigException); `problems` lists each one. */
export class ConfigException extends Error {
  override readonly name = 'ConfigException';
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }
}

export function invalidValue(name: string, value: unknown, reason: string): ConfigException {
  return new ConfigException(`Invalid value ${String(value)} for configuration ${name}: ${reason}`);
}

export function missingValue(name: string): ConfigException {
  return new ConfigException(`Missing required configuration "${name}" which has no default value.`);
}

const INT_LIMITS: Partial<Record<ConfigKeyType, readonly [number, number]>> = {
  SHORT: [-32768, 32767],
  INT: [-(2 ** 31), 2 ** 31 - 1],
  LONG: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** Parses one raw string as the key's type (Kafka's ConfigDef.parseType). */
export function parseType(key: ConfigKeyDef, raw: string): ConfigParsed {
  const text = key.type === 'PASSWORD' || key.type === 'STRING' ? raw : raw.trim();
  const limits = INT_LIMITS[key.type];
  if (limits !== undefined) {
    const n = Number(text);
    if (text === '' || !Number.isInteger(n) || n < limits[0] || n > limits[1]) {
      throw invalidValue(key.name, raw, `Not a number of type ${key.type}`);
    }
    return n;
  }
  switch (key.type) {
    case 'BOOLEAN':
      if (text.toLowerCase() === 'true') return true;
      if (text.toLowerCase() === 'false') return false;
      throw invalidValue(key.name, raw, 'Expected value to be either true or false');
    case 'DOUBLE': {
      const n = Number(text);
      if (text === '' || Number.isNaN(n)) throw invalidValue(key.name, raw, 'Not a number of type DOUBLE');
      return n;
    }
    case 'LIST':
      return text === '' ? [] : text.split(',').map((s) => s.trim());
    default:
      return text;
  }
}

/** A set of config keys; `define` returns this so definitions chain as in Kafka. */
export class ConfigDef {
  private readonly keys = new Map<string, ConfigKeyDef>();

  define(key: ConfigKeyDef): this {
    if (this.keys.has(key.name)) throw new Error(`Configuration ${key.name} is defined twice.`);
    this.keys.set(key.name, key);
    return this;
  }

  /** Every key of `other` added to this one (Kafka's ConfigDef(base) copy constructor). */
  merge(other: ConfigDef): this {
    for (const k of other.configKeys()) if (!this.keys.has(k.name)) this.keys.set(k.name, k);
    return this;
  }

  configKeys(): ConfigKeyDef[] {
    return [...this.keys.values()];
  }

  get(name: string): ConfigKeyDef | undefined {
    return this.keys.get(name);
  }

  /** Typed values for every defined key; throws ConfigException listing every problem. */
  parse(props: Readonly<Record<string, string>>): Record<string, ConfigParsed> {
    const out: Record<string, ConfigParsed> = {};
    const problems: string[] = [];
    for (const key of this.keys.values()) {
      try {
        out[key.name] = this.parseKey(key, props[key.name]);
      } catch (err) {
        if (!(err instanceof ConfigException)) throw err;
        problems.push(...err.problems);
      }
    }
    if (problems.length > 0) throw new ConfigException(problems.join('\n'), problems);
    return out;
  }

  private parseKey(key: ConfigKeyDef, raw: string | undefined): ConfigParsed {
    let value: ConfigParsed;
    if (raw !== undefined) value = parseType(key, raw);
    else if (key.defaultValue !== undefined) value = key.defaultValue;
    else throw missingValue(key.name);
    key.validator?.(key.name, value);
    return value;
  }

  /** One ConfigValue per key, errors included, never throwing for a bad value (Kafka's ConfigDef.validate). */
  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return this.configKeys().map((key) => {
      const raw = props[key.name];
      const result: ConfigValue = {
        name: key.name,
        value: raw ?? (key.defaultValue === undefined ? null : formatDefault(key.defaultValue)),
        recommendedValues: [...(key.recommendedValues ?? [])],
        errors: [],
        visible: true,
      };
      if (key.type === 'PASSWORD' && result.value !== null) result.value = '[hidden]';
      try {
        this.parseKey(key, raw);
      } catch (err) {
        if (!(err instanceof ConfigException)) throw err;
        result.errors.push(...err.problems);
      }
      return result;
    });
  }
}

/** How a default is shown in the validate response (Kafka's ConfigDef.convertToString). */
export function formatDefault(value: ConfigParsed): string | null {
  if (value === null) return null;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** Validators in the manner of Kafka's ConfigDef.Range, ValidString, NonEmptyString. */
export const Validators = {
  atLeast(min: number): ConfigValidator {
    return (name, value) => {
      if (value === null) return;
      if (typeof value !== 'number' || value < min) throw invalidValue(name, value, `Value must be at least ${min}`);
    };
  },
  between(min: number, max: number): ConfigValidator {
    return (name, value) => {
      if (value === null) return;
      if (typeof value !== 'number' || value < min || value > max) throw invalidValue(name, value, `Value must be no less than ${min} and no greater than ${max}`);
    };
  },
  in(...allowed: string[]): ConfigValidator {
    return (name, value) => {
      if (value === null) return;
      if (typeof value !== 'string' || !allowed.includes(value)) throw invalidValue(name, value, `String must be one of: ${allowed.join(', ')}`);
    };
  },
  inIgnoreCase(...allowed: string[]): ConfigValidator {
    return (name, value) => {
      if (value === null) return;
      if (typeof value !== 'string' || !allowed.some((a) => a.toLowerCase() === value.toLowerCase())) {
        throw invalidValue(name, value, `String must be one of (case insensitive): ${allowed.join(', ')}`);
      }
    };
  },
  nonEmptyString(): ConfigValidator {
    return (name, value) => {
      if (typeof value !== 'string' || value === '') throw invalidValue(name, value, 'String must be non-empty');
    };
  },
  nonEmptyList(): ConfigValidator {
    return (name, value) => {
      if (!Array.isArray(value) || value.length === 0) throw invalidValue(name, value ?? '', 'Empty list');
    };
  },
  regex(): ConfigValidator {
    return (name, value) => {
      if (typeof value !== 'string') return;
      try {
        new RegExp(value);
      } catch (err) {
        throw invalidValue(name, value, `Invalid regex: ${(err as Error).message}`);
      }
    };
  },
} as const;

/** A typed view of parsed config values (Kafka's AbstractConfig getters). */
export class ParsedConfig {
  constructor(readonly values: Readonly<Record<string, ConfigParsed>>) {}

  static of(def: ConfigDef, props: Readonly<Record<string, string>>): ParsedConfig {
    return new ParsedConfig(def.parse(props));
  }

  string(name: string): string {
    const v = this.values[name];
    if (typeof v !== 'string') throw new ConfigException(`${name} is not set`);
    return v;
  }

  stringOrNull(name: string): string | null {
    const v = this.values[name];
    return typeof v === 'string' ? v : null;
  }

  number(name: string): number {
    const v = this.values[name];
    if (typeof v !== 'number') throw new ConfigException(`${name} is not set`);
    return v;
  }

  boolean(name: string): boolean {
    return this.values[name] === true;
  }

  list(name: string): string[] {
    const v = this.values[name];
    return Array.isArray(v) ? v : [];
  }
}

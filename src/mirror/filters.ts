/**
 * Include/exclude filters over names (MirrorMaker 2's DefaultTopicFilter,
 * DefaultGroupFilter and DefaultConfigPropertyFilter): comma-separated Java
 * regular expressions, each matching the whole name; a name passes when it
 * matches an include and no exclude.
 */
import { ConfigException } from '../connect/config-def.js';

function compile(key: string, patterns: readonly string[]): RegExp | null {
  const list = patterns.map((p) => p.trim()).filter((p) => p !== '');
  if (list.length === 0) return null;
  try {
    return new RegExp(`^(?:${list.map((p) => `(?:${p})`).join('|')})$`);
  } catch (err) {
    throw new ConfigException(`Invalid value ${list.join(',')} for configuration ${key}: ${(err as Error).message}`);
  }
}

export class RegexFilter {
  private readonly include: RegExp | null;
  private readonly exclude: RegExp | null;

  constructor(key: string, include: readonly string[], exclude: readonly string[]) {
    this.include = compile(key, include);
    this.exclude = compile(`${key}.exclude`, exclude);
  }

  matches(name: string): boolean {
    return this.include !== null && this.include.test(name) && !(this.exclude?.test(name) ?? false);
  }
}

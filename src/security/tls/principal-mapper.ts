/**
 * Kafka's `ssl.principal.mapping.rules` (KIP-371): a comma-separated list of
 * rules tried in order on a client certificate's distinguished name (RFC
 * 2253, distinguished-name.ts); the first that matches gives the principal
 * name:
 *
 *   RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,
 *   RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,
 *   DEFAULT
 *
 * `RULE:pattern/replacement/` applies when the pattern matches the whole
 * name; the name is then rewritten with the replacement ($1... are groups);
 * a trailing `L` or `U` lower- or upper-cases the result. A `/` inside a
 * pattern or replacement is written `\/`. `DEFAULT` is the name unchanged.
 * When no rule applies the client is refused, as in Kafka. Patterns are
 * JavaScript regular expressions, which agree with Java's on the usual
 * syntax (groups, classes, lazy quantifiers, anchors).
 */

type Rule =
  | { readonly kind: 'default' }
  | { readonly kind: 'rule'; readonly whole: RegExp; readonly every: RegExp; readonly groups: number; readonly replacement: string; readonly caseChange: '' | 'L' | 'U' };

/** One rule: DEFAULT, or RULE:pattern/replacement/[LU] (Kafka's RULE_PATTERN). */
const RULE_RE = /^(?:(DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?))/;

export class PrincipalMappingError extends Error {}

/** Splits the rules text at commas that end a rule (commas inside a pattern stay). */
function splitRules(text: string): string[] {
  const rules: string[] = [];
  let rest = text.trim();
  while (rest !== '') {
    const m = RULE_RE.exec(rest);
    const end = m === null ? rest.indexOf(',') : m[0].length;
    const rule = m === null ? (end < 0 ? rest : rest.slice(0, end)) : m[0];
    const after = (m === null ? rest.slice(rule.length) : rest.slice(end)).trimStart();
    if (after !== '' && !after.startsWith(',')) throw new PrincipalMappingError(`invalid rule: \`${rule}\`, unmatched substring: \`${after}\``);
    rules.push(rule.trim());
    rest = after.replace(/^,\s*/, '');
  }
  return rules;
}

function parseRule(text: string): Rule {
  const m = RULE_RE.exec(text);
  if (m === null || m[0].length !== text.length) throw new PrincipalMappingError(`invalid rule: ${text}`);
  if (m[1] !== undefined) return { kind: 'default' };
  const source = m[2] ?? '';
  let whole: RegExp;
  let every: RegExp;
  try {
    // Kafka tests the pattern against the whole name (Matcher.matches), then rewrites with replaceAll.
    whole = new RegExp(`^(?:${source})$`);
    every = new RegExp(source, 'g');
  } catch (err) {
    throw new PrincipalMappingError(`invalid rule: ${text} (${(err as Error).message})`);
  }
  return { kind: 'rule', whole, every, groups: groupCount(source), replacement: (m[3] ?? '').replace(/\\\//g, '/'), caseChange: (m[4] ?? '') as '' | 'L' | 'U' };
}

/** Java's replacement syntax: $n is a group, \x is x (JavaScript's $&, $` and $' have no meaning there). */
function replaceWith(match: readonly (string | undefined)[], replacement: string): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i] as string;
    if (c === '\\' && i + 1 < replacement.length) {
      out += replacement[++i];
    } else if (c === '$' && /\d/.test(replacement[i + 1] ?? '')) {
      // Java takes the longest group number that exists ($12 with 3 groups is $1 then "2").
      let digits = replacement[++i] as string;
      while (/\d/.test(replacement[i + 1] ?? '') && Number(digits + replacement[i + 1]) < match.length) digits += replacement[++i];
      const group = Number(digits);
      out += group < match.length ? (match[group] ?? '') : `$${digits}`;
    } else {
      out += c;
    }
  }
  return out;
}

/** Number of capturing groups of a pattern. */
function groupCount(source: string): number {
  return (new RegExp(`${source}|`).exec('') as RegExpExecArray).length - 1;
}

export class PrincipalMapper {
  private constructor(private readonly rules: readonly Rule[]) {}

  /** Parses the rules; throws PrincipalMappingError with Kafka's wording for a bad one. */
  static parse(text: string): PrincipalMapper {
    return new PrincipalMapper(splitRules(text).filter((r) => r !== '').map(parseRule));
  }

  /** The principal name for a distinguished name; null when no rule applies (the client is refused). */
  map(distinguishedName: string): string | null {
    for (const rule of this.rules) {
      if (rule.kind === 'default') return distinguishedName;
      if (!rule.whole.test(distinguishedName)) continue;
      // As Kafka's String.replaceAll: every match is replaced (a pattern that
      // can match the empty string also matches at the end, as in Java).
      const name = distinguishedName.replace(rule.every, (...args: unknown[]) => {
        const groups = args.slice(0, rule.groups + 1) as (string | undefined)[];
        return replaceWith(groups, rule.replacement);
      });
      return rule.caseChange === 'L' ? name.toLowerCase() : rule.caseChange === 'U' ? name.toUpperCase() : name;
    }
    return null;
  }
}

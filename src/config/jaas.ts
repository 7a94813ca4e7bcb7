/**
 * Kafka's JAAS configuration syntax, as written in `sasl.jaas.config` and
 * `listener.name.<listener>.<mechanism>.sasl.jaas.config`:
 *
 *   org.apache.kafka.common.security.plain.PlainLoginModule required
 *     username="admin" password="admin-secret" user_alice="alice-secret";
 *
 * One login module: a class name, a control flag (required, requisite,
 * sufficient, optional), `key=value` options (values quoted with "..." or
 * bare words) and a closing ';'. Inside quotes a backslash escapes the next
 * character. Parsing never throws: problems come back as a message for the
 * config error (the value itself is a password and is never echoed).
 */

export interface JaasModule {
  readonly loginModule: string;
  readonly flag: 'required' | 'requisite' | 'sufficient' | 'optional';
  readonly options: ReadonlyMap<string, string>;
}

const FLAGS = ['required', 'requisite', 'sufficient', 'optional'] as const;

/** Splits the text into words, quoted strings, '=' and ';'. */
function tokenize(text: string): { kind: 'word' | 'quoted' | '=' | ';'; value: string }[] | string {
  const tokens: { kind: 'word' | 'quoted' | '=' | ';'; value: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '=' || c === ';') {
      tokens.push({ kind: c, value: c });
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i] as string;
        i++;
      }
      if (i >= text.length) return 'a quoted value is not closed';
      i++;
      tokens.push({ kind: 'quoted', value });
    } else {
      const m = /^[^\s=;"]+/.exec(text.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'word', value: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

/** Parses exactly one login module; a string is the problem. */
export function parseJaasConfig(text: string): JaasModule | string {
  const tokens = tokenize(text);
  if (typeof tokens === 'string') return tokens;
  const [cls, flag] = tokens;
  if (cls?.kind !== 'word') return 'expected a login module class name first';
  const knownFlag = FLAGS.find((f) => f === flag?.value.toLowerCase());
  if (flag?.kind !== 'word' || knownFlag === undefined) return `expected a control flag (${FLAGS.join(', ')}) after the login module`;
  const options = new Map<string, string>();
  let i = 2;
  while (i < tokens.length && tokens[i]?.kind !== ';') {
    const [key, eq, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (key?.kind !== 'word' || eq?.kind !== '=' || value === undefined || (value.kind !== 'word' && value.kind !== 'quoted')) {
      return 'expected options as key="value"';
    }
    options.set(key.value, value.value);
    i += 3;
  }
  if (tokens[i]?.kind !== ';') return 'the login module must end with ";"';
  if (i + 1 !== tokens.length) return 'exactly one login module is allowed';
  return { loginModule: cls.value, flag: knownFlag, options };
}

/** PLAIN users of a PlainLoginModule: its `user_<name>="<password>"` options. */
export function plainUsers(module: JaasModule): Map<string, string> {
  const users = new Map<string, string>();
  for (const [key, value] of module.options) {
    if (key.startsWith('user_') && key.length > 'user_'.length) users.set(key.slice('user_'.length), value);
  }
  return users;
}

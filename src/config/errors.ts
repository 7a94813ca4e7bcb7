/**
 * Configuration errors. Every problem found while parsing a set of configs is
 * collected first and reported together, so a user fixes a file in one pass
 * instead of one restart per typo.
 */

/** One thing wrong with one key. `message` always starts with the key. */
export interface ConfigProblem {
  readonly key: string;
  readonly message: string;
  /** Where the value came from, e.g. `server.properties:12` or `--override`. */
  readonly origin?: string;
}

/** `ERR_TRIB_CONFIG_INVALID` (a bad key or value) or `ERR_TRIB_CONFIG_FILE` (the file cannot be read). */
export type ConfigErrorCode = 'ERR_TRIB_CONFIG_INVALID' | 'ERR_TRIB_CONFIG_FILE';

/** A configuration that cannot be used; `problems` lists each key and what is wrong. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(
    readonly code: ConfigErrorCode,
    problems: readonly ConfigProblem[],
    options?: { cause?: unknown; header?: string },
  ) {
    super(formatProblems(problems, options?.header), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** "Invalid configuration (2 problems):\n  - a: ...\n  - b: ..." */
export function formatProblems(problems: readonly ConfigProblem[], header?: string): string {
  const n = problems.length;
  const head = header ?? `Invalid configuration (${n} ${n === 1 ? 'problem' : 'problems'}); fix these and try again:`;
  const lines = problems.map((p) => `  - ${p.message}${p.origin === undefined ? '' : ` [${p.origin}]`}`);
  return [head, ...lines].join('\n');
}

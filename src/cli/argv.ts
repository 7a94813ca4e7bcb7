/** The first argument that is not an option: the subcommand asked for (`start`, `topic`...). */
export function subcommandOf(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

/**
 * Topic name rules, as Kafka's `Topic.validate` and collision check:
 * 1..249 characters of [a-zA-Z0-9._-], not "." or "..". Because metric names
 * replace '.' with '_', two names that differ only there (a.b and a_b) collide
 * and the second is refused.
 */
export const TOPIC_NAME_LENGTH_MAX = 249;
const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** Internal topics of the platform (Metadata reports them with isInternal). */
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state']);

/** Returns why `name` is not a legal topic name, or null when it is. */
export function topicNameProblem(name: string): string | null {
  if (name.length === 0) return 'Topic name is illegal, it can\'t be empty.';
  if (name === '.' || name === '..') return 'Topic name cannot be "." or "..".';
  if (name.length > TOPIC_NAME_LENGTH_MAX) {
    return `Topic name is illegal, it can't be longer than ${TOPIC_NAME_LENGTH_MAX} characters, topic name: ${name}`;
  }
  if (!LEGAL.test(name)) {
    return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'.`;
  }
  return null;
}

/** The form under which names collide. */
export function unifyCollisionChars(name: string): string {
  return name.replaceAll('.', '_');
}

export function hasCollisionChars(name: string): boolean {
  return name.includes('.') || name.includes('_');
}

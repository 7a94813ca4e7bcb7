/**
 * The ACLs of the metadata image indexed for lookups by resource: per
 * resource type, LITERAL ACLs by exact name (the `*` wildcard is one of
 * them) and PREFIXED ACLs by prefix, with the set of prefix lengths in use,
 * so the ACLs that apply to a resource are found with one map lookup per
 * distinct prefix length instead of a scan (Kafka's StandardAuthorizerData
 * walks a sorted set to the same effect).
 *
 * Immutable once built; the authorizer builds a new one when the store's
 * generation moves.
 */
import { PatternType, WILDCARD, type AclBinding } from '../../protocol/acl-types.js';

interface TypeIndex {
  readonly literal: Map<string, AclBinding[]>;
  readonly prefixed: Map<string, AclBinding[]>;
  /** Distinct prefix lengths, ascending. */
  prefixLengths: number[];
}

export class AclIndex {
  private readonly byType = new Map<number, TypeIndex>();

  constructor(acls: Iterable<AclBinding>) {
    for (const acl of acls) {
      let t = this.byType.get(acl.resourceType);
      if (t === undefined) {
        t = { literal: new Map(), prefixed: new Map(), prefixLengths: [] };
        this.byType.set(acl.resourceType, t);
      }
      const map = acl.patternType === PatternType.PREFIXED ? t.prefixed : t.literal;
      const list = map.get(acl.resourceName);
      if (list === undefined) map.set(acl.resourceName, [acl]);
      else list.push(acl);
    }
    for (const t of this.byType.values()) t.prefixLengths = [...new Set([...t.prefixed.keys()].map((p) => p.length))].sort((a, b) => a - b);
  }

  /**
   * Every ACL whose pattern matches the resource: LITERAL with its exact
   * name, LITERAL `*`, and PREFIXED with a prefix of its name.
   */
  matching(resourceType: number, name: string, visit: (acl: AclBinding) => boolean | void): void {
    const t = this.byType.get(resourceType);
    if (t === undefined) return;
    for (const acl of t.literal.get(name) ?? []) if (visit(acl) === true) return;
    if (name !== WILDCARD) for (const acl of t.literal.get(WILDCARD) ?? []) if (visit(acl) === true) return;
    for (const length of t.prefixLengths) {
      if (length > name.length) break;
      for (const acl of t.prefixed.get(name.slice(0, length)) ?? []) if (visit(acl) === true) return;
    }
  }

  /** Every ACL of a resource type (authorizeByResourceType). */
  *ofType(resourceType: number): Generator<AclBinding> {
    const t = this.byType.get(resourceType);
    if (t === undefined) return;
    for (const list of t.literal.values()) yield* list;
    for (const list of t.prefixed.values()) yield* list;
  }
}

/**
 * One connection's authorization decisions, cached so the produce path
 * pays a map lookup per topic and request, not an ACL walk (issue: < 5% on
 * produce; bench/authorizer.mjs). A connection has one principal and one
 * client address, so a decision depends only on (operation, resource type,
 * resource name) and on the ACLs: the whole cache is dropped when the
 * authorizer's version moves (any ACL change) or the principal changes.
 *
 * Bounded: past DECISIONS_PER_CONNECTION_MAX cached resources the cache
 * starts over, so a client walking many topics cannot grow it without end.
 */
import type { Decision, StandardAuthorizer } from './standard-authorizer.js';

export const DECISIONS_PER_CONNECTION_MAX = 10_000;

/** Bits per resource name: bit 2*op = known, bit 2*op+1 = allowed (Kafka's operation ids are < 16, so 32 bits hold them all). */
type Bits = number;

export class DecisionCache {
  /** resource type -> name -> bits. */
  private readonly byType = new Map<number, Map<string, Bits>>();
  /** authorizeByResourceType answers, by operation * 16 + resource type. */
  private readonly byResourceType = new Map<number, boolean>();
  private size = 0;
  private version = -1;
  private principal = '';

  constructor(
    private readonly authorizer: StandardAuthorizer,
    /** The client's address as ACL hosts name it (an IP address). */
    readonly host: string,
  ) {}

  /**
   * Whether `principal` may `operation` the resource; `onDecision` sees
   * every decision actually computed (not the cached ones), for the audit log.
   */
  allowed(principal: string, operation: number, resourceType: number, name: string, onDenied?: (d: Decision) => void): boolean {
    const version = this.authorizer.version;
    if (version !== this.version || principal !== this.principal) this.reset(version, principal);
    let names = this.byType.get(resourceType);
    if (names === undefined) {
      names = new Map();
      this.byType.set(resourceType, names);
    }
    const bits = names.get(name) ?? 0;
    const known = 1 << (2 * operation);
    if ((bits & known) !== 0) {
      const allowed = (bits & (known << 1)) !== 0;
      if (!allowed) onDenied?.(this.authorizer.authorize(principal, this.host, operation, resourceType, name));
      return allowed;
    }
    const decision = this.authorizer.authorize(principal, this.host, operation, resourceType, name);
    if (this.size >= DECISIONS_PER_CONNECTION_MAX) this.reset(version, principal);
    if (bits === 0) this.size++;
    (this.byType.get(resourceType) as Map<string, Bits>).set(name, bits | known | (decision.allowed ? known << 1 : 0));
    if (!decision.allowed) onDenied?.(decision);
    return decision.allowed;
  }

  /** Kafka's authorizeByResourceType (a walk over every ACL of the type), cached like the others. */
  allowedByResourceType(principal: string, operation: number, resourceType: number): boolean {
    const version = this.authorizer.version;
    if (version !== this.version || principal !== this.principal) this.reset(version, principal);
    const key = operation * 16 + resourceType;
    let allowed = this.byResourceType.get(key);
    if (allowed === undefined) {
      allowed = this.authorizer.authorizeByResourceType(principal, this.host, operation, resourceType);
      this.byResourceType.set(key, allowed);
    }
    return allowed;
  }

  private reset(version: number, principal: string): void {
    this.byType.clear();
    this.byResourceType.clear();
    this.size = 0;
    this.version = version;
    this.principal = principal;
  }
}

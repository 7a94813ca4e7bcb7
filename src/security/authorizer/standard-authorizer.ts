/**
 * Kafka's StandardAuthorizer semantics (org.apache.kafka.metadata.authorizer.
 * StandardAuthorizerData), over the ACLs of the metadata image:
 *
 * 1. A principal listed in `super.users` may do everything.
 * 2. The ACLs considered are those whose pattern matches the resource:
 *    LITERAL with the resource's exact name, LITERAL `*`, and PREFIXED with
 *    a prefix of the name. If there are none at all (whoever they are for),
 *    the answer is `allow.everyone.if.no.acl.found` (default false).
 * 3. Of those, an ACL applies when its principal is the request's or
 *    `User:*`, its host is the client's address or `*`, and its operation
 *    is the one asked, or ALL, or, for an ALLOW ACL only, one that implies
 *    it: READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies
 *    DESCRIBE_CONFIGS. (A DENY READ does not deny DESCRIBE.)
 * 4. Any applying DENY denies; else any applying ALLOW allows; else denied.
 *
 * `authorizeByResourceType` is Kafka's Authorizer.authorizeByResourceType
 * (KIP-679: InitProducerId without a transactional id is allowed with WRITE
 * on any topic): allowed when some pattern of that type allows the
 * operation and no DENY dominates it.
 */
import { AclOperation, AclPermissionType, PatternType, WILDCARD, WILDCARD_PRINCIPAL, type AclBinding } from '../../protocol/acl-types.js';
import { AclIndex } from './acl-index.js';

export interface AuthorizerConfig {
  /** `super.users`: principals such as `User:admin`. */
  readonly superUsers: ReadonlySet<string>;
  /** `allow.everyone.if.no.acl.found`. */
  readonly allowEveryoneIfNoAclFound: boolean;
}

/** Where the ACLs come from: the metadata image's store (src/controller/metadata/acls.ts). */
export interface AclSource {
  readonly generation: number;
  all(): Iterable<AclBinding>;
}

export type DecisionReason = 'super_user' | 'acl' | 'no_acl_found' | 'no_matching_allow';

export interface Decision {
  readonly allowed: boolean;
  readonly reason: DecisionReason;
  /** The ACL that decided (reason 'acl'). */
  readonly acl?: AclBinding;
}

/** What a principal may do: every ACL naming it or `User:*` (the tenant view, `tributary tenant describe`). */
export interface EffectiveAcls {
  readonly principal: string;
  readonly superUser: boolean;
  readonly allowEveryoneIfNoAclFound: boolean;
  readonly acls: readonly AclBinding[];
}

const IMPLIES_DESCRIBE: ReadonlySet<number> = new Set([AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]);
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<number> = new Set([AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]);

const SUPER_USER: Decision = { allowed: true, reason: 'super_user' };
const NO_ACL_ALLOWED: Decision = { allowed: true, reason: 'no_acl_found' };
const NO_ACL_DENIED: Decision = { allowed: false, reason: 'no_acl_found' };
const DEFAULT_DENIED: Decision = { allowed: false, reason: 'no_matching_allow' };

/** Kafka's StandardAuthorizerData.findResult: the permission an ACL gives the action, or null when it does not apply. */
function aclApplies(acl: AclBinding, principal: string, host: string, operation: number): boolean {
  if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) return false;
  if (acl.host !== WILDCARD && acl.host !== host) return false;
  if (acl.operation === AclOperation.ALL || acl.operation === operation) return true;
  if (acl.permissionType !== AclPermissionType.ALLOW) return false;
  if (operation === AclOperation.DESCRIBE) return IMPLIES_DESCRIBE.has(acl.operation);
  if (operation === AclOperation.DESCRIBE_CONFIGS) return IMPLIES_DESCRIBE_CONFIGS.has(acl.operation);
  return false;
}

export class StandardAuthorizer {
  private index = new AclIndex([]);
  private indexedSource: AclSource | null = null;
  private indexedGeneration = -1;
  private versionValue = 0;

  constructor(
    readonly config: AuthorizerConfig,
    private readonly source: () => AclSource,
  ) {}

  /** Moves whenever the ACLs change: cached decisions older than it are stale (decision-cache.ts). */
  get version(): number {
    this.refresh();
    return this.versionValue;
  }

  isSuperUser(principal: string): boolean {
    return this.config.superUsers.has(principal);
  }

  authorize(principal: string, host: string, operation: number, resourceType: number, resourceName: string): Decision {
    if (this.config.superUsers.has(principal)) return SUPER_USER;
    this.refresh();
    let found = false;
    let allow: AclBinding | undefined;
    let deny: AclBinding | undefined;
    this.index.matching(resourceType, resourceName, (acl) => {
      found = true;
      if (!aclApplies(acl, principal, host, operation)) return false;
      if (acl.permissionType === AclPermissionType.DENY) {
        deny = acl;
        return true;
      }
      allow ??= acl;
      return false;
    });
    if (deny !== undefined) return { allowed: false, reason: 'acl', acl: deny };
    if (allow !== undefined) return { allowed: true, reason: 'acl', acl: allow };
    if (!found) return this.config.allowEveryoneIfNoAclFound ? NO_ACL_ALLOWED : NO_ACL_DENIED;
    return DEFAULT_DENIED;
  }

  /** Kafka's Authorizer.authorizeByResourceType: may the principal `operation` some resource of the type? */
  authorizeByResourceType(principal: string, host: string, operation: number, resourceType: number): boolean {
    // Kafka checks a made-up literal name first, so super users (and no-ACL-found) pass whatever the DENY ACLs say.
    if (this.authorize(principal, host, operation, resourceType, 'hardcode').allowed) return true;
    const denyLiteral = new Set<string>();
    const denyPrefixed = new Set<string>();
    const allowed: AclBinding[] = [];
    for (const acl of this.index.ofType(resourceType)) {
      if (acl.host !== host && acl.host !== WILDCARD) continue;
      if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) continue;
      if (acl.operation !== operation && acl.operation !== AclOperation.ALL) continue;
      if (acl.permissionType === AclPermissionType.DENY) {
        if (acl.patternType === PatternType.LITERAL && acl.resourceName === WILDCARD) return false;
        (acl.patternType === PatternType.PREFIXED ? denyPrefixed : denyLiteral).add(acl.resourceName);
      } else if (acl.permissionType === AclPermissionType.ALLOW) {
        allowed.push(acl);
      }
    }
    if (allowed.some((a) => a.patternType === PatternType.LITERAL && a.resourceName === WILDCARD)) return true;
    return allowed.some((a) => {
      if (a.patternType === PatternType.LITERAL && denyLiteral.has(a.resourceName)) return false;
      for (let i = 1; i <= a.resourceName.length; i++) if (denyPrefixed.has(a.resourceName.slice(0, i))) return false;
      return true;
    });
  }

  /** The ACLs that name `principal` or `User:*`, sorted by resource then operation (for operators; `tributary tenant describe`). */
  effectiveAcls(principal: string): EffectiveAcls {
    const acls = [...this.source().all()]
      .filter((a) => a.principal === principal || a.principal === WILDCARD_PRINCIPAL)
      .map((a): AclBinding => ({ resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType, principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType }))
      .sort((a, b) => a.resourceType - b.resourceType || a.resourceName.localeCompare(b.resourceName) || a.patternType - b.patternType || a.operation - b.operation || a.permissionType - b.permissionType || a.principal.localeCompare(b.principal) || a.host.localeCompare(b.host));
    return { principal, superUser: this.isSuperUser(principal), allowEveryoneIfNoAclFound: this.config.allowEveryoneIfNoAclFound, acls };
  }

  private refresh(): void {
    const source = this.source();
    if (source === this.indexedSource && source.generation === this.indexedGeneration) return;
    this.index = new AclIndex(source.all());
    this.indexedSource = source;
    this.indexedGeneration = source.generation;
    this.versionValue++;
  }
}

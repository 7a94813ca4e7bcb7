/**
 * What a request handler asks the authorizer: "may this request's
 * principal do OPERATION on RESOURCE?", one small call per resource
 * (`ctx.authz.topic(AclOperation.WRITE, name)`). Handlers decide nothing
 * themselves: the rules are the StandardAuthorizer's, the required
 * operations per API are in api-acls.ts.
 *
 * One `ConnectionAuthorization` per connection holds the decision cache;
 * each request gets a `RequestAuthorizer` that also remembers the denied
 * actions, so the broker writes one audit line per denied request
 * (`auditDenials`). Without an authorizer (`authorizer.class.name` unset)
 * every request shares ALLOW_ALL, which allocates nothing.
 */
import type { Logger } from 'pino';
import { CLUSTER_NAME, ResourceType, operationName, resourceTypeName } from '../../protocol/acl-types.js';
import { DecisionCache } from './decision-cache.js';
import type { Decision, StandardAuthorizer } from './standard-authorizer.js';

export interface RequestAuthorizer {
  /** False when no authorizer is configured: everything is allowed. */
  readonly enabled: boolean;
  allowed(operation: number, resourceType: number, name: string, logIfDenied?: boolean): boolean;
  topic(operation: number, name: string, logIfDenied?: boolean): boolean;
  group(operation: number, name: string, logIfDenied?: boolean): boolean;
  transactionalId(operation: number, name: string, logIfDenied?: boolean): boolean;
  cluster(operation: number, logIfDenied?: boolean): boolean;
  /** Kafka's authorizeByResourceType: may the principal do `operation` on some resource of the type? */
  anyOfType(operation: number, resourceType: number): boolean;
}

export const ALLOW_ALL: RequestAuthorizer = {
  enabled: false,
  allowed: () => true,
  topic: () => true,
  group: () => true,
  transactionalId: () => true,
  cluster: () => true,
  anyOfType: () => true,
};

export interface DeniedAction {
  readonly operation: string;
  readonly resourceType: string;
  readonly resourceName: string;
  readonly reason: Decision['reason'];
}

class CheckingRequestAuthorizer implements RequestAuthorizer {
  readonly enabled = true;
  denied: DeniedAction[] | null = null;

  constructor(
    private readonly cache: DecisionCache,
    readonly principal: string,
  ) {}

  allowed(operation: number, resourceType: number, name: string, logIfDenied = true): boolean {
    return this.cache.allowed(this.principal, operation, resourceType, name, logIfDenied ? (d) => this.remember(operation, resourceType, name, d) : undefined);
  }

  topic(operation: number, name: string, logIfDenied = true): boolean {
    return this.allowed(operation, ResourceType.TOPIC, name, logIfDenied);
  }

  group(operation: number, name: string, logIfDenied = true): boolean {
    return this.allowed(operation, ResourceType.GROUP, name, logIfDenied);
  }

  transactionalId(operation: number, name: string, logIfDenied = true): boolean {
    return this.allowed(operation, ResourceType.TRANSACTIONAL_ID, name, logIfDenied);
  }

  cluster(operation: number, logIfDenied = true): boolean {
    return this.allowed(operation, ResourceType.CLUSTER, CLUSTER_NAME, logIfDenied);
  }

  anyOfType(operation: number, resourceType: number): boolean {
    const ok = this.cache.allowedByResourceType(this.principal, operation, resourceType);
    if (!ok) this.remember(operation, resourceType, '(any)', { allowed: false, reason: 'no_matching_allow' });
    return ok;
  }

  private remember(operation: number, resourceType: number, resourceName: string, d: Decision): void {
    (this.denied ??= []).push({ operation: operationName(operation) ?? String(operation), resourceType: resourceTypeName(resourceType) ?? String(resourceType), resourceName, reason: d.reason });
  }
}

/** One connection's view of the authorizer. */
export class ConnectionAuthorization {
  private readonly cache: DecisionCache;

  constructor(authorizer: StandardAuthorizer, host: string) {
    this.cache = new DecisionCache(authorizer, normalizeHost(host));
  }

  forRequest(principal: string): RequestAuthorizer {
    return new CheckingRequestAuthorizer(this.cache, principal);
  }
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is `10.0.0.1` to ACL hosts, as Kafka's InetAddress shows it. */
export function normalizeHost(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export interface AuditContext {
  readonly apiName: string;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  readonly principal: string;
  readonly clientAddress: string;
  readonly listenerName: string;
}

/** One audit line for a request with denied actions (the `authorizer` logger, Kafka's kafka.authorizer.logger). */
export function auditDenials(authz: RequestAuthorizer, logger: Logger, request: AuditContext): void {
  if (!(authz instanceof CheckingRequestAuthorizer) || authz.denied === null) return;
  logger.info({ ...request, denied: authz.denied }, `Principal = ${request.principal} is Denied operation = ${authz.denied[0]?.operation} from host = ${request.clientAddress} on resource = ${authz.denied[0]?.resourceType}:${authz.denied[0]?.resourceName} for request = ${request.apiName}`);
}
